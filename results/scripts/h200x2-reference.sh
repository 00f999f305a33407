#!/usr/bin/env bash
# The committed reference runs on 2 x H200 (results/README.md lists them): full sweeps of
# all-reduce and all-to-all (float and bfloat16, 8 B - 8 GiB, eager and graph, NCCL and custom
# in the same run) and MoE (DeepSeek-V3 shape, bf16 and fp8 dispatch), through
# launcher/collbench-run exactly as a user runs it. Results folders land in logs.tgz.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
build || { pack; exit 1; }
RUN=(launcher/collbench-run --build build --out "$OUT/results" --)
step allreduce 240 "${RUN[@]}" allreduce -b 8 -e 8G -f 2 -d float,bfloat16 --inplace 0 --mode both -n 20 -w 5 -T 60
step alltoall 170 "${RUN[@]}" alltoall -b 8 -e 8G -f 2 -d float,bfloat16 --mode both -n 20 -w 5 -T 60
step moe 100 "${RUN[@]}" moe --model deepseek-v3 --tokens 1:8192 -d bfloat16,fp8e4m3 --mode both -n 20 -w 5 -T 60
pack
