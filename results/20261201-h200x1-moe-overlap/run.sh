#!/usr/bin/env bash
# moe --overlap on the GPU machine, every GPU one rank: build the tree, its --overlap and
# MoE SM-cap GPU tests (SUITE=1: the whole GPU suite instead; on one GPU the one-rank suite and
# the 2 x 1 virtual cluster under MPS), then the measurement: DeepSeek-V3, 128 and 4096 tokens
# per rank, bf16 and fp8 dispatch, graph, peer, peer_ll, nccl and copy_ce with --sms 32 and 16
# (the compute kernel on the other SMs), eager at 32 SMs (NCCL's path and copy_ce cannot be
# captured / need no graph), and once without a cap (the custom rows have no SM left).
# (The first runs, before the feature was merged, built main + overlap.patch in /tmp/ov.)
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
case "${SUITE:-0}" in
  0 | 1) ;;
  *) printf '%s: SUITE %.200s: want 0 (the --overlap and SM-cap tests) or 1 (the whole GPU suite)\n' "$0" "$SUITE" >&2; exit 2 ;;
esac
begin
if [ "${SUITE:-0}" = 1 ]; then
  gpu_suite ov_suite 360 . -E gpu_vnodes
  mps_start
  step ov_vnodes_2x1 120 ctest --test-dir build -L gpu -R "gpu_vnodes_2x1" --output-on-failure --timeout 60
  mps_stop
else
  gpu_suite ov_tests 300 "gpu_moe_overlap|gpu_moe_sms|gpu_sms_too_many"
fi
for sms in 32 16; do
  moe_step "overlap-sms$sms" 120 "$CB" --overlap --sms $sms --tokens 128,4096 -d bfloat16,fp8e4m3 --mode graph -n 20 -w 5 -T 60
done
moe_step overlap-sms32-eager 120 "$CB" --overlap --sms 32 --tokens 128,4096 -d bfloat16 --mode eager -n 20 -w 5 -T 60
moe_step overlap-nocap 120 "$CB" --overlap --tokens 4096 -d bfloat16 --mode graph -n 20 -w 5 -T 60
pack
