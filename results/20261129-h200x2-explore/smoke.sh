#!/usr/bin/env bash
# First look on the 2 x H200 machine: build, quick all-reduce and all-to-all sweeps (NCCL and
# custom, float and bfloat16), then the GPU test suite. Logs and CSVs come back in logs.tgz.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
begin
step ar_float 150 "${MPIRUN[@]}" $CB allreduce -b 8 -e 1G -f 4 -d float --inplace 0 -n 20 -w 3 -T 40 --csv "$OUT/results/ar_float.csv"
step ar_bf16_graph 120 "${MPIRUN[@]}" $CB allreduce -b 8 -e 256M -f 4 -d bfloat16 --inplace 0 --mode both -n 20 -w 3 -T 40 --csv "$OUT/results/ar_bf16.csv"
step a2a 90 "${MPIRUN[@]}" $CB alltoall -b 8 -e 1G -f 8 -d float -n 20 -w 3 -T 40 --csv "$OUT/results/a2a.csv"
gpu_suite ctest_gpu 330
pack
