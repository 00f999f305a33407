#!/usr/bin/env bash
# The 2 s exit guard (CB_EXIT_GUARD_S, base/error.h; 91b3090) on the GPU: the three NCCL fault
# tests on ONE H200, where they run as 2 virtual nodes x 1 GPU and NCCL's abort hangs over its
# socket transport with the peer stopped (with the old 4 s guard they ended 15.2-15.4 s after
# the fault, past the tests' T + 5 = 15 s: results/20261130-h200x1-decode-1rank). Build, then
# ctest for the three; their collbench logs come back under logs/gpu/.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
begin
gpu_suite fault_one_gpu 150 "gpu_fault_(sigstop_nccl|nccl_stall|nccl_stop)"
pack
