#!/usr/bin/env bash
# The attention block kernels on one GPU (the GPU machine's device tool, or any CUDA machine):
# builds attn_kernel_test, checks every variant against the fp32 reference, times them side by
# side (--bench), then times PyTorch SDPA's cuDNN and FlashAttention-2 backends on the same
# shapes in the same call (tools/device/sdpa_anchor.py). Logs under $OUT (default ./out).
#   tools/device/attn-kernel.sh [--sanitize] [--ncu VARIANT]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
sanitize=0 ncu_variant=
while [ $# -gt 0 ]; do
  case $1 in
    --sanitize) sanitize=1 ;;
    --ncu) ncu_variant=${2:?--ncu needs a variant index}; shift ;;
    *) echo "usage: $0 [--sanitize] [--ncu VARIANT]" >&2; exit 2 ;;
  esac
  shift
done
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
t0=$SECONDS
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > "$OUT/cmake.log" 2>&1 || { tail -40 "$OUT/cmake.log"; exit 1; }
cmake --build build --target attn_kernel_test -j "$(nproc)" > "$OUT/build.log" 2>&1 ||
  { grep -B2 -A12 -m5 error "$OUT/build.log"; exit 1; }
echo "build: $((SECONDS - t0)) s"
bin=build/tests/gpu/attn_kernel_test
timeout -k 5 300 "$bin" --bench > "$OUT/attn.log" 2>&1
echo "attn_kernel_test rc=$? ($((SECONDS - t0)) s)"
grep -c '^ok' "$OUT/attn.log" | sed 's/^/cases ok: /'
grep -v '^ok' "$OUT/attn.log" | head -150
if [ "$sanitize" = 1 ]; then
  for tool in memcheck racecheck; do
    timeout -k 5 240 compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin" --one 0 > "$OUT/$tool.log" 2>&1
    echo "$tool rc=$?: $(tail -1 "$OUT/$tool.log")"
  done
fi
if [ -n "$ncu_variant" ]; then
  timeout -k 5 240 ncu --clock-control none --set full -k regex:attn -o "$OUT/attn-ncu" "$bin" --one "$ncu_variant" \
    > "$OUT/ncu.log" 2>&1
  echo "ncu rc=$?"
fi
timeout -k 5 200 python3 tools/device/sdpa_anchor.py > "$OUT/sdpa.log" 2>&1
echo "sdpa rc=$?"
cat "$OUT/sdpa.log"
