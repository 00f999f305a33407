#!/usr/bin/env bash
# tests/slurm/slurm_test.sh CLUSTER_DIR CASE BUILD_DIR: one Slurm test against the cluster
# tests/slurm/slurm-up.sh started in CLUSTER_DIR (ctest fixture slurm). Exit 77 (skipped) with
# the reason slurm-up.sh recorded when the cluster is not up. Every srun/salloc/sbatch runs under
# `timeout`, with -I (immediate: fail, not queue, when the node is busy) where Slurm has it.
#   srun-world     collbench-run's srun line (launcher/slurm.sh, masks from collbench-topo for 2
#                  fake GPUs) starts tests/slurm/slurm_cases world MASKS in an salloc: ranks,
#                  nodes and local ranks as Slurm numbers them, each task bound to its mask
#   sbatch-world   the same from a batch script written by cb_slurm_write_sbatch, sbatch --wait
#   run-srun       launcher/collbench-run in an allocation, 2 (stand-in) GPUs: says it launches
#                  with srun --mpi=pmix, command.txt holds the srun line, and collbench's own
#                  rank start runs under srun on both ranks (it stops at "no CUDA GPU", exit 5)
#   run-sbatch     collbench-run --sbatch FILE --nodes 1 --partition debug --time 10 writes a
#                  script that sbatch accepts as it is (#SBATCH --gpus-per-node=2 on the test
#                  node's 2 count-only GPUs), submitted from another folder than it was written
#                  in (its paths are absolute); the job says where its results go and runs
#                  collbench-run inside the allocation, which launches with srun
#   run-few-tasks  collbench-run --gpus 2 in an allocation of one task (salloc -n1): refused
#                  before any results folder (exit 2, naming SLURM_NTASKS), srun never started
set -u
S=$1 case=$2 build=$3
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
if [ ! -e "$S/up" ]; then
  echo "SKIP: no Slurm cluster: $(cat "$S/skip-reason" 2> /dev/null || echo "tests/slurm/slurm-up.sh did not run")"
  exit 77
fi
export SLURM_CONF=$S/slurm.conf
cases=$build/tests/slurm/slurm_cases
topo=$build/topologies/collbench-topo
work=$(mktemp -d "${TMPDIR:-/tmp}/cb-slurm-test.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect() { grep -qF -- "$2" "$1" || { echo "--- $1:"; cat "$1"; fail "'$2' not in $1"; }; }
# a fake nvidia-smi listing 2 GPUs, for collbench-run's GPU count (collbench itself finds none)
mkdir -p "$work/bin"
printf '#!/bin/sh\n[ "$1" = -L ] && { echo "GPU 0: Stand-in (UUID: a)"; echo "GPU 1: Stand-in (UUID: b)"; }\nexit 0\n' > "$work/bin/nvidia-smi"
chmod +x "$work/bin/nvidia-smi"

case "$case" in
  srun-world)
    masks=$("$topo" --fake-gpus 2 --cpu-masks) || fail "collbench-topo --fake-gpus 2 --cpu-masks"
    timeout 120 salloc -I30 -n2 bash -c '
      . "$1/launcher/newfile.sh"
      . "$1/launcher/slurm.sh"
      cb_slurm_choose_launcher
      [ "$cb_launcher" = srun ] || { echo "launcher: $cb_launcher"; exit 1; }
      cb_slurm_srun_cmd 1 2 "$2"
      echo "launch: ${cb_srun[*]}"
      timeout 60 "${cb_srun[@]}" "$3" world "$2"' _ "$repo" "$masks" "$cases" > "$work/out" 2>&1
    rc=$?
    cat "$work/out"
    [ "$rc" = 0 ] || fail "salloc/srun exit $rc"
    expect "$work/out" "launching with srun --mpi=pmix"
    expect "$work/out" "--cpu-bind=mask_cpu:$masks"
    expect "$work/out" "PASS world (2 ranks)" ;;
  sbatch-world)
    masks=$("$topo" --fake-gpus 2 --cpu-masks) || fail "collbench-topo --fake-gpus 2 --cpu-masks"
    cat > "$work/step.sh" <<STEP
