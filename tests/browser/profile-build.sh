#!/usr/bin/env bash
# Builds the page into a folder (default /tmp/dist-prof) whose module keeps its function
# names, for tests/browser/profile.mjs: trunk's release build, then its module bound and
# optimised again the same way (wasm-bindgen, wasm-opt -O3) but with the name section kept,
# which the page's own build drops.
set -euo pipefail
cd "$(dirname "$0")/../.."
source www/tools.sh
out="${1:-/tmp/dist-prof}"
trunk build --release --dist "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
wasm-bindgen --target web --no-typescript --keep-debug --out-dir "$tmp" --out-name orrery-page \
  "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/web/orrery-page.wasm"
wasm-opt -O3 -g "${WASM_OPT_FEATURES[@]}" "${WASM_OPT_PAGE[@]}" \
  "$tmp/orrery-page_bg.wasm" -o "$out/orrery-page_bg.wasm"
cp "$tmp/orrery-page.js" "$out/orrery-page.js"
# The module and its glue are new: their integrity hashes in the page no longer hold.
sed -i 's/ integrity="[^"]*"//g' "$out/index.html"
echo "profile-build: $out (function names kept)"
