#!/usr/bin/env bash
# Ring attention on 2 x H200: the block kernel's own test and speed (attn_kernel_test), the
# ringattn GPU tests, then the sweep behind results/*-h200x2-ringattn (every algorithm, NCCL in
# the same run, bf16, D = 128, 32 heads, causal and non-causal, S = 16K - 128K).
#   results/scripts/h200x2-ringattn.sh [quick]   quick: S = 16K - 32K only
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
build || { pack; exit 1; }
mkdir -p "$OUT/results"
step attn_kernel_test 240 build/tests/gpu/attn_kernel_test
step attn_kernel_bench 240 build/tests/gpu/attn_kernel_test --bench
step ctest_ringattn 420 ctest --test-dir build -L gpu -R ringattn --output-on-failure --timeout 200
mkdir -p "$OUT/logs/gpu"; cp build/tests/gpu/gpu-ringattn*.log "$OUT/logs/gpu/" 2>/dev/null
seqs="16K,32K,64K,128K"
[ "${1:-}" = quick ] && seqs="16K,32K"
step sweep 420 "${MPIRUN[@]}" build/launcher/collbench ringattn --seq "$seqs" -d bfloat16 --heads 32 --kv-heads 32 \
  --head-dim 128 --causal both -n 5 -w 2 -c 1 -T 120 --csv "$OUT/results/ringattn.csv" --json "$OUT/results/ringattn.json"
cp "$OUT/logs/sweep.log" "$OUT/results/output.txt" 2>/dev/null
pack
