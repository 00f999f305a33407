#!/usr/bin/env bash
# Second look on 2 x H200: timing-method and kernel-variant experiments (per-iteration events
# vs round events; LL vs flag one-shot; two-shot grid size), first MoE and all-to-all numbers,
# then the GPU test suite. Everything lands in logs.tgz.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
begin
small="--sizes 8,256,4K,64K,256K,1M -d bfloat16 --inplace 0 -n 200 -w 20 -T 60"
step small_graph_iter 60 "${MPIRUN[@]}" $CB allreduce --algo nccl,oneshot,oneshot_ll,twoshot $small -G --timing iter --csv $R/small_graph_iter.csv
step small_graph_round 60 "${MPIRUN[@]}" $CB allreduce --algo nccl,oneshot,oneshot_ll,twoshot $small -G --timing round --csv $R/small_graph_round.csv
step small_eager_round 60 "${MPIRUN[@]}" $CB allreduce --algo nccl,oneshot,oneshot_ll,twoshot $small --timing round --csv $R/small_eager_round.csv
for b in 64 132 256; do
  CB_MAX_BLOCKS=$b step big_blocks$b 90 "${MPIRUN[@]}" $CB allreduce --algo nccl,twoshot --sizes 16M,64M,512M,2G -d float --inplace 0 -n 10 -w 2 --timing round -T 60 --csv $R/big_blocks$b.csv
done
step a2a 90 "${MPIRUN[@]}" $CB alltoall --algo nccl,peer -b 8 -e 1G -f 8 -d float -n 20 -w 3 -T 60 --csv $R/a2a.csv
step moe 120 "${MPIRUN[@]}" $CB moe --model deepseek-v3 --tokens 128,512,4096 --mode both -n 10 -w 2 -T 60 --csv $R/moe.csv
gpu_suite ctest_gpu 360
pack
