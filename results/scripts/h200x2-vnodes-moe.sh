#!/usr/bin/env bash
# MoE hier on one 2 x H200 host as virtual clusters (issue 13 part 2): 2 nodes x 2 ranks (4
# ranks on 2 GPUs, under the CUDA MPS daemon, each rank on half a GPU's SMs) and 2 nodes x 1 GPU,
# NCCL between the nodes over its network transport (sockets through the host).
#   1. benchmark, NCCL in the same run: moe nccl vs hier, DeepSeek-V3, 128 and 4096 tokens per
#      rank, bfloat16 and fp8e4m3, through collbench-run --vnodes (the user's path);
#   2. the virtual-cluster MoE GPU tests (ctest -R gpu_vnodes_2xK_moe): every routing law,
#      drops, uneven ranks, both dtypes, 0 wrong.
# 2 x 2 first (the issue's target). Builds only collbench. Every step is cut to what is left of
# DEADLINE seconds (default 270), so the archive is written before the device call's limit.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
DEADLINE=${DEADLINE:-270}
# bstep NAME LIMIT_S CMD...: step, with LIMIT_S cut to the time left; skipped under 15 s.
bstep() {
  local name=$1 limit=$2 left
  shift 2
  left=$(( DEADLINE - ($(date +%s) - T0) ))
  if [ "$left" -lt 15 ]; then
    echo "[skip] $name: ${left}s left" | tee -a "$OUT/logs/steps.txt"
    return 1
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  step "$name" "$limit" "$@"
}
nvidia-smi > "$OUT/logs/nvidia-smi.txt" 2>&1
if ! bstep cmake 60 cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ||
   ! bstep build 170 cmake --build build -j "$(nproc)" --target collbench; then
  tail -n 40 "$OUT/logs/build.log" 2>/dev/null
  pack
  exit 1
fi
mkdir -p "$OUT/results"
run=(launcher/collbench-run --build build --out "$OUT/results" --no-plots)
MOE=(moe --algo nccl,hier --model deepseek-v3 --tokens 128,4096 -d bfloat16,fp8e4m3 -n 10 -w 3 -c 1 -T 60)
tests() { # tests NAME LIMIT REGEX: the GPU tests matching REGEX, their logs and CSVs kept
  bstep "$1" "$2" ctest --test-dir build -L gpu -R "$3" --output-on-failure --timeout 90
  mkdir -p "$OUT/logs/gpu"
  cp build/tests/gpu/gpu-vnodes*moe*.log build/tests/gpu/gpu-vnodes*moe*.csv "$OUT/logs/gpu/" 2>/dev/null
}
mps_start
bstep moe_2x2 70 "${run[@]}" --vnodes 2 --gpus 2 -- "${MOE[@]}"
tests tests_2x2 100 'gpu_vnodes_2x2_moe'
mps_stop
bstep moe_2x1 40 "${run[@]}" --vnodes 2 --gpus 1 -- "${MOE[@]}"
tests tests_2x1 70 'gpu_vnodes_2x1_moe'
grep -hE "roundtrip|dispatch |combine " "$OUT"/logs/moe_2x*.log | head -80
grep -hE "tests passed|\*\*\*|Passed" "$OUT"/logs/tests_2x*.log
pack
