#!/usr/bin/env bash
# 2 x H200, the next step after recheck.sh (which found the direct form's tree failing 3 of 3 and
# main passing 3 of 3): which NCCL mechanism carries the damage, and whether direct-comm.patch
# (the direct form's NCCL calls on a copy of the world communicator) cures it. The 2 x 2
# all-to-all test under MPS: the direct form's tree (direct.patch) with NCCL's registration
# messages logged (NCCL_DEBUG_SUBSYS=REG), with both user-buffer registrations off
# (NCCL_GRAPH_REGISTER=0 NCCL_LOCAL_REGISTER=0), without NCCL's P2P transport (NCCL_P2P_DISABLE=1),
# as it is (the failure again, as a control); the
# branch tree's collbench without hier, with the direct form (odd and even blocks, graph and
# eager) and with hier's rail form (iso-*); the
# direct-comm tree twice; main once. If the direct-comm tree passed both times, its rail-versus-
# direct A/B is the next call (ab-direct.sh with PATCH=direct-comm.patch: it does not fit in this
# one's 10 minutes).
#   bash results/20261201-h200x2-vnodes-nccl-odd/recheck2.sh    (about 6 minutes; needs 2 GPUs)
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
D=results/20261201-h200x2-vnodes-nccl-odd
need_patch results/20261201-h200x1-socket-messages/direct.patch
need_patch $D/direct-comm.patch
[ "$NGPU" -ge 2 ] || { echo "$0: needs 2 GPUs, this machine has $NGPU" >&2; exit 2; }
begin
build_patched /tmp/ad results/20261201-h200x1-socket-messages/direct.patch build-ad
build_patched /tmp/adc $D/direct-comm.patch build-adc
mps_start
a2a() { # a2a NAME ROOT [VAR=VALUE...]: the 2 x 2 all-to-all test of the tree in ROOT
  local name=$1 root=$2
  shift 2
  step "a2a-$name" 60 env "$@" ctest --test-dir "$root/build" -L gpu -R "gpu_vnodes_2x2_alltoall$" --output-on-failure --timeout 50
  local rc=$?
  cp "$root/build/tests/gpu/gpu-vnodes_2x2_alltoall.log" "$OUT/logs/a2a-$name-test.log" 2>/dev/null
  return $rc
}
# NCCL 2.28.3's source (read after session 13, README "What NCCL's source says") registers no
# cudaMalloc buffer by default: the REG log tells whether any registration happened at all; both
# registration paths off settles it; without P2P the on-node blocks take the network transport
a2a ad-reglog /tmp/ad NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=REG
grep -Eci "IPC regist|IPC reuse|userbuff|deregist" "$OUT/logs/a2a-ad-reglog-test.log" |
  sed 's/^/NCCL REG lines in a2a-ad-reglog: /' | tee -a "$OUT/logs/steps.txt"
a2a ad-noreg /tmp/ad NCCL_GRAPH_REGISTER=0 NCCL_LOCAL_REGISTER=0
a2a ad-nop2p /tmp/ad NCCL_P2P_DISABLE=1
a2a ad-control /tmp/ad
# which rows and which mode are needed: the branch tree's collbench without hier (expected
# right), with hier's direct form on odd and even blocks in both modes, on odd blocks eager only
# (no graph: if the cause is NCCL's registration of graph-captured buffers, right), with hier's
# rail form at the odd size (blocks under CB_A2A_HIER_DIRECT_MIN)
iso() { # iso NAME ALGOS SIZES MODE [VAR=VALUE...]
  local name=$1 algos=$2 sizes=$3 mode=$4
  shift 4
  step "iso-$name" 60 env "$@" /tmp/ad/launcher/collbench-run --build /tmp/ad/build --out "$R/iso-$name" --no-plots \
    --vnodes 2 --gpus 2 -- alltoall --algo "$algos" -d fp8e4m3 --sizes "$sizes" --mode "$mode" -n 3 -w 1 -c 2 -T 40
}
iso no-hier nccl,nccl_p2p 1M,4194308 both
iso direct-odd nccl,nccl_p2p,hier 1M,4194308 both
iso direct-even nccl,nccl_p2p,hier 1M,4194304 both
iso direct-odd-eager nccl,nccl_p2p,hier 1M,4194308 eager
iso rail-odd nccl,nccl_p2p,hier 1M,4194308 both CB_A2A_HIER_DIRECT_MIN=2000000
ok=0
a2a adc-1 /tmp/adc && a2a adc-2 /tmp/adc && ok=1
a2a main "$PWD"
# the direct-comm tree's own hier rows across size changes (its stale entries, if any, now on
# its own communicator)
step adc-sweep 60 /tmp/adc/launcher/collbench-run --build /tmp/adc/build --out "$R/adc-sweep" --no-plots \
  --vnodes 2 --gpus 2 -- alltoall --algo nccl,hier -d fp8e4m3,bfloat16 --sizes 1M,4194308,4M,16M --mode both -n 3 -w 1 -c 2 -T 40
step adc-tests 150 ctest --test-dir /tmp/adc/build -L gpu -R "gpu_vnodes_2x2_(a2a_memcheck|allreduce|moe)$" --output-on-failure --timeout 60
mps_stop
[ "$ok" = 1 ] && echo "direct-comm passed twice: its A/B next, as its own call: PATCH=$D/direct-comm.patch bash results/20261201-h200x1-socket-messages/ab-direct.sh" >> "$OUT/logs/steps.txt"
pack
