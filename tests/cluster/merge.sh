#!/usr/bin/env bash
# Joins the N shards' outputs in DIR (written by shard.sh) into DIR/sweep.csv (or .json):
# merge.sh N DIR. Fails, naming them, when shards are missing or belong to another sweep.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 N DIR" >&2
  exit 2
fi
n=$1 dir=$2
shopt -s nullglob
files=("$dir"/shard-*-of-"$n".csv)
ext=csv
if [ ${#files[@]} -eq 0 ]; then
  files=("$dir"/shard-*-of-"$n".json)
  ext=json
fi
if [ ${#files[@]} -ne "$n" ]; then
  echo "error: $dir holds ${#files[@]} of the $n shards' outputs; orrery sweep merge names the missing cells:" >&2
fi
if [ ${#files[@]} -eq 0 ]; then
  exit 1
fi
"${ORRERY:-orrery}" sweep merge "${files[@]}" --out "$dir/sweep.$ext"
