#!/usr/bin/env bash
# Multi-node forms on one 2 x H200 host as virtual clusters (issue 13): 2 nodes x 1 GPU and
# 2 nodes x 2 ranks (4 ranks on 2 GPUs), NCCL between the nodes over its network transport.
# 1. benchmarks, NCCL in the same run: all-reduce nccl vs hier (bfloat16, 1 MiB - 256 MiB),
#    all-to-all nccl vs nccl_p2p vs hier, MoE (deepseek-v3, 4096 tokens per rank), through
#    collbench-run --vnodes (the user's path);
# 2. the single-node spot check of the two-shot forms (the twoshot kernel gained its halves).
# At most 4 minutes of GPU time after the build (the step limits add up to 230 s). The
# virtual-cluster GPU tests run separately: ctest --test-dir build -L gpu -R gpu_vnodes
# (VNODE_TESTS=1 runs them here first).
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
build || { pack; exit 1; }
mkdir -p "$OUT/results"
if [ "${VNODE_TESTS:-0}" = 1 ]; then
  step ctest_vnodes 540 ctest --test-dir build -L gpu -R gpu_vnodes --output-on-failure --timeout 200
  mkdir -p "$OUT/logs/gpu"; cp build/tests/gpu/gpu-vnodes*.log "$OUT/logs/gpu/" 2>/dev/null
fi
run=(launcher/collbench-run --build build --out "$OUT/results" --no-plots)
# 2 x 2 puts two ranks on each GPU: the MPS daemon runs for that layout (device-common.sh
# mps_start; MPS=0: not).
for layout in "2 1" "2 2"; do
  set -- $layout
  tag="${1}x${2}"
  [ "$2" = 2 ] && mps_start
  step "ar_$tag" 40 "${run[@]}" --vnodes "$1" --gpus "$2" -- allreduce --algo nccl,hier -d bfloat16 -b 1M -e 256M -f 4 --inplace 0 -n 20 -w 5 -T 120
  step "a2a_$tag" 25 "${run[@]}" --vnodes "$1" --gpus "$2" -- alltoall --algo nccl,nccl_p2p,hier -b 1M -e 64M -f 4 -d bfloat16 -n 10 -w 3 -T 120
  step "moe_$tag" 20 "${run[@]}" --vnodes "$1" --gpus "$2" -- moe --algo nccl --model deepseek-v3 --tokens 4096 -n 10 -w 3 -T 120
  [ "$2" = 2 ] && mps_stop
done
step spot 60 "${MPIRUN[@]}" build/launcher/collbench allreduce --algo nccl,twoshot,twoshot_pull,twoshot_ce,auto --sizes 64K,16M,1G -d float --inplace 0 --mode both -n 50 -w 10 -T 60 --csv "$OUT/results/spot.csv"
pack
