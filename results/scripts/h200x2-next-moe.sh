#!/usr/bin/env bash
# MoE kernel changes in one device call on 2 x H200 (about 3 minutes; it measured branch next-moe,
# results/20261130-h200x2-moe-next, whose README has the plan it followed): build, the MoE
# GPU tests (every routing law, drops, uneven ranks, fp8, --sms 8/32/1, the SM-count tests) and
# the hier MoE tests of the 2 x 1 virtual cluster (hier quantizes fp8 through the same code),
# then exactly the runs of `h200x2-check.sh moe split` (DeepSeek-V3, --sms 132/32/16, the decode
# form at 128 tokens, the combine split 35/50/65 at 32 and 132 SMs), so the tables compare file
# by file with results/20261130-h200x2-moe-sms/final/ (results/scripts/compare_moe.py does it).
# The measurements run even when a test fails (its log says which); everything comes back in
# logs.tgz (logs/ and results/), as from h200x2-check.sh.
#   results/scripts/h200x2-next-moe.sh [PART...]   (h200x2-check.sh parts; default: moe split)
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
build || { pack; exit 1; }
gpu_suite ctest_moe 200 "gpu_moe|gpu_sms|gpu_sm8_moe"
step ctest_vnodes_2x1_moe 90 ctest --test-dir build -L gpu -R "gpu_vnodes_2x1.*moe" --output-on-failure --timeout 60
mkdir -p "$OUT/logs/gpu"
cp build/tests/gpu/gpu-vnodes*.log "$OUT/logs/gpu/" 2>/dev/null
# h200x2-check.sh builds again (nothing to do), runs its parts, then packs $OUT (our logs too)
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(moe split)
exec bash results/scripts/h200x2-check.sh "${parts[@]}"
