#!/usr/bin/env bash
# The multi-node measurements of issue 13 again on the current code, 2 x 2 virtual nodes under
# the CUDA MPS daemon (4 ranks on 2 x H200, NCCL between the nodes over its socket transport),
# NCCL in the same runs: all-to-all nccl / nccl_p2p / hier at 1 - 64 MiB and MoE nccl / hier
# (DeepSeek-V3, 128 and 4096 tokens per rank, bf16 and fp8 dispatch); then (RA=1, default) the
# ring-attention points S = 64K and 128K with 10 forwards. About 4 minutes after the build.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
begin
mps_start
run=(launcher/collbench-run --build build --out "$R/vnodes" --no-plots --vnodes 2 --gpus 2 --)
step a2a_2x2 60 "${run[@]}" alltoall --algo nccl,nccl_p2p,hier -b 1M -e 64M -f 4 -d bfloat16 -n 20 -w 5 -T 120
step moe_2x2 60 "${run[@]}" moe --algo nccl,hier --model deepseek-v3 --tokens 128,4096 -d bfloat16,fp8e4m3 -n 10 -w 3 -T 120
mps_stop
if [ "${RA:-1}" = 1 ]; then
  step ringattn 300 "${MPIRUN[@]}" "$CB" ringattn --seq 64K,128K -d bfloat16 --causal both -n 10 -w 2 -c 1 -T 200 \
    --csv "$R/ringattn.csv" --json "$R/ringattn.json"
fi
pack
