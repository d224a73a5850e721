#!/bin/sh
# Deterministic "measurement" for the snapshot tests of `abba compare --metric json:v`.
# Usage: sh counter.sh DIR NAME BASE
# Keeps a per-variant call counter in DIR/NAME and prints {"v": N} where N depends only on
# BASE and on how many times this variant has been called (warm-up runs included), so the
# values vary from run to run but are the same on every machine and every test run.
dir=$1
name=$2
base=$3
k=0
if [ -f "$dir/$name" ]; then
    read -r k < "$dir/$name"
fi
k=$((k + 1))
echo "$k" > "$dir/$name"
# A fixed pseudo-random wobble in 0..18 (a quadratic residue of the call count, mixed with
# the base so each variant gets its own sequence), added to the base.
wobble=$(( (k * k * 13 + k * 5 + base * 7) % 19 ))
echo "{\"v\": $((base + wobble))}"
