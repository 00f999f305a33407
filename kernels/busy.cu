/* The compute-bound kernel of busy.h: FMA chains in registers, one block per SM. Each block
 * takes as much shared memory as one block may (it uses none of it), so no block of another
 * kernel shares its SM while it runs (each block reserves some shared memory), the way a
 * persistent GEMM holds its SMs. And the gate kernel that holds a stream while the host queues. */
#include "busy.h"
#include "error_gpu.h"
#include "signal.cuh"

namespace {

constexpr int kBusyThreads = 1024;

__global__ void __launch_bounds__(kBusyThreads) busy_kernel(long long steps, float *sink) {
  float a[8];
  const float m = 1.0f - 1e-7f, c = 1e-7f * (float)(threadIdx.x + 1);
#pragma unroll
  for (int i = 0; i < 8; i++) a[i] = (float)(i + threadIdx.x);
  for (long long k = 0; k < steps; k++)
#pragma unroll
    for (int i = 0; i < 8; i++) a[i] = fmaf(a[i], m, c);
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < 8; i++) s += a[i];
  sink[(size_t)blockIdx.x * kBusyThreads + threadIdx.x] = s; /* keeps the chains alive */
}

/* One thread waits ns nanoseconds (the global timer), holding its stream. */
__global__ void gate_kernel(long long ns) {
  const uint64_t t0 = cb_globaltimer_ns();
  do __nanosleep(1000);
  while ((long long)(cb_globaltimer_ns() - t0) < ns);
}

} // namespace

extern "C" int cb_busy_setup(void) {
  int dev = 0, optin = 0;
  CB_CUDA(cudaGetDevice(&dev));
  CB_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  CB_CUDA(cudaFuncSetAttribute(busy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
  int per_sm = 0;
  CB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, busy_kernel, kBusyThreads, optin));
  if (per_sm != 1)
    CB_DIE(CB_EXIT_RUNTIME,
           "busy_kernel: %d blocks fit on one SM with %d bytes of shared memory each; the compute "
           "kernel of --overlap must hold whole SMs (one block each)",
           per_sm, optin);
  return optin;
}

extern "C" void cb_busy_gate(long long ns, cudaStream_t s) {
  gate_kernel<<<1, 1, 0, s>>>(ns);
  CB_CUDA_LAUNCH("gate_kernel");
}

extern "C" size_t cb_busy_sink_floats(int blocks) { return (size_t)blocks * kBusyThreads; }

extern "C" void cb_busy_launch(int blocks, long long steps, int smem, float *sink, cudaStream_t s) {
  busy_kernel<<<blocks, kBusyThreads, smem, s>>>(steps, sink);
  CB_CUDA_LAUNCH("busy_kernel");
}
