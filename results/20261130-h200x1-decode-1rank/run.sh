#!/usr/bin/env bash
# Branch next-decode against main on ONE H200, one rank (the session had no 2-GPU machine):
# what a rank does alone in the decode call (peer_ll: counting, positions, row pushes to its own
# buffers, lists, combine reduce; peer: the dispatch push's work claims) does not need a peer, so
# its time can be compared here even though the cross-GPU part cannot. Main builds in build/,
# the branch (main + $PATCH, `git diff main next-decode -- kernels`) in /tmp/nd/build; then the
# two run alternately, 3 times each: DeepSeek-V3, 128 tokens (peer, peer_ll; fp8 and bf16
# dispatch; graph, -n 200) at 132 and 32 SMs, and 4096 tokens (graph, -n 20). Last, the NCCL
# fault tests that run on one GPU as 2 virtual nodes.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
PATCH=${PATCH:-results/20261130-h200x1-decode-1rank/next-decode.patch}
need_patch "$PATCH"
begin
build_patched /tmp/nd "$PATCH" build-nd
one_round() { # one_round TREE COLLBENCH REP
  local tree=$1 cb=$2 rep=$3 sms
  for sms in 132 32; do
    moe_step "decode-$tree-sms$sms-$rep" 40 "$cb" --tokens 128 --algo peer,peer_ll -d fp8e4m3,bfloat16 --mode graph -n 200 -w 20 --sms $sms
  done
  moe_step "t4096-$tree-sms32-$rep" 40 "$cb" --tokens 4096 --algo peer,peer_ll -d fp8e4m3,bfloat16 --mode graph -n 20 -w 5 --sms 32
}
ab_rounds 3 300 one_round nd:/tmp/nd
gpu_suite fault_one_gpu 150 "gpu_fault_(sigstop_nccl|nccl_stall|nccl_stop)"
pack
