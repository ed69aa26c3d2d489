#!/usr/bin/env bash
# Installs, idempotently, what building and testing the web page needs, and puts it on PATH:
# the wasm32 target, trunk 0.21.14, the wasm-bindgen CLI of the version in Cargo.lock,
# wasm-opt (binaryen 132 from npm) and playwright-core (npm) in .tools/, and Debian's
# chromium and chromium-driver. Source it: `source www/tools.sh`.
set -euo pipefail
ORRERY_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ORRERY_ROOT/.tools"
mkdir -p "$TOOLS"

say() { printf 'tools: %s\n' "$*" >&2; }

command -v cargo >/dev/null || { echo "error: cargo is not installed (https://rustup.rs)" >&2; exit 1; }
if command -v rustup >/dev/null; then
  rustup target list --installed | grep -q '^wasm32-unknown-unknown$' || { say "adding the wasm32 target"; rustup target add wasm32-unknown-unknown; }
fi

if ! trunk --version 2>/dev/null | grep -q '0\.21\.14'; then
  say "installing trunk 0.21.14 (about 11 minutes on 2 cores)"
  cargo install trunk --version 0.21.14 --locked
fi

WBG_VERSION=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/version = |"/, ""); print; exit}' "$ORRERY_ROOT/Cargo.lock")
if [ -z "$WBG_VERSION" ]; then
  echo "error: wasm-bindgen is missing from Cargo.lock" >&2
  exit 1
fi
if ! wasm-bindgen --version 2>/dev/null | grep -q " $WBG_VERSION"; then
  say "installing wasm-bindgen-cli $WBG_VERSION"
  cargo install wasm-bindgen-cli --version "$WBG_VERSION"
fi

if [ ! -x "$TOOLS/node_modules/binaryen/bin/wasm-opt" ] || [ ! -d "$TOOLS/node_modules/playwright-core" ]; then
  command -v npm >/dev/null || { echo "error: npm is needed for wasm-opt and playwright-core" >&2; exit 1; }
  say "installing binaryen@132 and playwright-core into .tools"
  npm install --prefix "$TOOLS" --no-audit --no-fund binaryen@132 playwright-core >&2
fi
export PATH="$TOOLS/node_modules/binaryen/bin:$HOME/.cargo/bin:$PATH"
# The WebAssembly features the page's module uses, for scripts that run wasm-opt themselves
# (tests/browser/profile-build.sh, tests/browser/compute.sh); SIMD from .cargo/config.toml.
WASM_OPT_FEATURES=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue --enable-simd)
# The page's other wasm-opt parameters (index.html's data-wasm-opt-params): a function with
# one caller is inlined only when small, so that V8 compiles the hot round and LP functions
# apart (its optimising compiler's time grows faster than a function's size).
WASM_OPT_PAGE=(-ocimfs 200)

if [ -z "${ORRERY_NO_BROWSER:-}" ] && { ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; }; then
  say "installing Debian's chromium and chromium-driver"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi
export ORRERY_TOOLS="$TOOLS"
