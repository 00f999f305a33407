#!/usr/bin/env bash
# Third look on 2 x H200 (session 2): the LL one-shot with coalesced 16-byte lines at 1–256 KiB
# (graph and eager, against flag oneshot and NCCL), and twoshot_pull (no scratch) against
# twoshot at 16 MiB – 4 GiB over grid sizes; then the all-reduce GPU tests. Lands in logs.tgz.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
begin
small="--sizes 8,1K,4K,8K,16K,32K,64K,128K,256K -d float --inplace 0 -n 400 -w 20 -T 60"
step small_graph 90 "${MPIRUN[@]}" $CB allreduce --algo nccl,oneshot,oneshot_ll,auto $small -G --csv $R/small_graph.csv
step small_eager 90 "${MPIRUN[@]}" $CB allreduce --algo nccl,oneshot,oneshot_ll,auto $small --csv $R/small_eager.csv
big="--sizes 16M,64M,256M,1G,4G -d float --inplace 0 -n 10 -w 2 -T 60"
step big_default 120 "${MPIRUN[@]}" $CB allreduce --algo nccl,twoshot,twoshot_pull $big --csv $R/big_default.csv
for b in 264 512; do
  CB_MAX_BLOCKS=$b step big_blocks$b 120 "${MPIRUN[@]}" $CB allreduce --algo twoshot,twoshot_pull $big --csv $R/big_blocks$b.csv
done
gpu_suite ctest_allreduce 400 "allreduce_custom|allreduce_memcheck|allreduce_racecheck"
pack