. "$repo/launcher/slurm.sh"
cb_slurm_choose_launcher
cb_slurm_srun_cmd "\$(cb_slurm_nnodes)" 2 "$masks"
timeout 60 "\${cb_srun[@]}" "$cases" world "$masks"
STEP
    . "$repo/launcher/newfile.sh"
    . "$repo/launcher/slurm.sh"
    cb_slurm_write_sbatch "$work/job.sh" 1 2 "$masks" bash "$work/step.sh" || fail "cb_slurm_write_sbatch"
    expect "$work/job.sh" "#SBATCH --nodes=1"
    expect "$work/job.sh" "#SBATCH --ntasks-per-node=2"
    (cd "$work" && timeout 120 sbatch --wait "$work/job.sh") > "$work/submit" 2>&1
    rc=$?
    cat "$work/submit" "$work"/collbench-*.out
    [ "$rc" = 0 ] || fail "sbatch --wait exit $rc"
    expect "$(ls "$work"/collbench-*.out)" "PASS world (2 ranks)" ;;
  run-srun)
    PATH=$work/bin:$PATH timeout 300 salloc -I30 -n2 "$repo/launcher/collbench-run" --build "$build" --no-plots \
      --out "$work/runs" -- allreduce -b 8 -e 8 -n 2 -w 1 > "$work/out" 2>&1
    rc=$?
    cat "$work/out"
    [ "$rc" = 5 ] || fail "collbench-run in salloc: exit $rc, expected 5 (no GPU for collbench itself)"
    expect "$work/out" "launching with srun --mpi=pmix"
    expect "$work/out" "collbench: error [rank 0 host"
    expect "$work/out" "collbench: error [rank 1 host"
    cmd=$(cat "$work"/runs/*/command.txt)
    case "$cmd" in srun\ --mpi=pmix\ --nodes=1\ --ntasks=2\ --ntasks-per-node=2\ *) ;; *) fail "command.txt: $cmd" ;; esac
    expect "$(ls "$work"/runs/*/placement.txt)" "Slurm job" ;;
  run-sbatch)
    mkdir -p "$work/write" "$work/submit-here"
    (cd "$work/write" && PATH=$work/bin:$PATH "$repo/launcher/collbench-run" --build "$build" --no-plots --gpus 2 \
      --out runs --sbatch job.sh --nodes 1 --partition debug --time 10 -- allreduce -b 8 -e 8 -n 2 -w 1) \
      > "$work/write.out" 2>&1 || { cat "$work/write.out"; fail "collbench-run --sbatch exit $?"; }
    job=$work/write/job.sh
    cat "$work/write.out" "$job"
    for line in "#SBATCH --nodes=1" "#SBATCH --ntasks-per-node=2" "#SBATCH --gpus-per-node=2" "#SBATCH --exclusive" \
                "#SBATCH --partition=debug" "#SBATCH --time=10" "results go to"; do
      expect "$job" "$line"
    done
    expect "$job" "collbench-run --build $build --out $work/write/runs --gpus 2 --no-plots -- allreduce"
    grep -v '^#' "$job" | grep -q -- "--sbatch\|--nodes\|--partition" && fail "--sbatch/--nodes/--partition left in the command"
    (cd "$work/submit-here" && PATH=$work/bin:$PATH timeout 300 sbatch --wait "$job") > "$work/submit" 2>&1
    rc=$?
    out=$(ls "$work"/submit-here/collbench-*.out 2> /dev/null)
    cat "$work/submit" $out
    [ -n "$out" ] || fail "sbatch wrote no job output (exit $rc)"
    [ "$rc" = 5 ] || fail "sbatch --wait: exit $rc, expected collbench-run's 5 (no GPU for collbench itself)"
    expect "$out" "results go to $work/write/runs"
    expect "$out" "launching with srun --mpi=pmix"
    expect "$out" "collbench: error [rank 1 host"
    cmd=$(cat "$work"/write/runs/*/command.txt)
    case "$cmd" in srun\ --mpi=pmix\ --nodes=1\ *) ;; *) fail "command.txt: $cmd" ;; esac ;;
  run-few-tasks)
    PATH=$work/bin:$PATH timeout 120 salloc -I30 -n1 "$repo/launcher/collbench-run" --build "$build" --no-plots \
      --gpus 2 --out "$work/runs" -- allreduce -b 8 -e 8 > "$work/out" 2>&1
    rc=$?
    cat "$work/out"
    [ "$rc" = 2 ] || fail "collbench-run --gpus 2 in salloc -n1: exit $rc, expected 2 before anything ran"
    expect "$work/out" "holds 1 task(s) (SLURM_NTASKS) but the run needs 2"
    [ ! -e "$work/runs" ] || [ -z "$(ls -A "$work/runs")" ] || fail "a results folder was made: $(ls "$work/runs")" ;;
  *) fail "unknown case '$case'" ;;
esac
echo "PASS $case"
