#!/usr/bin/env bash
# The whole check of a revision on 2 x H200 in one device call (about 9 minutes): build, the MoE
# runs of issue 14 (DeepSeek-V3 shape, the copy-engine reference in the same run, SM caps, the
# fp8 decode form), the GPU test suite without the virtual clusters, then the virtual-cluster
# tests (2 x 1 plainly, 2 x 2 under the CUDA MPS daemon so the two ranks of a GPU share its SMs).
# Steps past BUDGET seconds are skipped so the archive is always packed.
#   results/scripts/h200x2-check.sh [moe] [suite] [vnodes] [ringattn]   (default: the first three)
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
PARTS=" ${*:-moe suite vnodes} "
BUDGET=${BUDGET:-560}
want() { [[ "$PARTS" == *" $1 "* ]]; }
late() { # late NAME: true (and logged) when the budget is spent
  if [ $(( $(date +%s) - T0 )) -gt "$BUDGET" ]; then
    echo "skipped $1: past the ${BUDGET}s budget" | tee -a "$OUT/logs/steps.txt"
    return 0
  fi
  return 1
}
begin
moe() { # moe NAME LIMIT ARGS...: one collbench moe run, CSV and JSON under $R
  local name=$1 limit=$2
  shift 2
  late "$name" && return 0
  step "$name" "$limit" "${MPIRUN[@]}" "$CB" moe --model deepseek-v3 -T 30 "$@" --csv "$R/$name.csv" --json "$R/$name.json"
}
if want moe; then
  ALL=(--algo nccl,peer,peer_ll,copy_ce -d bfloat16,fp8e4m3 -n 20 -w 5)
  moe moe-sms132 60 --tokens 128,4096 --mode both "${ALL[@]}"
  moe moe-sms32 60 --sms 32 --tokens 128,4096 --mode both "${ALL[@]}"
  moe moe-sms16 40 --sms 16 --tokens 4096 --algo peer,copy_ce -d bfloat16,fp8e4m3 --mode eager -n 20 -w 5
  moe moe-decode 40 --sms 16 --tokens 128 --algo peer,peer_ll -d fp8e4m3,bfloat16 --mode graph -n 50 -w 10
fi
if want suite && ! late suite; then
  step ctest_gpu 330 ctest --test-dir build -L gpu -E gpu_vnodes --output-on-failure --timeout 120
  mkdir -p "$OUT/logs/gpu"; cp build/tests/gpu/*.log "$OUT/logs/gpu/" 2>/dev/null
fi
if want vnodes && ! late vnodes; then
  step ctest_vnodes_2x1 90 ctest --test-dir build -L gpu -R gpu_vnodes_2x1 --output-on-failure --timeout 60
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/cb-mps CUDA_MPS_LOG_DIRECTORY=/tmp/cb-mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  nvidia-cuda-mps-control -d && echo "MPS daemon started" >> "$OUT/logs/steps.txt"
  late vnodes_2x2 || step ctest_vnodes_2x2 120 ctest --test-dir build -L gpu -R gpu_vnodes_2x2 --output-on-failure --timeout 60
  echo quit | nvidia-cuda-mps-control
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  mkdir -p "$OUT/logs/gpu"; cp build/tests/gpu/gpu-vnodes*.log "$OUT/logs/gpu/" 2>/dev/null
fi
if want ringattn && ! late ringattn; then
  step attn_kernel_bench 120 build/tests/gpu/attn_kernel_test --bench
  step ringattn 200 "${MPIRUN[@]}" "$CB" ringattn --seq 4K,8K,16K,32K,64K,128K -d bfloat16 --causal both \
    -n 5 -w 2 -c 1 -T 100 --csv "$R/ringattn.csv" --json "$R/ringattn.json"
  cp "$OUT/logs/ringattn.log" "$R/ringattn-output.txt" 2>/dev/null
fi
pack
