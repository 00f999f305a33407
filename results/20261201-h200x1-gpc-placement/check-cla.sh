#!/usr/bin/env bash
# cla.patch (branch next-gpc-spread after its review) on whatever GPUs the machine has: build it
# beside main, its MoE GPU tests (memcheck, racecheck, SM caps, overlap, 2 x 1 virtual nodes under
# MPS) and cpu_spread_role, then short DeepSeek-V3 runs at --sms 32, 64 and 132 whose notes say
# whether the dispatch push and the combine ran in clusters.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
PATCH=${PATCH:-results/20261201-h200x1-gpc-placement/cla.patch}
need_patch "$PATCH"
mkdir -p "$OUT/results"
R=$OUT/results
build_patched /tmp/cla "$PATCH" build-cla
mps_start
step cla_tests 240 ctest --test-dir /tmp/cla/build -R "gpu_moe_|gpu_sm8_moe|gpu_vnodes_2x1_moe|cpu_spread_role" --output-on-failure --timeout 90
mps_stop
mkdir -p "$OUT/logs/cla-gpu"; cp /tmp/cla/build/tests/gpu/*.log "$OUT/logs/cla-gpu/" 2>/dev/null
for sms in 32 64 132; do
  moe_step "cla-sms$sms" 60 /tmp/cla/build/launcher/collbench --algo peer,peer_ll --sms $sms --tokens 128,4096 -d bfloat16 --mode graph -n 10 -w 3 -T 30
done
pack
