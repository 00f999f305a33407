/* MoE correctness kernels (moe.h): token data from the seeded formula, and the checks of
 * received rows (source, token order, experts, weights, data after the fp8 round trip), of the
 * per-expert lists and of the combined output. Not timed; written for clarity over speed. */
#include "error_gpu.h"
#include "moe_rows.cuh"

namespace {

using namespace cb_moe;

__global__ void fill_tokens_kernel(cb_moe_dev_t a, uint64_t seed, int iter) {
  const size_t total = (size_t)a.ntokens * a.hidden;
  __nv_bfloat16 *x = (__nv_bfloat16 *)a.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x)
    x[i] = __float2bfloat16_rn(token_value(seed, a.rank, iter, (int)(i / a.hidden), (int)(i % a.hidden)));
}

/* ---- checks ---- */

/* The bf16 token value the source holds. */
__device__ __forceinline__ float source_value(uint64_t seed, int iter, int src, int t, int h) {
  return __bfloat162float(__float2bfloat16_rn(token_value(seed, src, iter, t, h)));
}

/* The value a receiver must see: bf16 as is, or the fp8 round trip at the group's scale,
 * quantized exactly as the dispatch kernels do (moe_rows.cuh e4m3_inv_scale, e4m3_scaled: a
 * correctly rounded reciprocal of the scale, then a multiply). */
__device__ __forceinline__ float dispatched(const cb_moe_dev_t &a, float x, float scale) {
  return a.fp8 ? cb_e4m3_to_float(cb_float_to_e4m3(e4m3_scaled(x, e4m3_inv_scale(scale)))) * scale : x;
}

/* Source values of channels [8v, 8v+8) of token t and their fp8 group scale. The loop over
 * groups must be entered by all 32 lanes (the scale is a half-warp shuffle reduction):
 * lanes 0-15 take group g0, lanes 16-31 group g0+1, lane l the group's l-th vector. */
__device__ __forceinline__ bool group_values(const cb_moe_dev_t &a, uint64_t seed, int iter, int src, int t, int g0,
                                             int lane, int *v_out, float (&x)[8], float *scale) {
  const int nv = a.hidden / 8, v = (g0 + (lane >> 4)) * 16 + (lane & 15);
  const bool valid = v < nv;
  float amax = 0.0f;
  for (int c = 0; c < 8; c++) {
    x[c] = valid ? source_value(seed, iter, src, t, v * 8 + c) : 0.0f;
    amax = fmaxf(amax, fabsf(x[c]));
  }
  for (int o = 8; o > 0; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o, 16));
  *scale = e4m3_group_scale(amax); /* as the kernels (moe_rows.cuh) */
  *v_out = v;
  return valid;
}

/* Does a received row hold token t of rank src (one warp)? */
__device__ bool row_matches(const cb_moe_dev_t &a, const char *row, uint64_t seed, int iter, int src, int t, int lane) {
  const int ngroups = (a.hidden / 8 + 15) / 16;
  bool ok = true;
  for (int g0 = 0; g0 < ngroups; g0 += 2) {
    float x[8], f[8], scale;
    int v;
    if (!group_values(a, seed, iter, src, t, g0, lane, &v, x, &scale)) continue;
    read_row8(a, row, v, f);
    for (int c = 0; c < 8; c++)
      if (f[c] != dispatched(a, x[c], scale)) ok = false;
  }
  return ok;
}

