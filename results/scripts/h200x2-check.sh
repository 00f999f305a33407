#!/usr/bin/env bash
# The whole check of a revision on 2 x H200 in one device call (about 9 minutes): build, the MoE
# runs of issue 14 (DeepSeek-V3 shape, the copy-engine reference in the same run, SM caps, the
# fp8 decode form), the GPU test suite without the virtual clusters, then the virtual-cluster
# tests (2 x 1 plainly, 2 x 2 under the CUDA MPS daemon so the two ranks of a GPU share its SMs).
# Steps past BUDGET seconds are skipped so the archive is always packed.
#   results/scripts/h200x2-check.sh [moe] [suite] [vnodes] [moesweep] [split] [ringattn] [hierchunks]
# (default: the first three; the parts run in this order: moe, suite, vnodes, ringattn,
# hierchunks, split, moesweep). moesweep: the committed MoE sweeps through collbench-run
# (DeepSeek-V3 bf16 + fp8 dispatch and Mixtral-8x7B bf16, 128 - 8192 tokens per rank, eager and
# graph, nccl / peer / peer_ll / copy_ce, all SMs and --sms 32); split: moe peer's combine
# push/reduce split (CB_MOE_PUSH_PCT, SPLIT_PCT) at SPLIT_SMS SMs; ringattn: the ring-attention
# sweep, S 4K - 128K, causal and not (ATTN_BENCH=1: the block kernel's bench first; RA_SEQ,
# RA_ITERS, RA_LIMIT: other lengths, iterations, step limit); hierchunks: hier all-reduce on
# 2 x 2 virtual nodes (MPS) with CB_AR_HIER_CHUNKS = each of HIER_CHUNKS (unset: 1 2 4 8; empty: none) and
# then by size, at HIER_SIZES (default 4M,16M,64M). VNODES_RE narrows the virtual-cluster tests
# to a regex.
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
  moe_step "$name" "$limit" "$CB" -T 30 "$@" --json "$R/$name.json"
}
if want moe; then
  ALL=(--algo nccl,peer,peer_ll,copy_ce -d bfloat16,fp8e4m3 -n 20 -w 5)
  moe moe-sms132 60 --tokens 128,4096 --mode both "${ALL[@]}"
  moe moe-sms32 60 --sms 32 --tokens 128,4096 --mode both "${ALL[@]}"
  moe moe-sms16 40 --sms 16 --tokens 4096 --algo peer,copy_ce -d bfloat16,fp8e4m3 --mode eager -n 20 -w 5
  moe moe-decode 40 --sms 16 --tokens 128 --algo peer,peer_ll -d fp8e4m3,bfloat16 --mode graph -n 50 -w 10
fi
if want suite && ! late suite; then
  step ctest_gpu 400 ctest --test-dir build -L gpu -E gpu_vnodes --output-on-failure --timeout 120
  mkdir -p "$OUT/logs/gpu"; cp build/tests/gpu/*.log "$OUT/logs/gpu/" 2>/dev/null
fi
if want vnodes && ! late vnodes; then
  re=${VNODES_RE:-.}
  step ctest_vnodes_2x1 90 ctest --test-dir build -L gpu -R "gpu_vnodes_2x1.*($re)" --output-on-failure --timeout 60
  mps_start
  late vnodes_2x2 || step ctest_vnodes_2x2 120 ctest --test-dir build -L gpu -R "gpu_vnodes_2x2.*($re)" --output-on-failure --timeout 60
  mps_stop
  mkdir -p "$OUT/logs/gpu"; cp build/tests/gpu/gpu-vnodes*.log "$OUT/logs/gpu/" 2>/dev/null
fi
if want ringattn && ! late ringattn; then
  [ "${ATTN_BENCH:-0}" = 1 ] && step attn_kernel_bench 120 build/tests/gpu/attn_kernel_test --bench
  step ringattn "${RA_LIMIT:-200}" "${MPIRUN[@]}" "$CB" ringattn --seq "${RA_SEQ:-4K,8K,16K,32K,64K,128K}" -d bfloat16 \
    --causal both -n "${RA_ITERS:-5}" -w 2 -c 1 -T 100 --csv "$R/ringattn.csv" --json "$R/ringattn.json"
  cp "$OUT/logs/ringattn.log" "$R/ringattn-output.txt" 2>/dev/null
fi
if want hierchunks && ! late hierchunks; then
  # hier all-reduce's pipeline depth on 2 x 2 virtual nodes under MPS: CB_AR_HIER_CHUNKS = each
  # of HIER_CHUNKS, then unset (the plan by size), NCCL in every run
  mps_start
  hrun=(launcher/collbench-run --build build --out "$R/hierchunks" --no-plots --vnodes 2 --gpus 2 --)
  hargs=(allreduce --algo nccl,hier -d bfloat16 --sizes "${HIER_SIZES:-4M,16M,64M}" --inplace 0 -n 20 -w 5 -T 120)
  for k in ${HIER_CHUNKS-1 2 4 8} plan; do
    late "hier-chunks-$k" && break
    if [ "$k" = plan ]; then step "hier-chunks-$k" 40 "${hrun[@]}" "${hargs[@]}"
    else CB_AR_HIER_CHUNKS=$k step "hier-chunks-$k" 40 "${hrun[@]}" "${hargs[@]}"; fi
  done
  mps_stop
fi
if want split; then
  for cap in ${SPLIT_SMS:-32 132}; do
    for pct in ${SPLIT_PCT:-35 50 65}; do
      CB_MOE_PUSH_PCT=$pct moe "split-sms$cap-push$pct" 30 --sms $cap --tokens 128,4096 --algo peer,copy_ce \
        -d bfloat16,fp8e4m3 --mode graph -n 20 -w 5
    done
  done
fi
if want moesweep; then
  run=(launcher/collbench-run --build build --out "$R" --no-plots)
  for cap in 0 32; do
    capargs=()
    [ $cap = 0 ] || capargs=(--sms $cap)
    late "moesweep-$cap" && break
    step "moe-dsv3-sms$cap" 90 "${run[@]}" -- moe --model deepseek-v3 --tokens 128:8192 -d bfloat16,fp8e4m3 \
      --algo nccl,peer,peer_ll,copy_ce --mode both -n 20 -w 5 -T 60 ${capargs[@]+"${capargs[@]}"}
    step "moe-mixtral-sms$cap" 60 "${run[@]}" -- moe --model mixtral-8x7b --tokens 128:8192 -d bfloat16 \
      --algo nccl,peer,peer_ll,copy_ce --mode both -n 20 -w 5 -T 60 ${capargs[@]+"${capargs[@]}"}
  done
fi
pack
