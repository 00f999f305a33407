#!/usr/bin/env bash
# One GPU fault test (issue 11): a 2-rank collbench run in which rank 1 is stopped (kill -STOP,
# as a user would see a hung or preempted process) or faulted with CB_FAULT, then asserts that
# the whole job ended by itself within T + 5 s of the fault, with exit 4 (CB_EXIT_TIMEOUT), a
# message on the healthy rank naming the step and rank 1, no crash (no SIGSEGV on either rank),
# and every row finished before the fault intact in the CSV and the .partial.jsonl stream.
# Exits 77 (CTest "skipped") with fewer than 2 GPUs, unless --one-gpu-vnodes is given: then on a
# one-GPU machine the two ranks run as 2 virtual nodes x 1 GPU on GPU 0 (launcher/collbench-vnode:
# NCCL between them over its socket transport), for the cases that need no peer memory; and with
# CB_SHARE_GPUS=1 in the environment every case runs there, the two ranks as one virtual node
# sharing GPU 0 (launcher/collbench-vnode), the custom kernels' peer paths included.
#
#   run_fault_case.sh NAME COLLBENCH T HOW MESSAGE_REGEX [--one-gpu-vnodes] -- collbench args
#   (collbench args without -T/--csv/--json)
#   HOW: sigstop   kill -STOP rank 1 once the first row is in the CSV
#        fault:SPEC  CB_FAULT=SPEC; the fault time is when rank 1 announces it on stderr
# OUT_DIR (default: CB_TEST_OUT or .) receives NAME.log, NAME.csv, NAME.json(.partial.jsonl).
set -u
# calc EXPR: seconds arithmetic and comparisons (awk: bc is not installed everywhere, e.g. the
# GPU machine); a comparison prints 1 or 0.
calc() { awk "BEGIN { v = $1; if (v == int(v) && \"$1\" ~ /[<>=]/) printf \"%d\", v; else printf \"%.1f\", v }"; }
name=$1 collbench=$2 T=$3 how=$4 want=$5
shift 5
one_gpu_vnodes=0
[ "${1:-}" = "--one-gpu-vnodes" ] && { one_gpu_vnodes=1; shift; }
[ "${1:-}" = "--" ] && shift
here=$(cd "$(dirname "$0")" && pwd)
if ! ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); then ngpu=0; fi
launch=()
shared_gpu=0
# mps_clients: the client pids the CUDA MPS servers still hold (empty without MPS). A client an
# earlier fault test killed stays there until its server has cleaned up after it, and until then
# a new client's cudaSetDevice can fail "devices unavailable" (seen on the one-GPU machine).
# The daemon's pipe directory: CUDA_MPS_PIPE_DIRECTORY, else MPS's default; no daemon there: none.
mps_ask() {
  [ -S "${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps}/control" ] || return 0
  echo "$1" | CUDA_MPS_PIPE_DIRECTORY=${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps} timeout 5 nvidia-cuda-mps-control 2>/dev/null |
    grep -E '^[0-9]+$'
}
mps_clients() {
  command -v nvidia-cuda-mps-control > /dev/null || return 0
  local s
  for s in $(mps_ask get_server_list); do
    mps_ask "get_client_list $s"
  done | tr '\n' ' ' | sed 's/ *$//'
}
# wait_gpu_free: up to 60 s until no process but the MPS server computes on the GPU and no MPS
# server holds a client, saying what it waited for.
wait_gpu_free() {
  local i left
  for (( i = 0; i < 60; i++ )); do
    left=$(nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader 2>/dev/null | grep -v 'mps-server' | tr '\n' ' ')
    left="$left$(mps_clients | sed 's/^./MPS clients: &/')"
    [ -z "${left// /}" ] && return 0
    [ "$i" = 0 ] && echo "waiting for earlier processes to leave the GPU: $left"
    sleep 1
  done
  echo "still on the GPU after 60 s (starting anyway): $left"
}
if [ "$ngpu" -eq 1 ] && [[ "${CB_SHARE_GPUS:-0}" =~ ^0{0,16}1$ ]]; then
  launch=("$here/../../launcher/collbench-vnode" 2)
  echo "one GPU, CB_SHARE_GPUS=1: the two ranks share GPU 0 as one virtual node"
  shared_gpu=1
elif [ "$ngpu" -ge 2 ]; then
  unset CB_SHARE_GPUS # a GPU per rank: the plain run (collbench takes the mode only in a virtual cluster)
elif [ "$ngpu" -eq 1 ] && [ $one_gpu_vnodes = 1 ]; then
  launch=("$here/../../launcher/collbench-vnode" 1)
  echo "one GPU: the two ranks run as 2 virtual nodes x 1 GPU on GPU 0"
elif [ "$ngpu" -lt 2 ]; then
  echo "fewer than 2 GPUs on this machine: skipping $name"
  exit 77
fi
dir=${OUT_DIR:-${CB_TEST_OUT:-$PWD}}
mkdir -p "$dir"
out=$dir/$name
flags=(-np 2 --bind-to none)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
env_fault=()
case $how in
  sigstop) ;;
  fault:*) env_fault=(env "CB_FAULT=${how#fault:}") ;;
  *) echo "run_fault_case.sh: HOW must be sigstop or fault:SPEC, not '$how'" >&2; exit 2 ;;
