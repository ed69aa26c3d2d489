#!/usr/bin/env bash
# Runs tests/cluster/slurm-sweep.sh on a real Slurm: starts munged, slurmctld and slurmd for
# this one host in a temporary directory (their own key, sockets, ports, state and logs;
# nothing of the system's configuration is used or changed), submits a 12-cell sweep as a
# job array of 3 shards with its merge, waits, compares the merged CSV with the sweep run
# whole byte for byte, and stops the daemons. Any failure (Slurm missing, a daemon that does
# not start, a node that does not come up, a job that fails) ends it with the reason and the
# daemons' logs; nothing is skipped.
#
#   tests/cluster/slurm_test.sh            (ORRERY: the binary, default target/release/orrery)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
start=$SECONDS
bin=${ORRERY:-$root/target/release/orrery}
work=
fail() {
  echo "slurm test: FAILED: $*" >&2
  if [ -n "$work" ]; then
    for f in "$work"/log/*.log "$work"/out/slurm-*.out; do
      [ -f "$f" ] && { echo "--- $f (last lines)" >&2; tail -n 15 "$f" >&2; }
    done
  fi
  exit 1
}
for c in munged munge slurmctld slurmd sbatch squeue sinfo scontrol; do
  command -v "$c" >/dev/null || fail "'$c' is not installed (Debian: apt-get install slurm-wlm munge)"
done
[ -x "$bin" ] || fail "no orrery binary at $bin (cargo build --release)"

work=$(mktemp -d /tmp/orrery-slurm.XXXXXX)
chmod 755 "$work"
mkdir -p "$work"/{munge,state,spool,log,out}
chmod 700 "$work/munge"
pids=()
cleanup() {
  set +e
  if [ -f "$work/slurm.conf" ]; then
    SLURM_CONF=$work/slurm.conf timeout 10 scontrol shutdown >/dev/null 2>&1
  fi
  for p in "${pids[@]}"; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
    kill "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  if [ -S "$work/munge/munge.sock" ]; then munged -s --socket="$work/munge/munge.sock" >/dev/null 2>&1; fi
  rm -rf "$work"
}
trap cleanup EXIT

# munge: a fresh key and a private socket.
head -c 1024 /dev/urandom >"$work/munge/munge.key"
chmod 400 "$work/munge/munge.key"
munged -f --socket="$work/munge/munge.sock" --key-file="$work/munge/munge.key" \
  --log-file="$work/log/munged.log" --pid-file="$work/munge/munged.pid" \
  --seed-file="$work/munge/munged.seed" || fail "munged did not start"
pids+=("$(cat "$work/munge/munged.pid")")
munge -n --socket="$work/munge/munge.sock" | unmunge --socket="$work/munge/munge.sock" >/dev/null ||
  fail "munge cannot encode and decode a credential"

# Two free TCP ports.
free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
  done
  fail "no free TCP port"
}
ctld_port=$(free_port)
slurmd_port=$(free_port)
[ "$ctld_port" != "$slurmd_port" ] || slurmd_port=$((ctld_port + 1))

host=$(hostname -s)
user=$(id -un)
cpus=$(nproc)
# No cgroups, no accounting: process tracking by the process tree, no task binding.
cat >"$work/slurm.conf" <<CONF
ClusterName=orrerytest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.sock
CryptoType=crypto/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=orrerytest Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf

slurmctld -D -i -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
state=
for _ in $(seq 1 60); do
  state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  for p in "${pids[@]:1}"; do
    kill -0 "$p" 2>/dev/null || { cat "$work"/log/*.out >&2; fail "a Slurm daemon exited (see its log)"; }
  done
  sleep 0.5
done
[ "$state" = idle ] || fail "node $host is '${state:-unknown}', not idle, 30 s after the daemons started"

# The sweep: 3 policies x 2 loads x 2 seeds = 12 cells, whole here and as 3 shards on Slurm.
args=(--policy las --policy fifo --policy srtf --num-jobs 12 --rates 4 --loads 1,2
  --seeds 0..2 --cluster v100:4,p100:4,k80:4)
"$bin" sweep "${args[@]}" >"$work/whole.csv" || fail "the whole sweep failed"
ids=$(ORRERY=$bin tests/cluster/slurm-sweep.sh 3 "$work/out" "${args[@]}") || fail "sbatch failed"
array=$(awk '{print $2}' <<<"$ids")
merge=$(awk '{print $4}' <<<"$ids")
echo "submitted: array job $array (3 shards), merge job $merge"
for _ in $(seq 1 120); do
  [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
  sleep 0.5
done
[ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] || fail "jobs still queued or running after 60 s: $(squeue -h)"
for k in 1 2 3; do
  s=$(scontrol -o show job "${array}_$k" | grep -o 'JobState=[A-Z_]*' || true)
  [ "$s" = JobState=COMPLETED ] || fail "array task $k: ${s:-no record}"
done
s=$(scontrol -o show job "$merge" | grep -o 'JobState=[A-Z_]*' || true)
[ "$s" = JobState=COMPLETED ] || fail "merge job: ${s:-no record}"
[ -f "$work/out/sweep.csv" ] || fail "the merge wrote no sweep.csv"
cmp "$work/whole.csv" "$work/out/sweep.csv" || fail "the merged CSV differs from the whole sweep"
rows=$(($(wc -l <"$work/out/sweep.csv") - 2))
echo "slurm test: OK: 3 array tasks and the merge COMPLETED; merged CSV ($rows cells) == whole sweep, byte for byte ($((SECONDS - start)) s)"
