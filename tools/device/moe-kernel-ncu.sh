#!/usr/bin/env bash
# One MoE kernel under Nsight Compute on one GPU with one rank (no NVLink traffic: what the SMs
# themselves spend): collbench moe, DeepSeek-V3, 4096 tokens, graph mode, the first launch of
# KERNEL after the warm-up, for each dispatch dtype, at $SMS SMs (default 32); then the SASS
# instruction count of each function whose name matches KERNEL.
#   tools/device/moe-kernel-ncu.sh [KERNEL]     (default dispatch_push)
# KERNEL and SMS are checked before anything else (exit 2, a message; CPU test cpu_compare_ab).
[ $# -le 1 ] || { printf '%s: want at most one argument (KERNEL), got %d\n' "$0" $# >&2; exit 2; }
KERNEL=${1-dispatch_push}
SMS=${SMS-32}
[[ "$KERNEL" =~ ^[A-Za-z_][A-Za-z0-9_]{0,63}$ ]] ||
  { printf '%s: KERNEL: want a C identifier of at most 64 characters, got %.200q\n' "$0" "$KERNEL" >&2; exit 2; }
[[ "$SMS" =~ ^[1-9][0-9]{0,3}$ ]] || { printf '%s: SMS: want a number of SMs (1-9999), got %.200q\n' "$0" "$SMS" >&2; exit 2; }
cd "$(dirname "$0")/../.." || exit 1
. tools/device/common.sh
begin
for dt in fp8e4m3 bfloat16; do
  step "ncu-$KERNEL-$dt-sms$SMS" 150 ncu --clock-control none -k "regex:$KERNEL" --launch-skip 10 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section SchedulerStats --section WarpStateStats --section Occupancy --section InstructionStats \
    --section LaunchStats \
    "$CB" moe --model deepseek-v3 --tokens 4096 --algo peer -d "$dt" --mode graph -n 20 -w 5 --sms "$SMS" -T 120
  cp "$OUT/logs/ncu-$KERNEL-$dt-sms$SMS.log" "$R/"
done
# SASS per matching function: its instruction count and the whole listing
cuobjdump -sass "$CB" > "$OUT/logs/sass-all.txt" 2>&1
X='/\*[0-9a-f][0-9a-f][0-9a-f][0-9a-f]+\*/' # an instruction's address comment
awk -v k="$KERNEL" -v x="$X" '/Function : /{f = index($0, k) > 0; if (f) print "\n" $0; next} f && $0 ~ x' \
  "$OUT/logs/sass-all.txt" > "$R/sass-$KERNEL.txt"
awk -v x="$X" '/Function : /{if (name) print cnt, name; name = $3; cnt = 0; next} $0 ~ x{cnt++} END{if (name) print cnt, name}' \
  "$R/sass-$KERNEL.txt" | tee "$R/sass-$KERNEL-counts.txt"
rm -f "$OUT/logs/sass-all.txt"
pack
