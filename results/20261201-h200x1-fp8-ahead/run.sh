#!/usr/bin/env bash
# The fp8 dispatch push one item ahead (branch next-fp8-pipe, issue 14) against main, on every
# GPU of the machine (written for one H200 with one rank, where the SMs' own work is measured
# without NVLink traffic; on 2 GPUs the same script measures the real thing). Main builds in
# build/, main + $PATCH (`git diff main next-fp8-pipe -- kernels`) in /tmp/fa/build; then the
# two run alternately, 3 times each: DeepSeek-V3, 4096 tokens per rank at 32 and 132 SMs (peer,
# peer_ll, copy_ce; fp8 and bf16 dispatch; graph, -n 20) and the decode form (128 tokens, peer
# and peer_ll, graph, -n 200) at 132 and 32 SMs. Last, the MoE GPU tests of the branch.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
PATCH=${PATCH:-results/20261201-h200x1-fp8-ahead/fa.patch}
need_patch "$PATCH"
begin
build_patched /tmp/fa "$PATCH" build-fa
one_round() { # one_round TREE COLLBENCH REP
  local tree=$1 cb=$2 rep=$3 sms
  for sms in 32 132; do
    moe_step "t4096-$tree-sms$sms-$rep" 40 "$cb" --tokens 4096 --algo peer,peer_ll,copy_ce -d fp8e4m3,bfloat16 --mode graph -n 20 -w 5 --sms $sms -T 30
    moe_step "decode-$tree-sms$sms-$rep" 40 "$cb" --tokens 128 --algo peer,peer_ll -d fp8e4m3,bfloat16 --mode graph -n 200 -w 20 --sms $sms -T 30
  done
}
ab_rounds 3 260 one_round fa:/tmp/fa
step fa_moe_tests 150 ctest --test-dir /tmp/fa/build -L gpu -R "gpu_moe_|gpu_sm8_moe|gpu_vnodes_2x1_moe" --output-on-failure --timeout 60
mkdir -p "$OUT/logs/fa-gpu"; cp /tmp/fa/build/tests/gpu/*.log "$OUT/logs/fa-gpu/" 2>/dev/null
pack