__global__ void check_received_kernel(cb_moe_dev_t a, const int32_t *all_ids, const float *all_w,
                                      const int32_t *all_ntokens, uint64_t seed, int iter, unsigned long long *wrong) {
  __shared__ int pre[CB_MAX_RANKS + 1];
  const int tid = threadIdx.x, lane = tid & 31, n = a.nranks, K = a.topk, r = a.rank;
  if (tid == 0) prefix_counts(a.recv_count, n, pre);
  __syncthreads();
  unsigned long long bad = 0;
  for (int i = blockIdx.x * kWarps + (tid >> 5); i < pre[n]; i += gridDim.x * kWarps) {
    int q = 0;
    while (i >= pre[q + 1]) q++;
    const int j = i - pre[q];
    const size_t row = row_base(a, pre, q) + (size_t)j;
    char *m = a.recv_meta + row * a.meta_bytes;
    const int src = meta_ints(m)[0], t = meta_ints(m)[1];
    bool ok = src == q && t >= 0 && t < all_ntokens[q];
    if (ok && j > 0) ok = meta_ints(a.recv_meta + (row - 1) * a.meta_bytes)[1] < t; /* token order */
    if (ok) {
      const int32_t *ids = all_ids + ((size_t)q * a.cap + t) * K;
      const float *ws = all_w + ((size_t)q * a.cap + t) * K;
      bool any = false;
      for (int k = 0; k < K; k++) {
        const int le = local_expert(ids[k], a.experts_per_rank, r);
        any |= le >= 0;
        if (meta_ints(m)[2 + k] != le || (le >= 0 && meta_weights(m, K)[k] != ws[k])) ok = false;
      }
      ok = ok && any;
    }
    if (ok) ok = row_matches(a, a.recv_rows + row * a.row_bytes, seed, iter, q, t, lane);
    ok = __all_sync(0xffffffffu, ok);
    if (!ok && lane == 0) bad++;
  }
  /* every expert list entry is a received row that selected that expert */
  for (int e = blockIdx.x; e < a.experts_per_rank; e += gridDim.x)
    for (int p = tid; p < a.expert_count[e]; p += blockDim.x) {
      const int row = a.expert_rows[(size_t)e * n * a.cap + p];
      bool ok = false;
      for (int q = 0; q < n; q++) {
        const size_t b = row_base(a, pre, q);
        if ((size_t)row >= b && (size_t)row < b + (size_t)a.recv_count[q]) ok = true;
      }
      if (ok) {
        ok = false;
        const int32_t *loc = meta_ints(a.recv_meta + (size_t)row * a.meta_bytes) + 2;
        for (int k = 0; k < K; k++) ok |= loc[k] == e;
      }
      if (!ok) bad++;
    }
  if (bad) atomicAdd(wrong, bad);
}

__global__ void check_output_kernel(cb_moe_dev_t a, uint64_t seed, int iter, unsigned long long *wrong) {
  const int tid = threadIdx.x, lane = tid & 31, n = a.nranks, K = a.topk;
  unsigned long long bad = 0;
  for (int t = blockIdx.x * kWarps + (tid >> 5); t < a.ntokens; t += gridDim.x * kWarps) {
    int ndest = 0;
    for (int d = 0; d < n; d++) ndest += a.send_pos[(size_t)t * n + d] >= 0;
    const int ngroups = (a.hidden / 8 + 15) / 16;
    for (int g0 = 0; g0 < ngroups; g0 += 2) {
      float x[8], scale;
      int v;
      if (!group_values(a, seed, iter, a.rank, t, g0, lane, &v, x, &scale)) continue;
      for (int c = 0; c < 8; c++) {
        const float xq = dispatched(a, x[c], scale);
        float expect = 0.0f, mag = 0.0f;
        for (int k = 0; k < K; k++) {
          if (a.ids[(size_t)t * K + k] < 0) continue;
          const float w = a.weights[(size_t)t * K + k];
          expect += w * xq;
          mag += fabsf(w * xq);
        }
        const float got = __bfloat162float(((const __nv_bfloat16 *)a.out)[(size_t)t * a.hidden + v * 8 + c]);
        const float tol = 0.0078125f * (float)(ndest + 1) * mag + 1e-6f; /* bf16: 2^-7 per rounding */
        if (!(fabsf(got - expect) <= tol)) bad++;
      }
    }
  }
  if (bad) atomicAdd(wrong, bad);
}

} // namespace

extern "C" void cb_moe_fill_tokens(const cb_moe_dev_t *d, uint64_t seed, int iter, cudaStream_t s) {
  if (!d->ntokens) return;
  fill_tokens_kernel<<<1024, 256, 0, s>>>(*d, seed, iter);
  CB_CUDA_LAUNCH("moe fill_tokens_kernel");
}
extern "C" void cb_moe_check_received(const cb_moe_dev_t *d, const int32_t *all_ids, const float *all_w,
                                      const int32_t *all_ntokens, uint64_t seed, int iter, unsigned long long *wrong,
                                      cudaStream_t s) {
  check_received_kernel<<<d->push_blocks, kPushThreads, 0, s>>>(*d, all_ids, all_w, all_ntokens, seed, iter, wrong);
  CB_CUDA_LAUNCH("moe check_received_kernel");
}
extern "C" void cb_moe_check_output(const cb_moe_dev_t *d, uint64_t seed, int iter, unsigned long long *wrong,
                                    cudaStream_t s) {
  check_output_kernel<<<d->push_blocks, kPushThreads, 0, s>>>(*d, seed, iter, wrong);
  CB_CUDA_LAUNCH("moe check_output_kernel");
}
