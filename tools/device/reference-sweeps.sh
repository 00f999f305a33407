#!/usr/bin/env bash
# The reference runs of a 2-GPU machine (results/README.md lists the 2 x H200 ones; copy a
# healthy run's folder to results/reference/<gpu><count>/<family>[-<variant>]/ and list it
# there), through launcher/collbench-run exactly as a user runs it; the runs named (none: all):
#   allreduce       all-reduce, float and bfloat16, 8 B - 8 GiB, eager and graph, NCCL and
#                   every custom algorithm in the same run
#   allreduce_n20   nccl and auto at nccl-tests' own iteration count (-n 20), for the
#                   comparison with nccl-tests (more iterations per timed round make NCCL's
#                   eager 1-4 MiB 5-9 % faster)
#   alltoall        all-to-all, the same sizes
#   moe             MoE DeepSeek-V3 shape, bf16 and fp8 dispatch, 1 - 8192 tokens per rank
#   moe_mixtral     MoE Mixtral-8x7B shape
#   moe_validate    a --validate run
#   ringattn        ring attention with the Hopper block kernel beside cuDNN's, the forward
#   ringattn_train  the training step, forward + backward (--pass both)
#
#   tools/device/reference-sweeps.sh [--out DIR] [RUN...]
#
# Run folders in DIR/results (one per family, as collbench-run names them), logs in DIR/logs;
# DIR: --out, else $OUT, else ./out. Exit: 0 every run passed, 1 one failed, 2 bad arguments.
cd "$(dirname "$0")/../.." || exit 2
. tools/device/common.sh
device_args "allreduce allreduce_n20 alltoall moe moe_mixtral moe_validate ringattn ringattn_train" "$@"
build
RUN=(launcher/collbench-run --build build --out "$OUT/results" --)
rc=0
sweep() { # sweep NAME COLLBENCH_ARGS...: one collbench-run when NAME is wanted
  local name=$1
  shift
  wanted "$name" || return 0
  step "$name" "${RUN[@]}" "$@" || rc=1
}
sweep allreduce allreduce -b 8 -e 8G -f 2 -d float,bfloat16 --inplace 0 --mode both -n 100 -w 10 -T 60
sweep allreduce_n20 allreduce --algo nccl,auto -b 8 -e 8G -f 2 -d float,bfloat16 --inplace 0 --mode both -n 20 -w 5 -T 60
sweep alltoall alltoall -b 8 -e 8G -f 2 -d float,bfloat16 --mode both -n 20 -w 5 -T 60
sweep moe moe --model deepseek-v3 --tokens 1:8192 -d bfloat16,fp8e4m3 --mode both -n 20 -w 5 -T 60
sweep moe_mixtral moe --model mixtral-8x7b --tokens 1:8192 --mode both -n 20 -w 5 -T 60
sweep moe_validate moe --model deepseek-v3 --tokens 4096 --validate -n 20 -w 5 -T 60
sweep ringattn ringattn --block-kernel both --seq 4K:128K -d bfloat16 --causal both -n 5 -w 2 -c 1
sweep ringattn_train ringattn --block-kernel both --pass both --seq 4K:128K -d bfloat16 --causal both -n 5 -w 2 -c 1
echo "reference-sweeps: $([ $rc = 0 ] && echo passed || echo FAILED); runs in $OUT/results, logs in $OUT/logs"
exit $rc
