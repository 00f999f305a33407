#!/usr/bin/env bash
# probe.c on the GPU machine: 4 ranks on GPU 0 under the CUDA MPS daemon, each rank its own NCCL
# host (NCCL_HOSTID=h<rank>: socket transport between all of them, as between collbench's
# virtual nodes), for off-node bytes per rank X = 128 KiB .. 32 MiB (X = half the all-to-all
# size per rank at 2 x 2). Output in $OUT/probe.txt (or /tmp/cb-socket-probe).
cd "$(dirname "$0")" || exit 1
OUT=${OUT:-/tmp/cb-socket-probe}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ nvidia-smi -L; nproc; env | grep '^NCCL_' | sort; } > "$OUT/probe.txt" 2>&1
INC=(-I/usr/local/cuda/include) LIB=(-L/usr/local/cuda/lib64 -L/usr/local/cuda/lib64/stubs)
mpicc -O2 -std=c11 "${INC[@]}" -o "$OUT/probe" probe.c "${LIB[@]}" -lnccl -lcudart >> "$OUT/probe.txt" 2>&1 ||
  { cat "$OUT/probe.txt"; exit 1; }
export CUDA_MPS_PIPE_DIRECTORY=/tmp/cb-mps CUDA_MPS_LOG_DIRECTORY=/tmp/cb-mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
nvidia-cuda-mps-control -d
timeout 300 mpirun -np 4 --allow-run-as-root --bind-to none \
  sh -c 'NCCL_HOSTID=h$OMPI_COMM_WORLD_RANK exec "$0" "$@"' "$OUT/probe" \
  131072 524288 2097152 8388608 33554432 >> "$OUT/probe.txt" 2>&1
rc=$?
echo quit | nvidia-cuda-mps-control
rm -f "$OUT/probe"
cat "$OUT/probe.txt"
exit $rc
