#!/usr/bin/env bash
# Issue 14 (MoE part) on 2 x H200: build, a first MoE run at 32 SMs (also the smoke test: a
# hang ends at -T 30), the GPU tests (all but the multi-minute vnodes/fault ones), then the
# sweeps: DeepSeek-V3 shape at 128 and 4096 tokens per rank, bf16 and fp8 dispatch, eager and
# graph, peer / peer_ll / nccl / copy_ce (the copy-engine reference of the same run) under SM
# caps 8..132, and the combine's push/reduce split (CB_MOE_PUSH_PCT) at 32 SMs.
# Usage (from the repository root, on the GPU machine): bash results/scripts/h200x2-moe14.sh
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
begin
BUDGET=${BUDGET:-330} # seconds: later steps are skipped past it, so pack always runs
moe() { # moe NAME LIMIT ARGS...: one collbench moe run, CSV and JSON under $R
  local name=$1 limit=$2
  shift 2
  if [ $(( $(date +%s) - T0 )) -gt "$BUDGET" ]; then
    echo "skipped $name: past the ${BUDGET}s budget" | tee -a "$OUT/logs/steps.txt"
    return 0
  fi
  step "$name" "$limit" "${MPIRUN[@]}" "$CB" moe --model deepseek-v3 -T 30 "$@" --csv "$R/$name.csv" --json "$R/$name.json"
}
ALL=(--algo nccl,peer,peer_ll,copy_ce -d bfloat16,fp8e4m3 --mode both -n 20 -w 5)
moe sms32 90 --sms 32 --tokens 128,4096 "${ALL[@]}"
gpu_suite ctest_gpu 170 "gpu_moe|gpu_sms|gpu_sm8|alltoall_custom|allreduce_custom_odd|ringattn_d64"
moe sms132 90 --tokens 128,4096 "${ALL[@]}"
moe sms16 60 --sms 16 --tokens 4096 --algo peer,copy_ce -d bfloat16,fp8e4m3 --mode eager -n 20 -w 5
moe sms24 60 --sms 24 --tokens 4096 --algo peer,copy_ce -d bfloat16,fp8e4m3 --mode eager -n 20 -w 5
for pct in 35 65; do
  CB_MOE_PUSH_PCT=$pct moe sms32-push$pct 60 --sms 32 --tokens 4096 --algo peer,copy_ce -d bfloat16,fp8e4m3 --mode eager -n 20 -w 5
done
for s in 4 8 16; do
  moe decode-sms$s 60 --sms $s --tokens 128 --algo peer,peer_ll -d fp8e4m3,bfloat16 --mode graph -n 50 -w 10
done
pack
