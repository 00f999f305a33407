#!/bin/bash
# MPI test (label mpi): a rankfile from collbench-topo, on this machine, really binds each
# rank where the plan says, and cb_placement_bind_planned keeps / makes / skips that binding.
# CI machines have no GPU, so the plan uses --fake-gpus (N GPUs spread over the NUMA nodes).
# usage: topo_mpi_binding.sh COLLBENCH_TOPO TOPO_BINDCHECK WORKDIR NP MPIRUN [MPIRUN FLAGS...]
set -u
tool=$1 check=$2 work=$3 np=$4 mpirun=$5
shift 5
mkdir -p "$work" || exit 1
rf=$work/live.rankfile
host=$(hostname)

"$tool" --fake-gpus "$np" --rankfile "$rf" --hosts "$host" || { echo "rankfile failed"; exit 1; }
echo "--- $rf"; cat "$rf"
plan=$("$tool" --fake-gpus "$np" --json | python3 -c '
import json, sys
ranks = json.load(sys.stdin)
print(";".join(",".join(str(p) for p in r["pus"]) for r in ranks))') || { echo "plan failed"; exit 1; }
echo "--- plan (OS PUs per local rank): $plan"

status=0
run() {
  echo "--- mpirun $* "
  timeout 120 "$mpirun" "$@" || { echo "FAILED: mpirun $*"; status=1; }
}
run "$@" -np "$np" --rankfile "$rf" "$check" kept "$plan"
run "$@" -np "$np" --bind-to none "$check" self "$plan"
run "$@" -np "$np" --bind-to none "$check" nobind "$plan"
exit $status
