#!/usr/bin/env bash
# Builds the simulator alone (src/compute.rs) as the page builds its module: the `web`
# profile with the wasm32 flags of .cargo/config.toml, bound by wasm-bindgen and optimised
# by wasm-opt -O3, into a folder (default /tmp/compute) for tests/browser/compute.mjs.
# ORRERY_COMPUTE_NAMES=1 keeps the function names, for `node --cpu-prof` profiles.
set -euo pipefail
cd "$(dirname "$0")/../.."
ORRERY_NO_BROWSER=1 source www/tools.sh
out="${1:-/tmp/compute}"
cargo build --quiet --bin orrery-compute --target wasm32-unknown-unknown --profile web
mkdir -p "$out"
names=()
if [ -n "${ORRERY_COMPUTE_NAMES:-}" ]; then names=(-g); fi
wasm-bindgen --target web --no-typescript ${names:+--keep-debug} --out-dir "$out" --out-name compute \
  "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/web/orrery-compute.wasm"
wasm-opt -O3 "${names[@]}" "${WASM_OPT_FEATURES[@]}" "${WASM_OPT_PAGE[@]}" \
  "$out/compute_bg.wasm" -o "$out/compute_bg.wasm"
echo "compute: $out ($(gzip -9 -c "$out/compute_bg.wasm" | wc -c) bytes gzip'd)"
