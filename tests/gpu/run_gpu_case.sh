#!/usr/bin/env bash
# One GPU test case: runs `mpirun -np NP collbench ARGS --csv OUT.csv` on every local GPU (at most
# 8), then asserts on the CSV with tests/lib/check_csv.py. Exits 77 (CTest "skipped") when this
# machine has no GPU.
#   run_gpu_case.sh NAME COLLBENCH "CHECK_ARGS" [--wrap "compute-sanitizer ..."] [--vnodes N:K] [--min-gpus N]
#                   -- collbench args...
# --vnodes N:K runs a virtual cluster instead: N nodes of K ranks on GPUs 0..K-1
# (launcher/collbench-vnode); skipped (77) with fewer than K GPUs.
# --min-gpus N: skipped (77) with fewer than N GPUs (a test whose point needs N ranks).
# With one GPU the run has one rank: check_csv gets --ranks 1 (an algorithm that needs 2 ranks
# may say so instead of running).
# CB_SHARE_GPUS=1 in the environment (a one-GPU machine under the CUDA MPS daemon,
# tools/device/gpu-suite.sh shared): what would be skipped for want of GPUs runs with ranks
# sharing them instead (launcher/collbench-vnode), and a plain test on one GPU runs 2 ranks as
# one virtual node on it (max of CB_TEST_RANKS, default 2, and --min-gpus), so the custom
# kernels' cross-rank paths run;
# check_csv gets --shared (rows that cannot run on a shared GPU may say so).
# --usage REGEX expects a usage error instead (a check that needs the GPU, e.g. an SM cap above
# the device's): exit 2, output matching REGEX, no result row written.
# --rc N expects exit code N instead of 0 (the rows are checked all the same: the bar's 6);
# --log REGEX (repeatable): the output must match each; --after CMD: run CMD (sh -c) afterwards,
# with OUT set to the run's file prefix (OUT.csv, OUT.log), which must succeed.
set -u
name=$1 collbench=$2 check_args=$3
shift 3
wrap="" vnodes="" usage="" min_gpus=1 want_rc=0 after="" logs=()
while [[ "${1:-}" =~ ^--(wrap|vnodes|usage|min-gpus|rc|log|after)$ ]]; do
  [ $# -ge 2 ] || { echo "run_gpu_case.sh: $1 needs a value" >&2; exit 2; }
  case "$1" in
  --wrap) wrap=$2 ;; --vnodes) vnodes=$2 ;; --usage) usage=$2 ;; --min-gpus) min_gpus=$2 ;;
  --rc) want_rc=$2 ;; --log) logs+=("$2") ;; --after) after=$2 ;;
  esac
  shift 2
done
[[ "$want_rc" =~ ^[0-9]{1,3}$ ]] || { echo "run_gpu_case.sh: --rc '${want_rc:0:40}' is not an exit code" >&2; exit 2; }
[[ "$min_gpus" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "run_gpu_case.sh: --min-gpus '${min_gpus:0:40}' is not a number of GPUs (1..9999)" >&2; exit 2; }
# CB_TEST_RANKS (2..8, default 2): how many ranks a plain test runs when they share GPUs
# (CB_SHARE_GPUS=1), so the custom kernels' paths for more ranks than GPUs run too
ranks=${CB_TEST_RANKS:-2}
[[ "$ranks" =~ ^[2-8]$ ]] || { echo "run_gpu_case.sh: CB_TEST_RANKS '${ranks:0:40}' is not 2..8" >&2; exit 2; }
[ "${1:-}" = "--" ] && shift
here=$(cd "$(dirname "$0")" && pwd)
if ! ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); then ngpu=0; fi
if [ "$ngpu" -lt 1 ]; then
  echo "no GPU on this machine: skipping $name"
  exit 77
fi
share=0 # CB_SHARE_GPUS as collbench reads it: a decimal 1, leading zeros allowed
[[ "${CB_SHARE_GPUS:-0}" =~ ^0{0,16}1$ ]] && share=1
if [ "$ngpu" -lt "$min_gpus" ] && [ "$share" != 1 ]; then
  echo "$name needs $min_gpus GPUs ($ngpu here): skipping"
  exit 77
fi
np=$ngpu
[ "$np" -gt 8 ] && np=8
launch=()
if [ "$share" = 1 ] && [ -z "$vnodes" ]; then
  want=$(( ngpu < ranks ? ranks : np ))
  [ "$min_gpus" -gt "$want" ] && want=$min_gpus
  if [ "$want" -gt "$ngpu" ]; then
    np=$want
    launch=("$here/../../launcher/collbench-vnode" "$np")
    echo "CB_SHARE_GPUS=1: $np ranks share this machine's $ngpu GPU(s) as one virtual node"
  else
    unset CB_SHARE_GPUS # a GPU per rank: the plain run (collbench takes the mode only in a virtual cluster)
  fi
fi
if [ -n "$vnodes" ]; then
  k=${vnodes##*:}
  if [ "$ngpu" -lt "$k" ] && [ "$share" != 1 ]; then
    echo "$name needs $k GPUs ($ngpu here): skipping"
    exit 77
  fi
  np=$(( ${vnodes%%:*} * k ))
  launch=("$here/../../launcher/collbench-vnode" "$k")
fi
out=${CB_TEST_OUT:-$PWD}/gpu-$name
mkdir -p "$(dirname "$out")"
flags=(-np "$np" --bind-to none)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
echo "+ mpirun ${flags[*]} ${launch[*]} $wrap $collbench $* --csv $out.csv"
rm -f "$out.csv"
# shellcheck disable=SC2086
mpirun "${flags[@]}" "${launch[@]}" $wrap "$collbench" "$@" --csv "$out.csv" > "$out.log" 2>&1
rc=$?
tail -n 40 "$out.log"
if [ -n "$usage" ]; then
  if [ $rc -ne 2 ] || ! grep -Eq -e "$usage" "$out.log" || [ "$(cat "$out.csv" 2>/dev/null | wc -l)" -gt 1 ]; then
    echo "FAIL $name: expected exit 2 with '$usage' and no rows; got exit $rc (log: $out.log)"
    exit 1
  fi
  echo "PASS $name: usage error as expected"
  exit 0
fi
if [ $rc -ne "$want_rc" ]; then
  echo "FAIL $name: collbench exited $rc, expected $want_rc (log: $out.log)"
  exit 1
fi
for re in ${logs[@]+"${logs[@]}"}; do
  grep -Eq -e "$re" "$out.log" || { echo "FAIL $name: the output does not match '$re' (log: $out.log)"; exit 1; }
done
if [ -n "$after" ] && ! OUT=$out sh -c "$after"; then
  echo "FAIL $name: '$after' failed"
  exit 1
fi
if [ -n "$wrap" ] && grep -q "ERROR SUMMARY: [1-9]" "$out.log"; then
  echo "FAIL $name: sanitizer reported errors"
  exit 1
fi
shared=()
[ "$share" = 1 ] && shared=(--shared) # rows that cannot run while ranks share a GPU may say so
# shellcheck disable=SC2086
python3 "$here/../lib/check_csv.py" "$out.csv" --ranks "$np" ${shared[@]+"${shared[@]}"} $check_args
