#!/usr/bin/env bash
# The block-attention kernel alone on one H200: build attn_kernel_test only, its correctness run
# (every kernel variant against the fp32 reference), the benchmark of every variant side by side
# (attn.h: warp shape x main-loop form), and one Nsight Compute look at the kernel at the target
# shape (D = 128, S = 16384, non-causal) for each form named as an argument.
#   results/scripts/h200-attn-kernel.sh [FORM...]
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
nvidia-smi > "$OUT/logs/nvidia-smi.txt" 2>&1
step cmake 120 cmake -S . -B build -DCMAKE_BUILD_TYPE=Release &&
  step build 240 cmake --build build -j "$(nproc)" --target attn_kernel_test || { pack; exit 1; }
mkdir -p "$OUT/results"
R=$OUT/results
step attn_kernel_test 150 build/tests/gpu/attn_kernel_test
cp "$OUT/logs/attn_kernel_test.log" "$R/attn_kernel_test.txt"
step attn_kernel_bench 150 build/tests/gpu/attn_kernel_test --bench
grep '^bench' "$OUT/logs/attn_kernel_bench.log" > "$R/attn_kernel_bench.txt"
for f in "$@"; do
  step "ncu_form$f" 90 ncu --clock-control none -k regex:cb_attn_fwd_kernel --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section SchedulerStats --section WarpStateStats --section Occupancy \
    build/tests/gpu/attn_kernel_test --one "$f"
  cp "$OUT/logs/ncu_form$f.log" "$R/ncu_form$f.txt"
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$R/gpu_after.txt" 2>&1
cat "$R/attn_kernel_bench.txt"
tail -1 "$OUT/logs/attn_kernel_test.log"
pack
