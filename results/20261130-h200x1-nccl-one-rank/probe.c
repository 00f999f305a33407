/* Which reductions NCCL accepts on a one-rank communicator: every dtype collbench knows and
 * every op, for all-reduce and reduce-scatter, on plain cudaMalloc buffers (what `nccl` uses).
 * Prints one line per call with NCCL's return code. Found because collbench's `nccl` all-reduce
 * exited with "NCCL error 4: invalid argument" for fp8 avg when run with one rank.
 * Build: nvcc -O2 probe.c -lnccl -o probe (CUDA 13, NCCL 2.28.3); run: NCCL_DEBUG=WARN ./probe */
#include <stdio.h>
#include <cuda_runtime.h>
#include <nccl.h>

int main(void) {
  ncclComm_t comm;
  int dev = 0;
  if (ncclCommInitAll(&comm, 1, &dev) != ncclSuccess) { printf("init failed\n"); return 1; }
  cudaStream_t s;
  cudaStreamCreate(&s);
  void *a, *b;
  cudaMalloc(&a, 1 << 20);
  cudaMalloc(&b, 1 << 20);
  const ncclDataType_t types[] = {ncclFloat32, ncclFloat16, ncclBfloat16, ncclFloat8e4m3, ncclFloat8e5m2};
  const char *tnames[] = {"float", "half", "bfloat16", "fp8e4m3", "fp8e5m2"};
  const ncclRedOp_t ops[] = {ncclSum, ncclMax, ncclMin, ncclAvg, ncclProd};
  const char *onames[] = {"sum", "max", "min", "avg", "prod"};
  for (int t = 0; t < 5; t++)
    for (int o = 0; o < 5; o++)
      for (int coll = 0; coll < 2; coll++) {
        ncclResult_t r = coll == 0 ? ncclAllReduce(a, b, 1024, types[t], ops[o], comm, s)
                                   : ncclReduceScatter(a, b, 1024, types[t], ops[o], comm, s);
        cudaError_t e = cudaStreamSynchronize(s);
        printf("%-13s %-8s %-4s -> %s%s\n", coll == 0 ? "allreduce" : "reducescatter", tnames[t], onames[o],
               ncclGetErrorString(r), e == cudaSuccess ? "" : " (CUDA error after it)");
      }
  ncclCommDestroy(comm);
  return 0;
}
