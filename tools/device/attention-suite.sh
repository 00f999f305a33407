#!/usr/bin/env bash
# The attention family on one GPU: builds collbench against the newest cuDNN on the machine
# (PyTorch's nvidia-cudnn package when present, through CUDNN_ROOT), then the steps named
# (none: all but refbwd):
#   bench           attn_kernel_test --bench: every block kernel variant against the fp32
#                   reference, timed
#   tests           the GPU tests of the attention kernels and the ring-attention family (one rank)
#   shared          the forward's ring tests with 2 ranks sharing the GPU (CB_SHARE_GPUS=1 under
#                   MPS): the ring's cross-rank paths with both block kernels, correctness only
#   sharedbwd       the same for the backward with collbench's kernel
#   sharedbwdcudnn  the same for the backward's cuDNN rows
#   ref             the reference run: launcher/collbench-run -- ringattn with both block kernels
#                   on one rank (P = 1: the kernels side by side), in DIR/results
#   sdpa            PyTorch SDPA's cuDNN and FlashAttention-2 backends on the same shapes
#                   (tools/device/sdpa_anchor.py)
#   refbwd          the backward's reference run (--pass bwd, bf16 and fp16), attn_bwd_test
#                   --bench and SDPA's backward (sdpa_anchor.py --backward)
#
#   tools/device/attention-suite.sh [--out DIR] [STEP...]
#
# Logs: DIR/logs (steps.txt, one file per step); DIR: --out, else $OUT, else ./out.
# Exit: 0 every step passed, 1 one failed, 2 bad arguments.
cd "$(dirname "$0")/../.." || exit 2
. tools/device/common.sh
device_args "bench tests shared sharedbwd sharedbwdcudnn ref sdpa refbwd" "$@"
has() { wanted "$1" && { [ ${#WORDS[@]} -gt 0 ] || [ "$1" != refbwd ]; }; }
build
rc=0
has bench && { step attn_kernel_test build/tests/gpu/attn_kernel_test --bench || rc=1; }
has tests && { gpu_suite ctest_attn '^gpu_(attn|ringattn)' -E '_shared4?$' || rc=1; }
if has shared || has sharedbwd || has sharedbwdcudnn; then
  mps_start
  export CB_SHARE_GPUS=1
  has shared && { gpu_suite ctest_attn_shared "^gpu_ringattn" -E "^gpu_ringattn_bwd" || rc=1; }
  has sharedbwd && { gpu_suite ctest_attn_shared_bwd "^gpu_ringattn_bwd" -E "_cudnn" || rc=1; }
  has sharedbwdcudnn && { gpu_suite ctest_attn_shared_bwd_cudnn "^gpu_ringattn_bwd_cudnn" || rc=1; }
  unset CB_SHARE_GPUS
  mps_stop
fi
if has ref; then
  step ref_ringattn launcher/collbench-run --out "$OUT/results" -- ringattn --algo single \
    --block-kernel both --seq 4K:32K --causal both -n 10 -w 3 -c 1 || rc=1
fi
has sdpa && { step sdpa python3 tools/device/sdpa_anchor.py || rc=1; }
if has refbwd; then
  step ref_ringattn_bwd launcher/collbench-run --out "$OUT/results" -- ringattn --algo single \
    --block-kernel both --pass bwd --seq 4K:32K --causal both -d bfloat16,half -n 10 -w 3 -c 1 || rc=1
  step attn_bwd_test build/tests/gpu/attn_bwd_test --bench || rc=1
  step sdpa_bwd python3 tools/device/sdpa_anchor.py --backward || rc=1
fi
grep -h "^bench\|^FAIL" "$OUT/logs/attn_kernel_test.log" 2> /dev/null | tail -30
grep -h "^sdpa cudnn" "$OUT/logs/sdpa.log" "$OUT/logs/sdpa_bwd.log" 2> /dev/null
grep -h "^bench" "$OUT/logs/attn_bwd_test.log" 2> /dev/null
grep -h "tests passed\|tests failed\|Failed\|\*\*\*" "$OUT/logs/"ctest_*.log 2> /dev/null | head -30
echo "attention-suite: $([ $rc = 0 ] && echo passed || echo FAILED); logs in $OUT/logs, runs in $OUT/results"
exit $rc
