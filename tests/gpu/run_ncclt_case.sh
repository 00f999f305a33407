#!/usr/bin/env bash
# One GPU test of the nccl-tests drop-in (build/nccl-tests/*_perf): runs the binary the way a
# cluster script runs nccl-tests, then holds its stdout to real nccl-tests output
# (tests/cpu/check_ncclt_format.py --output) and its --csv rows to collbench's checks
# (tests/lib/check_csv.py: every row checked, 0 wrong). Exits 77 (CTest "skipped") without a GPU,
# and when the binary's family is not in this build (it says so in one line, exit 2).
#   run_ncclt_case.sh NAME BINARY g1|np2|gate CHECK_CSV_ARGS -- nccl-tests args...
# g1:   BINARY -g 1 ARGS, no mpirun (one process, one GPU, as `all_reduce_perf -g 1`);
# np2:  mpirun -np 2 BINARY -g 1 ARGS: a GPU each with 2 GPUs; with one GPU both ranks share it as
#       one virtual node (CB_SHARE_GPUS=1, launcher/collbench-vnode; the MPS daemon if running);
# gate: NCCL_TESTS_MIN_BW far above any GPU: exit 7 and "# Avg bus bandwidth : X FAILED".
# timeout: as np2 with CB_FAULT=stall:1:round and -T 5 among the arguments: rank 1 stops in its
#       first timed round, rank 0's watchdog ends the job: exit 4 (nccl-tests' testTimeout) and
#       "HOST: Test timeout (5s) FILE:LINE" with its trace line on stdout, as nccl-tests prints.
# wrong1, wrong2: as g1 and np2 with CB_FAULT=wrong:LAST:check (base/fault.h: the last rank's
#       first check counts one wrong element): nccl-tests' wrong-result output, exit 7, the
#       footer "# Out of bounds values : 1 FAILED", one "#wrong" of 1, and each rank's trace
#       line " .. HOST pid PID: Test failure FILE:LINE" after the table.
set -u
name=$1 binary=$2 mode=$3 check_args=$4
shift 4
[ "${1:-}" = "--" ] && shift
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
if ! ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); then ngpu=0; fi
if [ "$ngpu" -lt 1 ]; then
  echo "no GPU on this machine: skipping $name"
  exit 77
fi
probe=$("$binary" -h 2>&1 >/dev/null)
if [ $? -eq 2 ] && [[ "$probe" == *"family is not in this build"* ]]; then
  echo "$probe: skipping $name"
  exit 77
fi
out=${CB_TEST_OUT:-$PWD}/gpu-$name
mkdir -p "$(dirname "$out")"
rm -f "$out.csv"
ranks=1 shared=()
case "$mode" in
  g1 | gate | wrong1)
    [ "$mode" = gate ] && export NCCL_TESTS_MIN_BW=1000000
    [ "$mode" = wrong1 ] && export CB_FAULT=wrong:0:check
    echo "+ $binary -g 1 $* --csv $out.csv"
    "$binary" -g 1 "$@" --csv "$out.csv" > "$out.log" 2> "$out.err"
    rc=$? ;;
  np2 | wrong2 | timeout)
    ranks=2
    [ "$mode" = wrong2 ] && export CB_FAULT=wrong:1:check
    [ "$mode" = timeout ] && export CB_FAULT=stall:1:round
    flags=(-np 2 --bind-to none)
    [ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
    launch=()
    if [ "$ngpu" -lt 2 ]; then
      export CB_SHARE_GPUS=1
      launch=("$root/launcher/collbench-vnode" 2)
      shared=(--shared)
    fi
    echo "+ mpirun ${flags[*]} ${launch[*]} $binary -g 1 $* --csv $out.csv"
    mpirun "${flags[@]}" "${launch[@]}" "$binary" -g 1 "$@" --csv "$out.csv" > "$out.log" 2> "$out.err"
    rc=$? ;;
  *) echo "run_ncclt_case.sh: mode '$mode' (accepted: g1, np2, gate, wrong1, wrong2, timeout)" >&2; exit 2 ;;
esac
tail -n 40 "$out.log"
tail -n 10 "$out.err"
if [ "$mode" = gate ]; then
  if [ $rc -ne 7 ] || ! grep -Eq '^# Avg bus bandwidth    : [^ ]+ FAILED$' "$out.log"; then
    echo "FAIL $name: expected exit 7 and a FAILED average (NCCL_TESTS_MIN_BW=$NCCL_TESTS_MIN_BW); got exit $rc"
    exit 1
  fi
elif [ "$mode" = timeout ]; then
  if [ $rc -ne 4 ] || ! grep -Eq '^[^ ]+: Test timeout \(5s\) watchdog\.c:[0-9]+$' "$out.log" ||
    ! grep -Eq '^ \.\. [^ ]+ pid [0-9]+: Test failure watchdog\.c:[0-9]+$' "$out.log"; then
    echo "FAIL $name: expected exit 4 and nccl-tests' 'HOST: Test timeout (5s) watchdog.c:LINE' with its trace" \
      "line on stdout; got exit $rc"
    exit 1
  fi
  echo "PASS $name (exit 4, nccl-tests' timeout lines)"
  exit 0
elif [ "$mode" = wrong1 ] || [ "$mode" = wrong2 ]; then
  traces=$(grep -Ec '^ \.\. [^ ]+ pid [0-9]+: Test failure [A-Za-z0-9_.]+:[0-9]+$' "$out.log")
  ones=$(grep -Ec '^ +[0-9]+ +[0-9]+ +[a-z0-9]+ +[a-z]* +-?[0-9]+ +[^ ]+ +[^ ]+ +[^ ]+ +1 ' "$out.log")
  if [ $rc -ne 7 ] || ! grep -q '^# Out of bounds values : 1 FAILED$' "$out.log" || [ "$traces" -ne "$ranks" ] ||
    [ "$ones" -ne 1 ]; then
    echo "FAIL $name: expected exit 7, '# Out of bounds values : 1 FAILED', one out-of-place #wrong of 1 and $ranks" \
      "trace lines; got exit $rc, $ones such rows, $traces trace lines"
    exit 1
  fi
  echo "PASS $name (exit 7, nccl-tests' wrong-result output)"
  exit 0
elif [ $rc -ne 0 ]; then
  echo "FAIL $name: $binary exited $rc (log: $out.log, $out.err)"
  exit 1
fi
# -J FILE among the arguments: with -I 1 the table's per-iteration columns are checked against it
nt_json=() prev=
for arg in "$@"; do
  [ "$prev" = -J ] && nt_json=("$arg")
  prev=$arg
done
python3 "$root/tests/cpu/check_ncclt_format.py" --output "$out.log" "$(basename "$binary")" "$root" \
  ${nt_json[@]+"${nt_json[@]}"} || exit 1
# shellcheck disable=SC2086
python3 "$root/tests/lib/check_csv.py" "$out.csv" --ranks "$ranks" ${shared[@]+"${shared[@]}"} $check_args
