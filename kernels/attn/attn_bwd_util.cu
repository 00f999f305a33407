/* Device side of the backward pass's fp32 element-wise helpers (attn_bwd_util.h): a += b and
 * rounding to the 16-bit dtype, which the ring schedules and the check use. Memory-bound, one
 * pass each. (delta, the backward's preprocess, is attn_bwd_preprocess.cu.) */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "attn_bwd_util.h"
#include "dtype.cuh"
#include "error_gpu.h"
#include "grid.h"

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 4096;

__global__ void __launch_bounds__(kThreads) add_kernel(float *dst, const float *src, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    dst[i] += src[i];
}

template <typename T>
__global__ void __launch_bounds__(kThreads) round_kernel(float *x, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    x[i] = cb_scalar<T>::to_float(cb_scalar<T>::from_float(x[i]));
}

} // namespace

extern "C" void cb_attn_f32_add(float *dst, const float *src, size_t n, cudaStream_t s) {
  if (!n) return;
  add_kernel<<<cb_grid_blocks(n, kThreads, kMaxBlocks), kThreads, 0, s>>>(dst, src, n);
  CB_CUDA_LAUNCH("attn bwd add_kernel");
}

extern "C" void cb_attn_f32_round(float *x, size_t n, int bf16, cudaStream_t s) {
  if (!n) return;
  const int grid = cb_grid_blocks(n, kThreads, kMaxBlocks);
  if (bf16) round_kernel<__nv_bfloat16><<<grid, kThreads, 0, s>>>(x, n);
  else round_kernel<__half><<<grid, kThreads, 0, s>>>(x, n);
  CB_CUDA_LAUNCH("attn bwd round_kernel");
}