esac
# rank 1's pid: the child of mpirun whose environment says OMPI_COMM_WORLD_RANK=1
rank1_pid() {
  local p
  for p in $(pgrep -P "$mpirun_pid"); do
    if tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then echo "$p"; return; fi
  done
}

# With ranks sharing the GPU under MPS, a start that fails "devices unavailable" before the fault
# (a client an earlier test killed still held by the MPS server) waits for the GPU and runs once more.
for attempt in 1 2; do
  [ "$shared_gpu" = 1 ] && wait_gpu_free
  rm -f "$out.log" "$out.csv" "$out.json" "$out.json.partial.jsonl"
  [ "$attempt" = 1 ] && rm -f "$out.attempt1.log"
  echo "+ ${env_fault[*]} mpirun ${flags[*]} ${launch[*]} $collbench $* -T $T --csv $out.csv --json $out.json"
  start=$(date +%s.%N)
  "${env_fault[@]}" mpirun "${flags[@]}" ${launch[@]+"${launch[@]}"} "$collbench" "$@" -T "$T" --csv "$out.csv" --json "$out.json" > "$out.log" 2>&1 &
  mpirun_pid=$!

  fault_at=""
  limit=$(( ${T%.*} + 5 ))
  while kill -0 "$mpirun_pid" 2>/dev/null; do
    now=$(date +%s.%N)
    if [ -z "$fault_at" ]; then
      if [ "$how" = sigstop ] && [ "$(wc -l 2>/dev/null < "$out.csv" || echo 0)" -ge 2 ]; then
        pid=$(rank1_pid)
        if [ -n "$pid" ]; then
          kill -STOP "$pid" && fault_at=$now && echo "kill -STOP rank 1 (pid $pid) at +$(calc "$now - $start") s"
        fi
      elif [ "$how" != sigstop ] && grep -q "CB_FAULT: rank 1" "$out.log" 2>/dev/null; then
        fault_at=$now
        echo "CB_FAULT fired at +$(calc "$now - $start") s"
      fi
    elif [ "$(calc "$now - $fault_at > $limit + 30")" = 1 ]; then
      echo "FAIL $name: the job still runs $(( limit + 30 )) s after the fault: killing it"
      kill -KILL "$mpirun_pid"
      pid=$(rank1_pid); [ -n "$pid" ] && kill -KILL "$pid"
      break
    fi
    sleep 0.2
  done
  wait "$mpirun_pid"
  rc=$?
  if [ -z "$fault_at" ] && [ "$shared_gpu" = 1 ] && [ "$attempt" = 1 ] &&
    grep -q "busy or unavailable" "$out.log" 2>/dev/null; then
    mv "$out.log" "$out.attempt1.log"
    echo "attempt 1 could not open the shared GPU (devices unavailable, exit $rc; $out.attempt1.log): once more"
  else
    break
  fi
done
end=$(date +%s.%N)
tail -n 30 "$out.log"
fail=0
if [ -z "$fault_at" ]; then
  echo "FAIL $name: the fault never happened (exit $rc)"
  exit 1
fi
took=$(calc "$end - $fault_at")
echo "exit $rc, $took s after the fault (limit T + 5 = $limit s)"
[ "$rc" -eq 4 ] || { echo "FAIL $name: exit $rc, expected 4 (timeout)"; fail=1; }
[ "$(calc "$took <= $limit")" = 1 ] || { echo "FAIL $name: ended $took s after the fault, limit $limit s"; fail=1; }
grep -Eq "$want" "$out.log" || { echo "FAIL $name: no message matching /$want/"; fail=1; }
if grep -Eiq "segmentation fault|signal 11|SIGSEGV|core dumped|signal 6" "$out.log"; then
  echo "FAIL $name: a rank crashed on the way out"
  fail=1
fi
# rows finished before the fault: CSV header + rows; the stream holds the metadata + the same rows
rows=$(( $(wc -l 2>/dev/null < "$out.csv" || echo 0) - 1 ))
stream=$(( $(wc -l 2>/dev/null < "$out.json.partial.jsonl" || echo 0) - 1 ))
echo "rows kept: CSV $rows, .partial.jsonl $stream"
[ "$rows" -ge 1 ] || { echo "FAIL $name: no finished row in the CSV"; fail=1; }
[ "$rows" -eq "$stream" ] || { echo "FAIL $name: CSV has $rows rows, .partial.jsonl $stream"; fail=1; }
python3 - "$out.csv" "$out.json.partial.jsonl" <<'PY' || fail=1
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    if r["time_us_mean"] and float(r["time_us_mean"]) <= 0:
        sys.exit(f"FAIL: CSV row with a bad time: {r}")
lines = open(sys.argv[2]).read().splitlines()
objs = [json.loads(l) for l in lines]  # every line complete JSON
if "meta" not in objs[0]:
    sys.exit("FAIL: .partial.jsonl does not start with the metadata")
PY
[ $fail -eq 0 ] && echo "PASS $name"
exit $fail
