#!/usr/bin/env bash
# probe.cu on the GPU machine: build it, run it for grids of 16, 24, 32, 48 and 64 blocks;
# output in $OUT/probe.txt (or /tmp/cb-gpc-probe).
cd "$(dirname "$0")" || exit 1
OUT=${OUT:-/tmp/cb-gpc-probe}
mkdir -p "$OUT"
nvidia-smi -L > "$OUT/probe.txt" 2>&1
nvcc -O2 -arch=sm_90 -o "$OUT/probe" probe.cu >> "$OUT/probe.txt" 2>&1 || { cat "$OUT/probe.txt"; exit 1; }
timeout 120 "$OUT/probe" 16 24 32 48 64 >> "$OUT/probe.txt" 2>&1
rc=$?
rm -f "$OUT/probe"
cat "$OUT/probe.txt"
exit $rc
