#!/usr/bin/env bash
# The GPU test suite on a machine with ONE GPU: build, `ctest -L gpu` without the virtual
# clusters (every test runs one rank; the fault tests and the 2 x 2 virtual cluster need 2 GPUs
# and skip), then the 2 x 1 virtual cluster tests with both ranks on GPU 0 under the CUDA MPS
# daemon (NCCL between the two "nodes" over its socket transport, the hier kernels on one GPU).
# What one rank cannot check: every cross-GPU path of the custom kernels (peer stores, flags,
# the decode protocol); tools/device/gpu-suite-shared-gpu.sh runs those with ranks sharing it.
# Steps past BUDGET seconds are skipped so the archive is always packed.
cd "$(dirname "$0")/../.." || exit 1
. tools/device/common.sh
BUDGET=${BUDGET:-520}
begin
nvidia-smi -L | tee -a "$OUT/logs/steps.txt"
gpu_suite ctest_gpu_1rank 330 "${SUITE_RE:-.}" -E gpu_vnodes
if [ $(( $(date +%s) - T0 )) -lt "$BUDGET" ]; then
  mps_start
  step ctest_vnodes_2x1 120 ctest --test-dir build -L gpu -R "gpu_vnodes_2x1" --output-on-failure --timeout 60
  mps_stop
  mkdir -p "$OUT/logs/gpu"; cp build/tests/gpu/gpu-vnodes*.log "$OUT/logs/gpu/" 2>/dev/null
else
  echo "skipped vnodes_2x1: past the ${BUDGET}s budget" | tee -a "$OUT/logs/steps.txt"
fi
pack
