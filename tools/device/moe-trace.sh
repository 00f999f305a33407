#!/usr/bin/env bash
# Where a MoE round trip's time goes, from time stamps inside the kernels: builds a
# second tree with -DCB_MOE_TRACE=ON (build-trace/; the normal build is untouched), runs the
# decode form (128 tokens per rank, graph, -c 0 so the last calls stamped are timed ones) and
# the 4096-token peer dispatch at 132 and 32 SMs, with CB_MOE_TRACE pointing at
# $OUT/results/trace/<run>/, then tools/moe_trace.py on every file (logs/trace-*.txt).
# The trace build's CSVs show what the stamps cost against a normal build's runs.
#   tools/device/moe-trace.sh      (about 2 minutes; logs.tgz as the other scripts)
cd "$(dirname "$0")/../.." || exit 1
. tools/device/common.sh
nvidia-smi > "$OUT/logs/nvidia-smi.txt" 2>&1
step cmake-trace 120 cmake -S . -B build-trace -DCMAKE_BUILD_TYPE=Release -DCB_MOE_TRACE=ON &&
  step build-trace 300 cmake --build build-trace -j "$(nproc)" --target collbench || { pack; exit 1; }
mkdir -p "$OUT/results"
R=$OUT/results
trace() { # trace NAME ARGS...: one collbench moe run with stamps into $R/trace/NAME
  local name=$1
  shift
  mkdir -p "$R/trace/$name"
  CB_MOE_TRACE="$R/trace/$name" step "trace-$name" 60 "${MPIRUN[@]}" -x CB_MOE_TRACE build-trace/launcher/collbench \
    moe --model deepseek-v3 -T 30 -c 0 "$@" --csv "$R/trace/$name.csv"
  python3 tools/moe_trace.py "$R/trace/$name"/*.txt > "$OUT/logs/trace-$name.txt" 2>&1
}
for sms in ${SMS:-132 32}; do
  trace "decode-sms$sms" --sms "$sms" --tokens 128 --algo peer,peer_ll -d fp8e4m3,bfloat16 --mode graph -n 64 -w 8
  trace "t4096-sms$sms" --sms "$sms" --tokens 4096 --algo peer,peer_ll -d bfloat16,fp8e4m3 --mode graph -n 40 -w 4
done
pack
