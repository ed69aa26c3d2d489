#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ (cargo-fuzz, nightly toolchain) for FUZZ_SECONDS seconds
# each (30 by default), two at a time, on a copy of its corpus (fuzz/corpus/<target> is left
# as committed). Installs the nightly toolchain and cargo-fuzz when missing. Fails, naming
# the target and its crashing input, on any crash, hang (10 s), out-of-memory (2 GB) or
# failure to build or start; never skips a target.
#
# The targets build without AddressSanitizer (`-s none`): the library forbids unsafe code
# (`#![forbid(unsafe_code)]` in src/lib.rs), so ASan could only find faults inside its
# dependencies, and it costs a third of the build and most of each run's speed. Debug
# assertions and overflow checks stay on (cargo-fuzz's default).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

secs=${FUZZ_SECONDS:-30}
if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

mapfile -t targets < <(cargo +nightly fuzz list)
if [ "${#targets[@]}" -eq 0 ]; then
  echo "fuzz: no targets found" >&2
  exit 1
fi
cargo +nightly fuzz build -s none

work=$(mktemp -d)
logs=target/fuzz-logs
mkdir -p "$logs"
run_target() {
  local t=$1
  mkdir -p "$work/$t"
  cargo +nightly fuzz run -s none "$t" "$work/$t" "corpus/$t" -- \
    -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 >"$logs/$t.log" 2>&1
}

failed=()
i=0
while [ "$i" -lt "${#targets[@]}" ]; do
  pids=()
  names=()
  for t in "${targets[@]:i:2}"; do
    run_target "$t" &
    pids+=($!)
    names+=("$t")
  done
  for k in "${!pids[@]}"; do
    t=${names[$k]}
    if wait "${pids[$k]}" && grep -q '^Done [0-9]* runs in' "$logs/$t.log"; then
      echo "fuzz: $t: $(grep -Eo '^Done [0-9]+ runs in [0-9]+ second' "$logs/$t.log"), no crash"
    else
      echo "fuzz: $t FAILED; the end of its log ($logs/$t.log):" >&2
      tail -n 40 "$logs/$t.log" >&2
      failed+=("$t")
    fi
  done
  i=$((i + 2))
done
rm -rf "$work"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]} (crashing inputs in fuzz/artifacts/)" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets ran ${secs} s each without a crash"
