/* The backward pass's preprocess: delta = rowsum(dO * O) per query row and head, once per
 * backward pass before the block pairs (attn_bwd.h's cb_attn_bwd_delta; FlashAttention's
 * preprocess kernel, without its dQ clearing: the ring's callers clear and keep dq in fp32), and
 * its form over the fp32 output that the check's truth uses (attn_bwd_util.h's
 * cb_attn_bwd_delta_f32). Memory-bound, one pass over O and dO. There is no postprocess: the
 * block kernel adds into fp32 dq, dk and dv, which the ring rounds to the dtype at its end. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdio.h>

#include "attn_bwd.h"
#include "attn_bwd_util.h"
#include "dtype.cuh"
#include "error_gpu.h"
#include "grid.h"

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 4096;
constexpr int kRowsPerBlock = kThreads / 32; /* one warp per (batch, row, head) */

/* O of type TO (the 16-bit output, or fp32), dO of type T. */
template <typename TO, typename T>
__global__ void __launch_bounds__(kThreads)
    delta_kernel(const TO *o, const T *dout, float *delta, int batch, int q_len, int heads, int head_dim) {
  const size_t rows = (size_t)batch * q_len * heads;
  const int lane = threadIdx.x % 32;
  for (size_t r = (size_t)blockIdx.x * kRowsPerBlock + threadIdx.x / 32; r < rows;
       r += (size_t)gridDim.x * kRowsPerBlock) {
    float acc = 0.0f;
    for (int d = lane; d < head_dim; d += 32)
      acc += cb_scalar<TO>::to_float(o[r * head_dim + d]) * cb_scalar<T>::to_float(dout[r * head_dim + d]);
    for (int off = 16; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) {
      /* r = (b * q_len + i) * heads + h -> delta[b][h][i] */
      const size_t h = r % heads, i = (r / heads) % q_len, b = r / ((size_t)heads * q_len);
      delta[(b * heads + h) * q_len + i] = acc;
    }
  }
}

template <typename TO, typename T>
void launch_delta(const TO *o, const void *dout, float *delta, int batch, int q_len, int heads, int head_dim,
                  cudaStream_t s) {
  const size_t rows = (size_t)batch * q_len * heads;
  const int grid = cb_grid_blocks((rows + kRowsPerBlock - 1) / kRowsPerBlock, 1, kMaxBlocks);
  delta_kernel<TO, T><<<grid, kThreads, 0, s>>>(o, static_cast<const T *>(dout), delta, batch, q_len, heads, head_dim);
  CB_CUDA_LAUNCH("attn bwd delta_kernel");
}

} // namespace

extern "C" int cb_attn_bwd_delta(const void *out, const void *dout, float *delta, int batch, int q_len, int heads,
                                 int head_dim, int bf16, cudaStream_t s, char *why, size_t n) {
  if (!out || !dout || !delta || batch < 1 || q_len < 0 || heads < 1 || (head_dim != 64 && head_dim != 128) ||
      (bf16 != 0 && bf16 != 1)) {
    snprintf(why, n, "attention backward delta: bad arguments (buffers, batch %d, rows %d, heads %d, head dim %d)",
             batch, q_len, heads, head_dim);
    return -1;
  }
  if (q_len == 0) return 0;
  if (bf16)
    launch_delta<__nv_bfloat16, __nv_bfloat16>((const __nv_bfloat16 *)out, dout, delta, batch, q_len, heads, head_dim,
                                               s);
  else launch_delta<__half, __half>((const __half *)out, dout, delta, batch, q_len, heads, head_dim, s);
  return 0;
}

extern "C" void cb_attn_bwd_delta_f32(const float *o, const void *dout, float *delta, int batch, int q_len, int heads,
                                      int head_dim, int bf16, cudaStream_t s) {
  if (q_len == 0) return;
  if (bf16) launch_delta<float, __nv_bfloat16>(o, dout, delta, batch, q_len, heads, head_dim, s);
  else launch_delta<float, __half>(o, dout, delta, batch, q_len, heads, head_dim, s);
}
