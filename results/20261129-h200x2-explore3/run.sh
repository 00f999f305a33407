#!/usr/bin/env bash
# Fourth look on 2 x H200 (session 2): where the coalesced LL one-shot stops beating the flag
# one-shot (256 KiB – 4 MiB, float and bfloat16, graph and eager), and twoshot_ce (copy-engine
# reduce-scatter) against twoshot over chunk sizes and grids; then the all-reduce GPU tests.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
begin
mid="--sizes 128K,256K,512K,1M,2M,4M -d float,bfloat16 --inplace 0 -n 200 -w 20 -T 60"
step mid_graph 90 "${MPIRUN[@]}" $CB allreduce --algo oneshot,oneshot_ll,twoshot $mid -G --csv $R/mid_graph.csv
step mid_eager 90 "${MPIRUN[@]}" $CB allreduce --algo oneshot,oneshot_ll,twoshot $mid --csv $R/mid_eager.csv
big="--sizes 16M,64M,256M,1G,4G -d float --inplace 0 -n 10 -w 2 -T 60"
step ce_default 120 "${MPIRUN[@]}" $CB allreduce --algo nccl,twoshot,twoshot_ce $big --csv $R/ce_default.csv
step ce_graph 120 "${MPIRUN[@]}" $CB allreduce --algo twoshot,twoshot_ce --sizes 64M,1G -d bfloat16 -G -n 10 -w 2 -T 60 --csv $R/ce_graph.csv
for c in 2M 32M; do
  CB_AR_CE_CHUNK=$(( ${c%M} << 20 )) step ce_chunk$c 120 "${MPIRUN[@]}" $CB allreduce --algo twoshot_ce $big --csv $R/ce_chunk$c.csv
done
CB_MAX_BLOCKS=64 step ce_blocks64 120 "${MPIRUN[@]}" $CB allreduce --algo twoshot_ce $big --csv $R/ce_blocks64.csv
gpu_suite ctest_allreduce 400 "allreduce_custom|allreduce_memcheck|allreduce_racecheck"
pack
