#!/usr/bin/env bash
# Branch next-quant (cheaper fp8 quantization in the MoE dispatch, issue 14) against main on
# 2 x H200, plus what session 8's first check left unrun on main. Main builds in build/, the
# branch (main + $PATCH, `git diff main next-quant -- kernels`) in /tmp/nq/build.
#  1. main: the GPU tests the first call's 330 s suite limit cut off (gpu_fault_nccl_stop on),
#     and the single-node spot check (results/scripts/spot-check.sh's run) after the exit-guard
#     change in base/;
#  2. main and branch alternately, 3 times each: DeepSeek-V3, 4096 tokens per rank at 32 and
#     132 SMs (peer, peer_ll and the copy_ce reference, bf16 and fp8 dispatch, graph, -n 20), and
#     the 128-token decode form (peer_ll, graph, -n 200);
#  3. the branch's MoE GPU tests (fp8 exact, validate, memcheck, racecheck, SM caps, the 2 x 1
#     virtual-node hier MoE tests that quantize through the same code).
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
PATCH=${PATCH:-results/20261130-h200x2-next-quant/next-quant.patch}
need_patch "$PATCH"
begin
build_patched /tmp/nq "$PATCH" build-nq
gpu_suite main_rest 150 "gpu_fault_nccl_stop|gpu_fault_ipc_stall|gpu_sm8_|gpu_ringattn_save|topo_gpu_busids"
step spot 120 "${MPIRUN[@]}" $CB allreduce --algo nccl,oneshot_ll,twoshot,twoshot_pull,twoshot_ce,auto --sizes 8,64K,16M,64M,1G -d float --inplace 0 --mode both -n 100 -w 10 -T 60 --csv "$R/spot.csv"
one_round() { # one_round TREE COLLBENCH REP
  local tree=$1 cb=$2 rep=$3 sms
  for sms in 32 132; do
    moe_step "t4096-$tree-sms$sms-$rep" 40 "$cb" --tokens 4096 --algo peer,peer_ll,copy_ce -d fp8e4m3,bfloat16 --mode graph -n 20 -w 5 --sms $sms -T 30
  done
  moe_step "decode-$tree-$rep" 40 "$cb" --tokens 128 --algo peer_ll -d fp8e4m3,bfloat16 --mode graph -n 200 -w 20 -T 30
}
ab_rounds 3 380 one_round nq:/tmp/nq
step nq_moe_tests 150 ctest --test-dir /tmp/nq/build -L gpu -R "gpu_moe_|gpu_sm8_moe|gpu_fault_sigstop_moe|gpu_vnodes_2x1_moe" --output-on-failure --timeout 120
mkdir -p "$OUT/logs/nq-gpu"; cp /tmp/nq/build/tests/gpu/*.log "$OUT/logs/nq-gpu/" 2>/dev/null
pack
