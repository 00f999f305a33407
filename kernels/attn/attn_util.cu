/* Device side of attn_util.h: seeded attention inputs, output error against a reference, and
 * the ring-attention step flags. All small, memory-bound kernels off the critical path except
 * the flag kernels (one thread each, a few microseconds per ring step). */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>

#include "attn_merge.h"
#include "attn_util.h"
#include "error_gpu.h"
#include "grid.h"
#include "pattern.cuh"
#include "signal.cuh"

namespace {

constexpr int kFillThreads = 256;
constexpr int kErrorThreads = 256;
constexpr int kErrorBlocks = 1024;

__device__ __forceinline__ float uniform01(uint64_t h) { return (float)(h >> 40) * (1.0f / 16777216.0f); }

template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16(x);
}
template <>
__device__ __forceinline__ __half from_float<__half>(float x) {
  return __float2half(x);
}

template <typename T>
__global__ void __launch_bounds__(kFillThreads)
    fill_kernel(T *x, int t, int batch, int64_t rows, int heads, int dim, cb_attn_pos_t pos, uint64_t seed) {
  const size_t n = (size_t)batch * rows * heads * dim;
  const float amp = t == 2 ? 1.0f : 2.0f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    size_t d = i % dim, h = (i / dim) % heads, r = (i / ((size_t)dim * heads)) % rows,
           b = i / ((size_t)dim * heads * rows);
    int64_t p = cb_attn_pos_at(pos.start0, pos.len0, pos.start1, pos.stride, (int64_t)r);
    uint64_t key = cb_mix64(seed ^ cb_mix64(((uint64_t)t << 56) ^ ((uint64_t)b << 40) ^ (uint64_t)p));
    key = cb_mix64(key ^ ((uint64_t)h << 20) ^ (uint64_t)d);
    x[i] = from_float<T>(amp * (2.0f * uniform01(key) - 1.0f));
  }
}

template <typename T>
__device__ __forceinline__ float to_float(T x);
template <>
__device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
template <>
__device__ __forceinline__ float to_float<__half>(__half x) {
  return __half2float(x);
}
template <>
__device__ __forceinline__ float to_float<float>(float x) {
  return x;
}

/* Max of non-negative doubles through their bit patterns (ordered like the values). */
__device__ __forceinline__ void atomic_max_nonneg(double *p, double v) {
  atomicMax((unsigned long long *)p, (unsigned long long)__double_as_longlong(v));
}

template <typename T>
__global__ void __launch_bounds__(kErrorThreads)
    error_kernel(const T *out, const float *ref, size_t n, float tol, double *acc) {
  double sum = 0.0, mx = 0.0, bad = 0.0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float e = fabsf(to_float(out[i]) - ref[i]);
    if (!isfinite(e)) e = INFINITY;
    sum += e;
    mx = fmax(mx, (double)e);
    bad += e > tol ? 1.0 : 0.0;
  }
  for (int o = 16; o > 0; o >>= 1) {
    sum += __shfl_xor_sync(0xffffffffu, sum, o);
    mx = fmax(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    bad += __shfl_xor_sync(0xffffffffu, bad, o);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&acc[0], sum);
    atomic_max_nonneg(&acc[1], mx);
    atomicAdd(&acc[2], bad);
  }
}

__global__ void iter_advance_kernel(uint32_t *counter) { *counter += 1; }

__global__ void flag_set_kernel(uint32_t *flag, const uint32_t *counter, uint32_t per_iter, uint32_t k) {
  cb_st_release_sys(flag, (*counter - 1u) * per_iter + k);
}

__global__ void flag_wait_kernel(const uint32_t *flag, const uint32_t *counter, uint32_t per_iter, uint32_t k,
                                 uint64_t timeout_ns, unsigned int *ctl, int rank, int peer, int step) {
  cb_wait_geq_acquire_sys(flag, (*counter - 1u) * per_iter + k, timeout_ns, ctl, rank, peer, step);
}

} // namespace

extern "C" void cb_attn_fill(void *x, int bf16, int t, int batch, int64_t rows, int heads, int dim, cb_attn_pos_t pos,
                             uint64_t seed, cudaStream_t s) {
  size_t n = (size_t)batch * rows * heads * dim;
  if (!n) return;
  int grid = cb_grid_blocks(n, kFillThreads, 8192);
  if (bf16) fill_kernel<<<grid, kFillThreads, 0, s>>>((__nv_bfloat16 *)x, t, batch, rows, heads, dim, pos, seed);
  else fill_kernel<<<grid, kFillThreads, 0, s>>>((__half *)x, t, batch, rows, heads, dim, pos, seed);
  CB_CUDA_LAUNCH("attn fill_kernel");
}

extern "C" void cb_attn_error(const void *out, int bf16, const float *ref, size_t n, float tol, double *acc,
                              cudaStream_t s) {
  if (!n) return;
  int grid = cb_grid_blocks(n, kErrorThreads, kErrorBlocks);
  if (bf16) error_kernel<<<grid, kErrorThreads, 0, s>>>((const __nv_bfloat16 *)out, ref, n, tol, acc);
  else error_kernel<<<grid, kErrorThreads, 0, s>>>((const __half *)out, ref, n, tol, acc);
  CB_CUDA_LAUNCH("attn error_kernel");
}

extern "C" void cb_attn_error_f32(const float *out, const float *ref, size_t n, float tol, double *acc,
                                  cudaStream_t s) {
  if (!n) return;
  error_kernel<<<cb_grid_blocks(n, kErrorThreads, kErrorBlocks), kErrorThreads, 0, s>>>(out, ref, n, tol, acc);
  CB_CUDA_LAUNCH("attn error_kernel (fp32)");
}

extern "C" void cb_ring_iter_advance(uint32_t *counter, cudaStream_t s) {
  iter_advance_kernel<<<1, 1, 0, s>>>(counter);
  CB_CUDA_LAUNCH("ring iter_advance_kernel");
}

extern "C" void cb_ring_flag_set(uint32_t *flag, const uint32_t *counter, uint32_t per_iter, uint32_t k,
                                 cudaStream_t s) {
  flag_set_kernel<<<1, 1, 0, s>>>(flag, counter, per_iter, k);
  CB_CUDA_LAUNCH("ring flag_set_kernel");
}

extern "C" void cb_ring_flag_wait(const uint32_t *flag, const uint32_t *counter, uint32_t per_iter, uint32_t k,
                                  uint64_t timeout_ns, unsigned int *ctl, int rank, int peer, int step,
                                  cudaStream_t s) {
  flag_wait_kernel<<<1, 1, 0, s>>>(flag, counter, per_iter, k, timeout_ns, ctl, rank, peer, step);
  CB_CUDA_LAUNCH("ring flag_wait_kernel");
}
