#!/usr/bin/env bash
# The reference runs on 2 x H200 (results/README.md lists them; copy a healthy run's folder
# to results/reference/h200x2/<family>[-<variant>]/): full sweeps of
# all-reduce and all-to-all (float and bfloat16, 8 B - 8 GiB, eager and graph, NCCL and custom
# in the same run), MoE (DeepSeek-V3 shape with bf16 and fp8 dispatch, Mixtral shape, and a
# --validate run) and ring attention (both block kernels, the forward and the training step,
# --pass both), through launcher/collbench-run exactly as a user runs it; then the GPU
# test suite. Results folders and logs land in logs.tgz. Arguments name the runs to make
# (allreduce allreduce_n20 alltoall moe moe_mixtral moe_validate ringattn ringattn_train
# ctest_gpu); none makes them all. A command is at most 10 minutes on the GPU machine: name a
# few runs per call.
cd "$(dirname "$0")/../.." || exit 1
RUNS="allreduce allreduce_n20 alltoall moe moe_mixtral moe_validate ringattn ringattn_train ctest_gpu"
. tools/device/common.sh
for w in "$@"; do need_word run "$w" "$RUNS"; done
begin
RUN=(launcher/collbench-run --build build --out "$OUT/results" --)
ONLY="$*"
want() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }
want allreduce && step allreduce 420 "${RUN[@]}" allreduce -b 8 -e 8G -f 2 -d float,bfloat16 --inplace 0 --mode both -n 100 -w 10 -T 60
# nccl-tests' own iteration count (-n 20), for the NCCL-vs-nccl-tests comparison: more
# iterations per timed round make NCCL's eager 1–4 MiB times 5–9 % faster than nccl-tests'
want allreduce_n20 && step allreduce_n20 200 "${RUN[@]}" allreduce --algo nccl,auto -b 8 -e 8G -f 2 -d float,bfloat16 --inplace 0 --mode both -n 20 -w 5 -T 60
want alltoall && step alltoall 170 "${RUN[@]}" alltoall -b 8 -e 8G -f 2 -d float,bfloat16 --mode both -n 20 -w 5 -T 60
want moe && step moe 100 "${RUN[@]}" moe --model deepseek-v3 --tokens 1:8192 -d bfloat16,fp8e4m3 --mode both -n 20 -w 5 -T 60
want moe_mixtral && step moe_mixtral 60 "${RUN[@]}" moe --model mixtral-8x7b --tokens 1:8192 --mode both -n 20 -w 5 -T 60
want moe_validate && step moe_validate 60 "${RUN[@]}" moe --model deepseek-v3 --tokens 4096 --validate -n 20 -w 5 -T 60
# ring attention with the Hopper block kernel beside cuDNN's: the forward (h200x2/ringattn),
# then the training step, forward + backward (issue 34's 2-GPU target: ring r/single <= 1.05
# from 16K, ahead of nccl_ring and nccl_allgather)
want ringattn && step ringattn 450 "${RUN[@]}" ringattn --block-kernel both --seq 4K:128K -d bfloat16 --causal both -n 5 -w 2 -c 1
want ringattn_train && step ringattn_train 450 "${RUN[@]}" ringattn --block-kernel both --pass both --seq 4K:128K -d bfloat16 --causal both -n 5 -w 2 -c 1
want ctest_gpu && gpu_suite ctest_gpu 300
pack
