#!/bin/bash
# Queues the job array, then the analysis of all its raw files once every task is done.
set -euo pipefail
mkdir -p logs results
jid=$(sbatch --parsable abba-array.sbatch)
sbatch --dependency=afterok:"$jid" --job-name=abba-analyze --output=logs/abba-analyze-%j.out \
  --wrap 'abba analyze results/*.jsonl --export-markdown results/report.md'
