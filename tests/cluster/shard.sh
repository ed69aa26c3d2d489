#!/usr/bin/env bash
# Runs shard K of N of an `orrery sweep` into DIR: shard.sh K N DIR [sweep flags...]
#
# Writes DIR/shard-K-of-N.csv (or .json with --format json) through a temporary file, so a
# shard's file exists only once the shard has finished. ORRERY names the binary (default:
# `orrery` on the PATH); RAYON_NUM_THREADS, if set, caps its threads.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 K N DIR [orrery sweep flags...]" >&2
  exit 2
fi
k=$1 n=$2 dir=$3
shift 3
ext=csv
prev=
for a in "$@"; do
  if [ "$a" = "--format=json" ] || { [ "$prev" = "--format" ] && [ "$a" = json ]; }; then ext=json; fi
  prev=$a
done
mkdir -p "$dir"
out="$dir/shard-$k-of-$n.$ext"
tmp="$out.partial.$$"
trap 'rm -f "$tmp"' EXIT
"${ORRERY:-orrery}" sweep "$@" --shard "$k/$n" --out "$tmp"
mv -f "$tmp" "$out"
