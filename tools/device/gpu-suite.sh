#!/usr/bin/env bash
# The GPU test suite on the GPU machine: build, ctest -L gpu (or only the tests matching the
# optional regex argument), logs in logs.tgz.
cd "$(dirname "$0")/../.." || exit 1
. tools/device/common.sh
begin
gpu_suite ctest_gpu 420 "${1:-}"
pack
