#!/usr/bin/env bash
# Runs every check and test of Orrery: formatting, clippy on both targets, the wasm32 build
# of the core, and the whole test suite (unit, integration, fidelity against Gavel's
# simulator when ../shared/reference is present). Installs what is missing, idempotently.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "toolchain"
if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo is not installed (https://rustup.rs)" >&2
  exit 1
fi
if command -v rustup >/dev/null 2>&1; then
  installed_components=$(rustup component list --installed 2>/dev/null || true)
  for c in rustfmt clippy; do
    grep -q "^$c" <<<"$installed_components" || rustup component add "$c"
  done
  rustup target list --installed | grep -q '^wasm32-unknown-unknown$' || rustup target add wasm32-unknown-unknown
fi
cargo --version

step "cargo fmt --check"
cargo fmt --all -- --check

step "clippy (native, all targets)"
cargo clippy --all-targets -- -D warnings

step "clippy (wasm32 library)"
cargo clippy --lib --target wasm32-unknown-unknown -- -D warnings

step "tests (release)"
if [ ! -d ../shared/reference ]; then
  echo "note: ../shared/reference is absent: the fidelity tests will print SKIPPED"
fi
cargo test --release --all-targets -- --show-output 2>&1 | tee target/test-output.txt
passed=$(grep -Eo '[0-9]+ passed' target/test-output.txt | awk '{s+=$1} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed' target/test-output.txt | awk '{s+=$1} END {print s+0}')
skipped=$(grep -c '^SKIPPED' target/test-output.txt || true)
printf '\nall: %s passed, %s failed\n' "$passed" "$failed"
if [ "$skipped" -gt 0 ]; then
  echo "note: $skipped test(s) printed SKIPPED"
fi
