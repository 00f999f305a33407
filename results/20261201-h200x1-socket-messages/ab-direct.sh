#!/usr/bin/env bash
# Issue 13's all-to-all on 2 x 2 virtual nodes (2 x H200, 4 ranks under the CUDA MPS daemon):
# main's `hier` (rail staging, then one network message per node pair and rail) against the
# direct form of branch next-a2a-direct ($PATCH = `git diff main next-a2a-direct`: off-node
# blocks straight to their ranks over NCCL from the start, the node's own blocks over NVLink
# alongside; CB_A2A_HIER_DIRECT_MIN chooses the form by block size). First the branch's 2 x 2
# all-to-all GPU tests (checks on; its default threshold, then memcheck with the direct form at
# every size), then 3 alternating rounds of main and the branch with CB_A2A_HIER_DIRECT_MIN=0
# (direct at every size): nccl, nccl_p2p and hier at 256 KiB - 64 MiB per rank, bf16, NCCL in
# the same run. Needs 2 GPUs.
# SHARE=1: on one GPU instead, the 4 ranks sharing it (CB_SHARE_GPUS=1): a proxy for the rail
# form against the direct form only (both move their node's blocks through memory of the one GPU
# and the off-node ones over NCCL's sockets, as on 2 GPUs), not for hier against NCCL (every
# NCCL rank is its own host there, so NCCL's on-node blocks go over sockets too).
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
PATCH=${PATCH:-results/20261201-h200x1-socket-messages/direct.patch}
need_patch "$PATCH"
SHARE=${SHARE:-0}
[[ "$SHARE" =~ ^[01]$ ]] || { printf '%s: SHARE=%q is not 0 or 1\n' "$0" "${SHARE:0:40}" >&2; exit 2; }
share_flag=()
if [ "$SHARE" = 1 ]; then
  export CB_SHARE_GPUS=1
  share_flag=(--share-gpus)
else
  [ "$NGPU" -ge 2 ] || { echo "$0: needs 2 GPUs, this machine has $NGPU (SHARE=1: a proxy on one GPU)" >&2; exit 2; }
fi
begin
build_patched /tmp/ad "$PATCH" build-ad
mps_start
step ad_tests 200 ctest --test-dir /tmp/ad/build -L gpu -R "gpu_vnodes_2x2_(alltoall|a2a_memcheck)" --output-on-failure --timeout 90
step ad_tests_direct0 120 env CB_A2A_HIER_DIRECT_MIN=0 ctest --test-dir /tmp/ad/build -L gpu -R "gpu_vnodes_2x2_a2a_memcheck" --output-on-failure --timeout 90
mkdir -p "$OUT/logs/ad-gpu"; cp /tmp/ad/build/tests/gpu/gpu-vnodes*.log "$OUT/logs/ad-gpu/" 2>/dev/null
one_round() { # one_round TREE ROOT REP [VAR=VALUE...]
  local tree=$1 root=$2 rep=$3
  shift 3
  step "a2a-$tree-$rep" 90 env "$@" "$root/launcher/collbench-run" --build "$root/build" --out "$R/$tree-$rep" --no-plots --vnodes 2 --gpus 2 ${share_flag[@]+"${share_flag[@]}"} -- \
    alltoall --algo nccl,nccl_p2p,hier -b 256K -e 64M -f 4 -d bfloat16 -n 20 -w 5 -T 120
}
for rep in 1 2 3; do
  [ $(( $(date +%s) - T0 )) -gt 480 ] && { echo "round $rep skipped: past 480 s" >> "$OUT/logs/steps.txt"; break; }
  one_round main "$PWD" "$rep"
  one_round ad /tmp/ad "$rep" CB_A2A_HIER_DIRECT_MIN=0
done
mps_stop
pack
