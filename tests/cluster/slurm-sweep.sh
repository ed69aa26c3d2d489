#!/usr/bin/env bash
# Submits an `orrery sweep` to Slurm: a job array of N shards, then its merge once every
# shard has succeeded.
#
#   tests/cluster/slurm-sweep.sh N DIR [orrery sweep flags...]
#
# DIR (on a file system every node sees) receives shard-K-of-N.csv, the tasks' logs and, at
# the end, sweep.csv: byte for byte what `orrery sweep [flags]` alone writes. ORRERY names
# the binary (default: `orrery` on the PATH); SBATCH_FLAGS adds sbatch options to both jobs
# (e.g. "--partition=cpu --time=02:00:00"); CPUS sets each shard's CPUs (default 1). Prints
# the array's and the merge's job ids. Relative paths in the flags are read from the
# directory this is run in.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 N DIR [orrery sweep flags...]" >&2
  exit 2
fi
n=$1 dir=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
bin=${ORRERY:-orrery}
if [[ "$bin" == */* ]]; then
  bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
else
  bin=$(command -v "$bin") || { echo "error: no '$bin' on the PATH (set ORRERY)" >&2; exit 2; }
fi
export ORRERY=$bin ORRERY_CLUSTER_DIR=$here
# shellcheck disable=SC2086
array=$(sbatch --parsable --export=ALL ${SBATCH_FLAGS:-} --array="1-$n" --cpus-per-task="${CPUS:-1}" \
  --chdir="$PWD" --output="$dir/slurm-%A_%a.out" "$here/slurm-shard.sbatch" "$dir" "$@")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable --export=ALL ${SBATCH_FLAGS:-} --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --chdir="$PWD" --output="$dir/slurm-merge-%j.out" "$here/slurm-merge.sbatch" "$n" "$dir")
merge=${merge%%;*}
echo "array $array merge $merge"
