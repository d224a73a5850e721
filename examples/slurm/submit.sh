#!/bin/bash
# Queues the job array, then the analysis of all its raw files once every task is done.
# Run it from the directory holding abba-array.sbatch, old and new (the jobs start there).
set -euo pipefail
mkdir -p logs results
jid=$(sbatch --parsable abba-array.sbatch)
# The analysis is one job: an SBATCH_ARRAY_INX given for the array must not make it one too.
unset SBATCH_ARRAY_INX
aid=$(sbatch --parsable --dependency=afterok:"$jid" --job-name=abba-analyze --output=logs/abba-analyze-%j.out \
  --wrap 'abba analyze results/*.jsonl --export-markdown results/report.md')
echo "array job $jid, analysis job $aid (logs/abba-analyze-$aid.out, results/report.md)"
