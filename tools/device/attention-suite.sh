#!/usr/bin/env bash
# The attention family on ONE GPU (the GPU machine's device tool, or any CUDA machine): builds
# collbench against the newest cuDNN on the machine (PyTorch's nvidia-cudnn package when
# present, via CUDNN_ROOT), then
#   1. attn_kernel_test --bench: every block kernel variant against the fp32 reference, timed;
#   2. the GPU tests of the attention kernels and the ring-attention family (one rank);
#   3. the same with 2 ranks sharing the GPU (CB_SHARE_GPUS=1 under MPS): the ring's cross-rank
#      paths with both block kernels (correctness only): `shared` the forward's tests, `sharedbwd`
#      the backward's with collbench's kernel, `sharedbwdcudnn` the backward's cuDNN rows;
#   4. the reference run: launcher/collbench-run -- ringattn with both block kernels on one rank
#      (P = 1: the block kernels side by side), its folder under $OUT/results/reference;
#   5. PyTorch SDPA's cuDNN and FlashAttention-2 backends on the same shapes (sdpa_anchor.py);
#   refbwd (not by default): the backward's reference run, --pass bwd, bf16 and fp16 (as
#      results/reference/h200x1/ringattn-bwd-kernels), and attn_bwd_test --bench beside SDPA's
#      backward (sdpa_anchor.py --backward): docs/decisions/attention-hopper.md's backward tables; about 120 s.
# STEPS (default "bench tests shared sharedbwd sharedbwdcudnn ref sdpa") picks the steps. Logs
# packed into $OUT/logs.tgz.
# Times on an H200 (2026-12-02, measured, main cd19b62, each step a call of its own after the
# build's 31 s): tests 424 s (39 tests), shared 152 s (16), sharedbwd 191 s (16), sharedbwdcudnn
# 258 s (12). Limits: 540 s for tests, 480 s for the others. On a machine whose calls end at 600 s
# run STEPS=tests, STEPS=sharedbwd, STEPS=sharedbwdcudnn and STEPS="bench shared ref sdpa" (then
# refbwd) as calls of their own.
cd "$(dirname "$0")/../.." || exit 1
. tools/device/common.sh
KNOWN="bench tests shared sharedbwd sharedbwdcudnn ref sdpa refbwd"
STEPS=${STEPS:-bench tests shared sharedbwd sharedbwdcudnn ref sdpa}
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
for w in $STEPS; do need_word step "$w" "$KNOWN" STEPS; done
root=$(python3 -c 'import nvidia.cudnn as c; print(list(c.__path__)[0])' 2> /dev/null || true)
if [ -n "$root" ] && [ -d "$root/include" ]; then
  export CUDNN_ROOT=$root LD_LIBRARY_PATH=$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  echo "cuDNN: $root" | tee -a "$OUT/logs/steps.txt"
fi
nvidia-smi > "$OUT/logs/nvidia-smi.txt" 2>&1
step cmake 120 cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${CUDNN_ROOT:+-DCUDNN_ROOT=$CUDNN_ROOT} &&
  step build 300 cmake --build build -j "$(nproc)" || { pack; exit 1; }
mkdir -p "$OUT/results"
has bench && step attn_kernel_test 200 build/tests/gpu/attn_kernel_test --bench
has tests && gpu_suite ctest_attn 540 '^gpu_(attn|ringattn)' -E '_shared4?$' # the shared cases run in step 3
if has shared || has sharedbwd || has sharedbwdcudnn; then
  mps_start
  export CB_SHARE_GPUS=1
  has shared && gpu_suite ctest_attn_shared 480 "^gpu_ringattn" -E "^gpu_ringattn_bwd"
  has sharedbwd && gpu_suite ctest_attn_shared_bwd 480 "^gpu_ringattn_bwd" -E "_cudnn"
  has sharedbwdcudnn && gpu_suite ctest_attn_shared_bwd_cudnn 480 "^gpu_ringattn_bwd_cudnn"
  unset CB_SHARE_GPUS
  mps_stop
fi
if has ref; then
  step ref_ringattn 200 launcher/collbench-run --out "$OUT/results/reference" -- ringattn --algo single \
    --block-kernel both --seq 4K:32K --causal both -n 10 -w 3 -c 1
fi
has sdpa && step sdpa 200 python3 tools/device/sdpa_anchor.py
if has refbwd; then
  step ref_ringattn_bwd 200 launcher/collbench-run --out "$OUT/results/reference" -- ringattn --algo single \
    --block-kernel both --pass bwd --seq 4K:32K --causal both -d bfloat16,half -n 10 -w 3 -c 1
  step attn_bwd_test 100 build/tests/gpu/attn_bwd_test --bench
  step sdpa_bwd 100 python3 tools/device/sdpa_anchor.py --backward
fi
grep -h "^bench\|^FAIL" "$OUT/logs/attn_kernel_test.log" 2> /dev/null | tail -30
grep -h "^sdpa cudnn" "$OUT/logs/sdpa.log" "$OUT/logs/sdpa_bwd.log" 2> /dev/null
grep -h "^bench" "$OUT/logs/attn_bwd_test.log" 2> /dev/null
grep -h "tests passed\|tests failed\|Failed\|\*\*\*" "$OUT/logs/"ctest_*.log 2> /dev/null | head -30
pack
