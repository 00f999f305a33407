#!/usr/bin/env bash
# Does NCCL's socket transport carry more between two "nodes" when NCCL opens more channels per
# network peer? (issue 13: hier all-to-all sends one aggregated message per node pair and rail,
# so on 2 x 2 each rank has one network peer where NCCL's flat all-to-all has two.) One H200 as
# 2 virtual nodes x 1 GPU (both ranks on GPU 0 under the CUDA MPS daemon), all-to-all bf16
# 1 - 64 MiB, nccl and hier (with one rank per node hier is NCCL send/recv on the rail, so both
# measure the same transport), NCCL_NCHANNELS_PER_NET_PEER unset, 1, 2, 4, 8, then unset and 8
# again for the run-to-run spread. Last: more ranks than GPUs on this one-GPU machine must be a
# clear error.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
begin
mps_start
for ch in default 1 2 4 8 default2 8b; do
  env=()
  case $ch in default*) ;; *) env=("NCCL_NCHANNELS_PER_NET_PEER=${ch%b}") ;; esac
  step "a2a-$ch" 60 env ${env[@]+"${env[@]}"} launcher/collbench-run --build build --out "$R/$ch" --no-plots \
    --vnodes 2 --gpus 1 -- alltoall --algo nccl,hier -b 1M -e 64M -f 4 -d bfloat16 -n 20 -w 5 -T 120
done
mps_stop
step too-many-ranks 30 mpirun -np 2 --allow-run-as-root --bind-to none "$CB" allreduce --sizes 1M -n 2 -w 1
echo "too-many-ranks exit: $?" >> "$OUT/logs/steps.txt"
pack
