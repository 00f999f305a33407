#!/usr/bin/env bash
# tests/slurm/slurm-up.sh DIR: starts a private one-node Slurm cluster (munged, slurmctld, slurmd)
# for the Slurm tests, all of its files under DIR, and waits until the node is idle.
#   exit 0   the cluster is up: DIR/slurm.conf (export SLURM_CONF=DIR/slurm.conf), DIR/up
#   exit 77  it cannot start here (not root, Slurm or munge not installed, a daemon that does not
#            come up); DIR/skip-reason holds the one line that says why, and the tests that need
#            the cluster skip with it
# Ports are free ones picked now (not Slurm's fixed 6817/6818), so two clusters on one machine do
# not clash. The node has 2 stand-in GPUs (gres.conf) for #SBATCH --gpus-per-node. TaskPlugin=task/affinity makes srun --cpu-bind=mask_cpu really bind the tasks.
# tests/slurm/slurm-down.sh DIR stops everything this started; it runs first here too, so a
# cluster left over from a killed run is stopped before a new one starts.
set -u
[ $# = 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
S=$1
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$S" || { echo "slurm-up: cannot create $S" >&2; exit 2; }
S=$(cd "$S" && pwd)
rm -f "$S/up" "$S/skip-reason"

skip() {
  echo "$1" > "$S/skip-reason"
  echo "slurm-up: SKIP: $1"
  "$here/slurm-down.sh" "$S" > /dev/null 2>&1
  exit 77
}

[ "$(id -u)" = 0 ] || skip "not root: slurmd and munged run as root here (run tests/run as root)"
for c in munged slurmctld slurmd srun sbatch sinfo scontrol python3; do
  command -v "$c" > /dev/null || skip "$c not found: install slurm-wlm and munge (tests/run does as root)"
done
"$here/slurm-down.sh" "$S" > /dev/null 2>&1
rm -rf "$S"/{munge,msock,state,spool,log} # a fresh cluster: no node state left from an earlier one

mkdir -p "$S"/{munge,msock,state,spool,log} && chmod 700 "$S/munge" || skip "cannot create the folders under $S"
head -c 128 /dev/urandom > "$S/munge/munge.key" && chmod 400 "$S/munge/munge.key" || skip "cannot write the munge key"

# two free TCP ports on 127.0.0.1 (bound and released; the daemons take them a moment later)
read -r ctld_port d_port < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])') || skip "cannot find two free TCP ports"
host=$(hostname)
cpus=$(nproc)
cat > "$S/slurm.conf" <<CONF
ClusterName=cbtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/msock/munge.sock
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
ReturnToService=2
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
# two stand-in GPUs (/dev/null and /dev/zero as their device files): sbatch --gpus-per-node=2 is
# accepted; Slurm sets CUDA_VISIBLE_DEVICES for them, which no CUDA program here can use anyway
printf 'NodeName=%s Name=gpu File=/dev/null\nNodeName=%s Name=gpu File=/dev/zero\n' "$host" "$host" > "$S/gres.conf"
export SLURM_CONF=$S/slurm.conf

last_log() { tail -n 1 "$S/log/$1.log" 2> /dev/null | cut -c1-200; }
munged -f --key-file="$S/munge/munge.key" --socket="$S/msock/munge.sock" --pid-file="$S/munge/munged.pid" \
  --log-file="$S/log/munged.log" --seed-file="$S/munge/seed" > "$S/log/munged.out" 2>&1 ||
  skip "munged did not start: $(last_log munged)"
slurmctld -i > "$S/log/slurmctld.out" 2>&1 || skip "slurmctld did not start: $(last_log slurmctld)"
slurmd > "$S/log/slurmd.out" 2>&1 || skip "slurmd did not start: $(last_log slurmd)"

for _ in $(seq 1 100); do
  state=$(timeout 5 sinfo -h -N -o %t 2> /dev/null | head -n 1)
  if [ "$state" = idle ]; then
    touch "$S/up"
    echo "slurm-up: one-node cluster up in $S (node $host, $cpus CPUs, ports $ctld_port/$d_port)"
    exit 0
  fi
  sleep 0.2
done
skip "the node did not become idle within 20 s (sinfo: '${state:-no answer}'; slurmd: $(last_log slurmd))"
