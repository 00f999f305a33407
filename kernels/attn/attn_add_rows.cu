/* dst (fp32, at a row offset) += src (bf16/fp16, compact): attn_add_rows.h. Memory-bound, one
 * pass: each thread reads one 16-byte vector of src (8 values) and adds it to 32 bytes of dst. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdio.h>

#include "attn_add_rows.h"
#include "dtype.cuh"
#include "error_gpu.h"
#include "grid.h"

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 4096;
constexpr int kLanes = 8; /* 16-bit values per 16-byte vector */

template <typename T>
__global__ void __launch_bounds__(kThreads) add_rows_kernel(float *dst, const uint4 *src, int batch, int64_t dst_rows,
                                                            int64_t row0, int64_t len, int64_t width) {
  const int64_t vecs_per_row = width / kLanes, vecs = (int64_t)batch * len * vecs_per_row;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < vecs; v += (int64_t)gridDim.x * blockDim.x) {
    const int64_t c = v % vecs_per_row, i = (v / vecs_per_row) % len, b = v / (vecs_per_row * len);
    float f[kLanes];
    cb_vec_to_float<T>(src[v], f);
    float4 *d = reinterpret_cast<float4 *>(dst + ((b * dst_rows + row0 + i) * width + c * kLanes));
    float4 lo = d[0], hi = d[1];
    lo.x += f[0], lo.y += f[1], lo.z += f[2], lo.w += f[3];
    hi.x += f[4], hi.y += f[5], hi.z += f[6], hi.w += f[7];
    d[0] = lo, d[1] = hi;
  }
}

} // namespace

extern "C" int cb_attn_add_rows(float *dst, const void *src, int batch, int64_t dst_rows, int64_t row0, int64_t len,
                                int64_t width, int bf16, cudaStream_t s, char *why, size_t n) {
  if (!dst || !src || batch < 1 || row0 < 0 || len < 0 || row0 + len > dst_rows || width < kLanes || width % kLanes ||
      (bf16 != 0 && bf16 != 1) || ((uintptr_t)dst | (uintptr_t)src) % 16) {
    snprintf(why, n,
             "attention add rows: bad arguments (batch %d, rows %lld + %lld of %lld, width %lld: a multiple of %d, "
             "16-byte aligned buffers)",
             batch, (long long)row0, (long long)len, (long long)dst_rows, (long long)width, kLanes);
    return -1;
  }
  if (len == 0) return 0;
  const size_t vecs = (size_t)batch * (size_t)len * (size_t)(width / kLanes);
  const int grid = cb_grid_blocks(vecs, kThreads, kMaxBlocks);
  const uint4 *v = static_cast<const uint4 *>(src);
  if (bf16) add_rows_kernel<__nv_bfloat16><<<grid, kThreads, 0, s>>>(dst, v, batch, dst_rows, row0, len, width);
  else add_rows_kernel<__half><<<grid, kThreads, 0, s>>>(dst, v, batch, dst_rows, row0, len, width);
  CB_CUDA_LAUNCH("attn add_rows_kernel");
  return 0;
}
