#!/usr/bin/env bash
# moe --overlap (branch next-overlap, $PATCH = `git diff main next-overlap`) on the GPU machine:
# build main + patch in /tmp/ov, its GPU tests for the new option and the MoE SM caps, then the
# measurement itself: DeepSeek-V3, 128 and 4096 tokens per rank, bf16 and fp8 dispatch, graph,
# peer, peer_ll, nccl and copy_ce with --sms 32 and 16 (the compute kernel on the other SMs),
# and once without a cap (the custom rows have no SM left: skipped rows). Every GPU of the
# machine, one rank each. SUITE=1: the whole GPU suite of the patched tree instead of its
# --overlap and SM-cap tests (one GPU: the one-rank suite and the 2 x 1 virtual cluster).
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
PATCH=${PATCH:-results/20261201-h200x1-moe-overlap/overlap.patch}
need_patch "$PATCH"
mkdir -p "$OUT/results"
R=$OUT/results
build_patched /tmp/ov "$PATCH" build-ov
OV=/tmp/ov/build/launcher/collbench
if [ "${SUITE:-0}" = 1 ]; then # the whole GPU suite of the patched tree (one GPU: as h200x1-check.sh)
  step ov_suite 360 ctest --test-dir /tmp/ov/build -L gpu -E gpu_vnodes --output-on-failure --timeout 240
  mps_start
  step ov_vnodes_2x1 120 ctest --test-dir /tmp/ov/build -L gpu -R "gpu_vnodes_2x1" --output-on-failure --timeout 60
  mps_stop
else
  step ov_tests 300 ctest --test-dir /tmp/ov/build -L gpu -R "gpu_moe_overlap|gpu_moe_sms|gpu_sms_too_many" --output-on-failure --timeout 120
fi
mkdir -p "$OUT/logs/ov-gpu"; cp /tmp/ov/build/tests/gpu/*.log "$OUT/logs/ov-gpu/" 2>/dev/null
for sms in 32 16; do
  moe_step "overlap-sms$sms" 120 "$OV" --overlap --sms $sms --tokens 128,4096 -d bfloat16,fp8e4m3 --mode graph -n 20 -w 5 -T 60
done
moe_step overlap-nocap 120 "$OV" --overlap --tokens 4096 -d bfloat16 --mode graph -n 20 -w 5 -T 60
pack
