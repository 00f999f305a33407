#!/usr/bin/env bash
# The GPU test suite on this machine: builds (against PyTorch's cuDNN when present, as
# attention-suite.sh: common.sh's build), then
#   one     ctest -L gpu: every test with one rank per GPU (on one GPU, one rank: the tests that
#           need two GPUs skip), the virtual clusters apart;
#   shared  under the CUDA MPS daemon, ranks sharing the GPUs: the 2 x 1 virtual cluster (NCCL
#           between the two "nodes" over its socket transport), then with CB_SHARE_GPUS=1 every
#           test that would skip for want of a second GPU and the plain ones with 2 ranks on a
#           GPU (CB_TEST_RANKS=N for N ranks, 2..8; README "Sharing a GPU within a node"), so the
#           custom kernels' cross-rank paths (peer stores through CUDA IPC, flags, fences, the
#           fault handling) run on a one-GPU machine. Correctness only.
#
#   tools/device/gpu-suite.sh [--out DIR] [-R REGEX] [one] [shared]
#
# No word runs both. -R REGEX runs only the tests it matches (in both steps). Logs: DIR/logs
# (steps.txt, one file per step, each test's collbench log in logs/gpu/); DIR: --out, else $OUT,
# else ./out.
# Exit: 0 every step passed, 1 one failed (the build, or a test: see its log), 2 bad arguments.
cd "$(dirname "$0")/../.." || exit 2
. tools/device/common.sh
only=""
args=()
while [ $# -gt 0 ]; do
  if [ "$1" = -R ]; then
    [ $# -ge 2 ] && [ -n "$2" ] || { printf '%s: -R needs a regular expression\n' "$0" >&2; exit 2; }
    only=$2
    shift 2
  else
    args+=("$1")
    shift
  fi
done
device_args "one shared" ${args[@]+"${args[@]}"}
build
say "$(nvidia-smi -L 2>&1)"
rc=0
if wanted one; then
  gpu_suite ctest_gpu "${only:-.}" -E gpu_vnodes || rc=1
fi
if wanted shared; then
  mps_start
  [ -n "$only" ] || gpu_suite ctest_vnodes_2x1 "gpu_vnodes_2x1" || rc=1
  export CB_SHARE_GPUS=1
  gpu_suite ctest_shared "${only:-^gpu_(allreduce|alltoall|moe|sms|ringattn|attn|vnodes_2x2|fault|sm8)}" || rc=1
  unset CB_SHARE_GPUS
  mps_stop
fi
echo "gpu-suite: $([ $rc = 0 ] && echo passed || echo FAILED); logs in $OUT/logs"
exit $rc
