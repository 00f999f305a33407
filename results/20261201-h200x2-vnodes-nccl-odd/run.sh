#!/usr/bin/env bash
# 2 x H200: main's GPU suite with a GPU per rank (the 2 x 1 and 2 x 2 virtual clusters under the
# CUDA MPS daemon as the harness runs them), and a diagnosis of the wrong NCCL rows that the 2 x 2
# all-to-all test showed in this session's first 2-GPU run (all four NCCL forms, fp8, 4 MiB + 4 B,
# i.e. blocks of 1048577 bytes; on-node blocks, which NCCL moves over P2P, not delivered): the
# same all-to-all on 2 x 2 with NCCL's transport lines (NCCL_DEBUG=INFO), block sizes odd and
# even, 1-byte and 4-byte elements, under MPS and without it, with NCCL's P2P transport off.
#   bash results/20261201-h200x2-vnodes-nccl-odd/run.sh        (about 8 minutes; needs 2 GPUs)
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
[ "$NGPU" -ge 2 ] || { echo "$0: needs 2 GPUs, this machine has $NGPU" >&2; exit 2; }
begin
[ "${SUITE:-1}" = 1 ] && gpu_suite suite 360 . -E gpu_vnodes
diag() { # diag NAME VAR=VALUE... -- collbench alltoall options
  local name=$1
  shift
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  step "diag-$name" 60 env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,NET ${envs[@]+"${envs[@]}"} \
    launcher/collbench-run --out "$R/$name" --no-plots --vnodes 2 --gpus 2 -- alltoall --algo nccl,nccl_p2p,hier "$@" -n 3 -w 1 -c 2 -T 40
}
mps_start
step vnodes 150 ctest --test-dir build -L gpu -R gpu_vnodes --output-on-failure --timeout 60
mkdir -p "$OUT/logs/vnodes"; cp build/tests/gpu/gpu-vnodes*.log "$OUT/logs/vnodes/" 2>/dev/null
diag fp8-odd -- -d fp8e4m3 --sizes 4194308,4194304,1048580,262148
diag f32-odd -- -d float --sizes 16777232,4194320
diag fp8-odd-nop2p NCCL_P2P_DISABLE=1 -- -d fp8e4m3 --sizes 4194308,1048580
diag fp8-odd-simple NCCL_PROTO=Simple -- -d fp8e4m3 --sizes 4194308,1048580
mps_stop
diag fp8-odd-nomps -- -d fp8e4m3 --sizes 4194308,4194304,1048580
step plain-fp8-odd 60 env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P "${MPIRUN[@]}" $CB alltoall --algo nccl,nccl_p2p,peer -d fp8e4m3 --sizes 2097154,4194306,2097156 -n 3 -w 1 -c 2 -T 40
pack
