#!/usr/bin/env bash
# A short check on 2 x H200 after a change that should not move performance: the GPU test
# suite, then the two-shot forms at a few sizes (compare with the reference run's rows).
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
build || { pack; exit 1; }
mkdir -p "$OUT/results"
step spot 120 "${MPIRUN[@]}" build/launcher/collbench allreduce --algo nccl,oneshot_ll,twoshot,twoshot_pull,twoshot_ce,auto --sizes 8,64K,16M,64M,1G -d float --inplace 0 --mode both -n 100 -w 10 -T 60 --csv "$OUT/results/spot.csv"
step ctest_gpu 300 ctest --test-dir build -L gpu --output-on-failure --timeout 240
mkdir -p "$OUT/logs/gpu"; cp build/tests/gpu/*.log "$OUT/logs/gpu/" 2>/dev/null
pack
