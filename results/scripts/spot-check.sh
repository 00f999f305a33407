#!/usr/bin/env bash
# A short check on 2 x H200 after a change that should not move performance: the two-shot
# forms and auto at a few sizes (compare with the reference run's rows and the earlier spot
# checks in results/20261129-h200x2-spot/), then the GPU test suite.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
begin
step spot 120 "${MPIRUN[@]}" $CB allreduce --algo nccl,oneshot_ll,twoshot,twoshot_pull,twoshot_ce,auto --sizes 8,64K,16M,64M,1G -d float --inplace 0 --mode both -n 100 -w 10 -T 60 --csv "$OUT/results/spot.csv"
gpu_suite ctest_gpu 300
pack
