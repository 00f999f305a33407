#!/usr/bin/env bash
# The GPU test suite on ONE GPU with ranks sharing it (CB_SHARE_GPUS=1 under the CUDA MPS
# daemon; README "Sharing a GPU within a node"): every test that would skip for want of a second
# GPU, and the plain ones, run 2 ranks as one virtual node on GPU 0 (2 x 2 virtual clusters: 4
# ranks), so the custom kernels' cross-rank paths (peer stores through CUDA IPC, flags, fences,
# the fault handling) run on a one-GPU machine. Correctness only: NCCL joins every rank over its
# socket transport and the ranks split the GPU's SMs.
#   SUITE_RE=REGEX   only these tests (default: all but the NCCL-only ones, which gain nothing
#                    from sharing: their socket paths ran in the 2 x 1 virtual clusters); "-":
#                    none (only the patched tree's)
#   CB_TEST_RANKS=N  plain tests run N ranks (2..8, default 2) on the one GPU: the custom
#                    kernels' paths for 4 or 8 ranks of a node, which no 2-GPU run reaches
#   PATCH=FILE       also build the tree with FILE applied (build_patched) and run
#                    PATCH_RE's tests there with PATCH_ENV (e.g. a branch's knob)
# Steps past BUDGET seconds are skipped so the archive is always packed.
cd "$(dirname "$0")/../.." || exit 1
. tools/device/common.sh
BUDGET=${BUDGET:-520}
[ -z "${PATCH:-}" ] || need_patch "$PATCH"
begin
nvidia-smi -L | tee -a "$OUT/logs/steps.txt"
export CB_SHARE_GPUS=1
mps_start
[ "${SUITE_RE:-}" = - ] ||
  gpu_suite ctest_shared "${SUITE_LIMIT:-420}" "${SUITE_RE:-^gpu_(allreduce|alltoall|moe|sms|ringattn|attn|vnodes_2x2|fault|sm8)}"
if [ -n "${PATCH:-}" ]; then
  if [ $(( $(date +%s) - T0 )) -lt "$BUDGET" ]; then
    build_patched /tmp/cb-patched "$PATCH" build-patched
    # shellcheck disable=SC2086  # PATCH_ENV is a list of VAR=value words
    step ctest_patched 200 env ${PATCH_ENV:-} ctest --test-dir /tmp/cb-patched/build -L gpu -R "${PATCH_RE:-.}" --output-on-failure --timeout 120
    mkdir -p "$OUT/logs/patched-gpu"; cp /tmp/cb-patched/build/tests/gpu/*.log "$OUT/logs/patched-gpu/" 2>/dev/null
  else
    echo "skipped the patched tree: past the ${BUDGET}s budget" | tee -a "$OUT/logs/steps.txt"
  fi
fi
mps_stop
pack
