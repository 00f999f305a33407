#!/usr/bin/env bash
# Parts a and c of branch next-decode (branch next-decode-ac: dest_mask loads a token's ids eight
# at a time; the dispatch push's warps skip the work claim when the grid's first batches cover
# every item) against main on 2 x H200. Main builds in build/, main + $PATCH
# (`git diff main next-decode-ac -- kernels`) in /tmp/nd/build; then the two run alternately,
# 3 times each: DeepSeek-V3, 128 tokens per rank (peer and peer_ll, fp8 and bf16 dispatch, graph,
# -n 200) at 132 and 32 SMs, and 4096 tokens at 32 SMs (with the copy_ce reference, graph, -n 20);
# last the branch's MoE GPU tests (memcheck and racecheck included, the 2 x 1 hier MoE tests).
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
PATCH=${PATCH:-results/20261130-h200x2-next-decode-ac/next-decode-ac.patch}
need_patch "$PATCH"
begin
build_patched /tmp/nd "$PATCH" build-nd
one_round() { # one_round TREE COLLBENCH REP
  local tree=$1 cb=$2 rep=$3 sms
  for sms in 132 32; do
    moe_step "decode-$tree-sms$sms-$rep" 40 "$cb" --tokens 128 --algo peer,peer_ll -d fp8e4m3,bfloat16 --mode graph -n 200 -w 20 --sms $sms -T 30
  done
  moe_step "t4096-$tree-sms32-$rep" 40 "$cb" --tokens 4096 --algo peer,peer_ll,copy_ce -d fp8e4m3,bfloat16 --mode graph -n 20 -w 5 --sms 32 -T 30
}
ab_rounds 3 330 one_round nd:/tmp/nd
step nd_moe_tests 150 ctest --test-dir /tmp/nd/build -L gpu -R "gpu_moe_|gpu_sm8_moe|gpu_fault_sigstop_moe|gpu_vnodes_2x1_moe" --output-on-failure --timeout 120
mkdir -p "$OUT/logs/nd-gpu"; cp /tmp/nd/build/tests/gpu/*.log "$OUT/logs/nd-gpu/" 2>/dev/null
pack
