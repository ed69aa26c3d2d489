#!/usr/bin/env bash
# Counts the instructions V8 runs for one run of an experiment in modules built by
# tests/browser/compute.sh: valgrind (callgrind) runs Node with every function compiled by
# V8's optimising compiler (no baseline tier, no background threads), so the count repeats
# to about 0.1% from run to run, where timings on a shared machine vary by 2x. It runs the
# experiment once and three times and prints half the difference (the instructions of one
# warm run, start-up and compiling excluded). Not a test.
#   bash tests/browser/count.sh LINK DIR [DIR...]
set -euo pipefail
cd "$(dirname "$0")/../.."
link="$1"
shift
count() {
  ORRERY_COMPUTE_ONE=1 ORRERY_COMPUTE_RUNS="$2" valgrind --tool=callgrind --smc-check=all-non-file \
    --callgrind-out-file=/dev/null node --no-liftoff --single-threaded tests/browser/compute.mjs "$link" "$1" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for dir in "$@"; do
  one=$(count "$dir" 1)
  three=$(count "$dir" 3)
  echo "$dir: $(( (three - one) / 2 )) instructions per warm run"
done
