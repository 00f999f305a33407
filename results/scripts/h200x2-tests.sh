#!/usr/bin/env bash
# The GPU test suite on the GPU machine: build, ctest -L gpu, logs in logs.tgz.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
build || { pack; exit 1; }
step ctest_gpu 420 ctest --test-dir build -L gpu --output-on-failure --timeout 240
mkdir -p "$OUT/logs/gpu"; cp build/tests/gpu/*.log "$OUT/logs/gpu/" 2>/dev/null
pack
