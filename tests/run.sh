#!/usr/bin/env bash
# Runs every check and test of Orrery: formatting, clippy on both targets, the whole Rust test
# suite (unit, integration, fidelity against Gavel's simulator when ../shared/reference is
# present), every fuzz target of fuzz/ for 30 s (tests/fuzz.sh; installs the nightly
# toolchain and cargo-fuzz when missing), a sweep's shards and merge as a job array on a
# single-node Slurm started for the purpose (tests/cluster/slurm_test.sh; installs Debian's
# slurm-wlm and munge when missing), then builds the web page with trunk and runs the
# end-to-end tests in headless Chromium. Installs what is missing first (www/tools.sh),
# idempotently.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$SECONDS
step() { printf '\n==> %s (at %dm%02ds)\n' "$*" $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)); }

step "tools"
source www/tools.sh
for c in rustfmt clippy; do
  if command -v rustup >/dev/null && ! rustup component list --installed 2>/dev/null | grep -q "^$c"; then
    rustup component add "$c"
  fi
done
cargo --version
trunk --version
wasm-bindgen --version
wasm-opt --version
chromium --version

step "cargo fmt --check"
cargo fmt --all -- --check

step "clippy (native, all targets, the core and the page's crate)"
cargo clippy --workspace --all-targets -- -D warnings

step "clippy (wasm32: the core and the page's crate)"
cargo clippy --workspace --target wasm32-unknown-unknown --lib --bins -- -D warnings

step "Rust tests (release)"
if [ ! -d ../shared/reference ]; then
  echo "note: ../shared/reference is absent: the fidelity tests will print SKIPPED"
fi
mkdir -p target
cargo test --release --lib --tests -- --show-output 2>&1 | tee target/test-output.txt
rust_passed=$(grep -Eo '^test result: .*' target/test-output.txt | grep -Eo '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
rust_failed=$(grep -Eo '^test result: .*' target/test-output.txt | grep -Eo '[0-9]+ failed' | awk '{s+=$1} END {print s+0}')

step "fuzz: every target of fuzz/ for 30 s, two at a time (tests/fuzz.sh)"
tests/fuzz.sh 2>&1 | tee target/fuzz-output.txt
fuzz_passed=$(grep -c '^fuzz: .*, no crash$' target/fuzz-output.txt)

step "Slurm job array: a sweep's shards and merge on a single-node Slurm (tests/cluster/slurm_test.sh)"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "installing Debian's slurm-wlm and munge"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi
cargo build --release --bin orrery
tests/cluster/slurm_test.sh
slurm_passed=1

step "web page (trunk build --release)"
cargo build --release --bin orrery
trunk build --release

step "browser tests (headless Chromium): tests/browser/e2e.mjs and every tests/browser/e2e-*.mjs"
browser_passed=0
browser_failed=0
: > target/browser-output.txt
for f in tests/browser/e2e.mjs tests/browser/e2e-*.mjs; do
  [ -e "$f" ] || continue
  echo "--- $f" | tee -a target/browser-output.txt
  node "$f" 2>&1 | tee target/browser-file.txt || true
  cat target/browser-file.txt >> target/browser-output.txt
  line=$(grep -E '^browser: [0-9]+ passed, [0-9]+ failed' target/browser-file.txt | tail -n 1 || true)
  if [ -z "$line" ]; then
    echo "error: $f printed no count line"
    browser_failed=$((browser_failed + 1))
    continue
  fi
  browser_passed=$((browser_passed + $(grep -Eo '[0-9]+ passed' <<<"$line" | grep -Eo '[0-9]+')))
  browser_failed=$((browser_failed + $(grep -Eo '[0-9]+ failed' <<<"$line" | grep -Eo '[0-9]+')))
done

skipped=$(grep -c '^SKIPPED' target/test-output.txt || true)
if [ "$skipped" -gt 0 ]; then
  echo "note: $skipped test(s) printed SKIPPED"
fi
printf '\nall: %s passed, %s failed\n' "$((rust_passed + fuzz_passed + slurm_passed + browser_passed))" "$((rust_failed + browser_failed))"
printf 'took %dm%02ds\n' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60))
if [ "$browser_failed" -gt 0 ]; then
  echo "error: $browser_failed browser test(s) failed"
  exit 1
fi
