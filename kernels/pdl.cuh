/* Programmatic dependent launch (sm_90+): a kernel launched with cb_launch_pdl may start while
 * the previous kernel in its stream still runs; its blocks take SMs as the previous kernel's
 * blocks leave, so the launch latency no longer sits between the two kernels. Used by moe
 * peer_ll's decode pair (moe_dispatch_ll.cu, moe_combine.cu: 1.1 -> 0.8 and 2.2 -> 0.8 us
 * between the kernels on 2 x H200; docs/decisions/moe.md).
 *
 * The contract for such a kernel: call cb_griddep_wait() before any global memory access (it
 * returns once the previous grid has completed and its memory is visible, so everything earlier
 * in the stream is complete, as without PDL), and cb_griddep_launch() to let the next kernel
 * launch. A kernel whose blocks wait on each other or on peers stays deadlock-free when every
 * block calls cb_griddep_launch() right after cb_griddep_wait(), before waiting for anything
 * else: the next grid is launched only once every block of this one has got there, so the
 * blocks being waited for are all resident. Both are no-ops
 * for a kernel launched without the attribute, and below sm_90 (so a build for an older
 * architecture JIT-compiled on sm_90 would lose the wait while the launch attribute still acts:
 * the build targets sm_90, CMAKE_CUDA_ARCHITECTURES, which keeps the two together).
 * Assumed, not stated by the PTX manual: the wait also covers what the previous grid acquired
 * from other GPUs (peer_ll's combine reads rows its dispatch saw flagged by the peers). */
#ifndef CB_PDL_CUH
#define CB_PDL_CUH

#include <cuda_runtime.h>

__device__ __forceinline__ void cb_griddep_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void cb_griddep_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* kernel<<<grid, block, 0, s>>>(args...) with programmatic stream serialization. */
template <class... Params, class... Args>
inline cudaError_t cb_launch_pdl(void (*kernel)(Params...), int grid, int block, cudaStream_t s, Args &&...args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((unsigned)grid);
  cfg.blockDim = dim3((unsigned)block);
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, static_cast<Args &&>(args)...);
}

#endif
