/* MoE dispatch and combine kernels (moe.h): layout, row pushes, per-expert lists, weighted
 * combine, and the checks. One warp moves one token row (hidden x 2 bytes: 7168 channels are
 * 896 16-byte vectors, 28 per lane); the push kernels use a fixed grid so receivers know how
 * many completion signals to expect.
 *
 * Signals (custom path, peer memory): counts travel LL-style ({count, epoch} in one 8-byte
 * store); row pushes complete with one release-add per block on the receiver's counter for this
 * source (signal pad slot 0 for dispatch, slot 1 for combine); the next kernel waits until the
 * counter reaches epoch x CB_MOE_PUSH_BLOCKS. Buffer reuse needs no extra barrier: a rank can
 * push call k+1's rows only after its call-k combine, which waited for every receiver's call-k
 * combine signal, sent after that receiver finished reading its call-k rows. */
#include "../launcher/error_gpu.h"
#include "dtype.cuh"
#include "ll.cuh"
#include "moe.h"
#include "pattern.cuh"

namespace {

constexpr int kLayoutThreads = 1024;
constexpr int kPushThreads = 512;
constexpr int kWarps = kPushThreads / 32;
constexpr float kE4m3Max = 448.0f;
/* A token row is moved in parts of 1024 channels, one warp each, so a few tokens still keep
 * many warps busy (one warp per 7168-channel row was latency-bound: 28 dependent steps). */
constexpr int kPartChannels = 1024;

__host__ __device__ __forceinline__ int row_parts(int hidden) { return (hidden + kPartChannels - 1) / kPartChannels; }

__device__ __forceinline__ void red_release_sys_add(uint32_t *p, uint32_t v) {
  asm volatile("red.release.sys.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* cb_moe_token_value (collectives/moe_router.c), bit for bit. */
__device__ __forceinline__ float token_value(uint64_t seed, int rank, int iter, int t, int h) {
  uint64_t x = cb_mix64(seed ^ cb_mix64(((uint64_t)(uint32_t)rank << 40) ^ ((uint64_t)(uint32_t)iter << 20) ^ 0xabcdefull) ^
                        cb_mix64(((uint64_t)(uint32_t)t << 24) ^ (uint64_t)(uint32_t)h));
  return (float)((int)(x % 129) - 64) / 64.0f;
}

/* Metadata row: int32 src_rank, int32 src_token, int32 local[topk], float weight[topk]. */
__device__ __forceinline__ int32_t *meta_ints(char *m) { return (int32_t *)m; }
__device__ __forceinline__ float *meta_weights(char *m, int K) { return (float *)(m + 8 + 4 * K); }

__device__ __forceinline__ int local_expert(int id, int Eloc, int d) { return id >= 0 && id / Eloc == d ? id % Eloc : -1; }

__device__ __forceinline__ bool goes_to(const int32_t *ids, int t, int K, int Eloc, int d) {
  for (int k = 0; k < K; k++)
    if (local_expert(ids[(size_t)t * K + k], Eloc, d) >= 0) return true;
  return false;
}

/* ---- layout: send lists per destination, count exchange ---- */

__global__ void __launch_bounds__(kLayoutThreads) layout_kernel(cb_moe_dev_t a) {
  const int d = blockIdx.x, n = a.nranks, r = a.rank, T = a.ntokens, K = a.topk, tid = threadIdx.x;
  const int lane = tid & 31, warp = tid >> 5, nwarps = blockDim.x / 32;
  __shared__ int warp_off[32];
  __shared__ int chunk_total, base;
  if (d == 0)
    for (int e = tid; e < a.experts_per_rank; e += blockDim.x) a.expert_count[e] = 0;
  if (tid == 0) base = 0;
  __syncthreads();
  for (int t0 = 0; t0 < T; t0 += blockDim.x) {
    const int t = t0 + tid;
    const bool sel = t < T && goes_to(a.ids, t, K, a.experts_per_rank, d);
    const unsigned m = __ballot_sync(0xffffffffu, sel);
    if (lane == 0) warp_off[warp] = __popc(m);
    __syncthreads();
    if (warp == 0) {
      int v = lane < nwarps ? warp_off[lane] : 0, incl = v;
      for (int o = 1; o < 32; o <<= 1) {
        int u = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += u;
      }
      if (lane < nwarps) warp_off[lane] = incl - v;
      if (lane == 31) chunk_total = incl;
    }
    __syncthreads();
    const int j = base + warp_off[warp] + __popc(m & ((1u << lane) - 1));
    if (t < T) {
      a.send_pos[(size_t)t * n + d] = sel ? j : -1;
      if (sel) a.send_idx[(size_t)d * a.cap + j] = t;
    }
    __syncthreads();
    if (tid == 0) base += chunk_total;
    __syncthreads();
  }
  if (tid == 0) {
    const uint32_t e = a.epoch_layout[d] + 1;
    a.send_count[d] = base;
    if (a.custom) {
      if (d == r) {
        a.recv_count[r] = base;
      } else {
        cb_ll_send((char *)a.base[d] + a.cnt_off + (size_t)r * 8, (uint32_t)base, e);
        a.recv_count[d] = (int)cb_ll_recv((char *)a.base[r] + a.cnt_off + (size_t)d * 8, e, a.timeout_ns, r, d);
      }
    }
    a.epoch_layout[d] = e;
  }
}

/* ---- rows ---- */

/* One warp writes channels [part*1024, part*1024 + 1024) of token t's row: bf16 copy, or fp8
 * with one scale per 128 channels (hardware cvt on sm_89+, same bits as cb_float_to_e4m3). */
__device__ __forceinline__ void write_row(const cb_moe_dev_t &a, int t, int part, char *dst, int lane) {
  const uint4 *src = (const uint4 *)((const char *)a.x + (size_t)t * a.hidden * 2);
  const int c0 = part * kPartChannels, c1 = min(a.hidden, c0 + kPartChannels);
  if (!a.fp8) {
    /* four 16-byte loads in flight per lane */
    const int v1 = c1 / 8;
    for (int v = c0 / 8 + lane; v < v1; v += 128) {
      uint4 x[4];
#pragma unroll
      for (int u = 0; u < 4; u++)
        if (v + 32 * u < v1) x[u] = src[v + 32 * u];
#pragma unroll
      for (int u = 0; u < 4; u++)
        if (v + 32 * u < v1) ((uint4 *)dst)[v + 32 * u] = x[u];
    }
    return;
  }
  const int half = lane >> 4, l = lane & 15;
  for (int g0 = c0 / 128; g0 < c1 / 128; g0 += 2) {
    const int g = g0 + half;
    const bool valid = g < c1 / 128;
    float f[8], amax = 0.0f;
    if (valid) {
      cb_vec_to_float<__nv_bfloat16>(src[g * 16 + l], f);
      for (int i = 0; i < 8; i++) amax = fmaxf(amax, fabsf(f[i]));
    }
    for (int o = 8; o > 0; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o, 16));
    if (valid) {
      const float scale = amax > 0.0f ? amax / kE4m3Max : 1.0f;
      uint32_t lo = 0, hi = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
      const __nv_fp8x4_e4m3 q0(make_float4(f[0] / scale, f[1] / scale, f[2] / scale, f[3] / scale));
      const __nv_fp8x4_e4m3 q1(make_float4(f[4] / scale, f[5] / scale, f[6] / scale, f[7] / scale));
      memcpy(&lo, &q0, 4);
      memcpy(&hi, &q1, 4);
#else
      for (int i = 0; i < 4; i++) lo |= (uint32_t)cb_float_to_e4m3(f[i] / scale) << (8 * i);
      for (int i = 0; i < 4; i++) hi |= (uint32_t)cb_float_to_e4m3(f[4 + i] / scale) << (8 * i);
#endif
      *(uint2 *)(dst + (size_t)g * 128 + l * 8) = make_uint2(lo, hi);
      if (l == 0) ((float *)(dst + a.hidden))[g] = scale;
    }
  }
}

/* Channels [8v, 8v+8) of a received row as fp32 (dequantized for fp8). */
__device__ __forceinline__ void read_row8(const cb_moe_dev_t &a, const char *row, int v, float (&f)[8]) {
  if (!a.fp8) {
    cb_vec_to_float<__nv_bfloat16>(((const uint4 *)row)[v], f);
    return;
  }
  const uint2 q = *(const uint2 *)(row + (size_t)v * 8);
  const float scale = ((const float *)(row + a.hidden))[v / 16];
  for (int i = 0; i < 4; i++) f[i] = cb_e4m3_to_float((uint8_t)(q.x >> (8 * i))) * scale;
  for (int i = 0; i < 4; i++) f[4 + i] = cb_e4m3_to_float((uint8_t)(q.y >> (8 * i))) * scale;
}

__device__ __forceinline__ void write_meta(const cb_moe_dev_t &a, int t, int d, char *m, int lane) {
  const int K = a.topk;
  if (lane == 0) {
    meta_ints(m)[0] = a.rank;
    meta_ints(m)[1] = t;
  }
  if (lane < K) {
    const int id = a.ids[(size_t)t * K + lane], le = local_expert(id, a.experts_per_rank, d);
    meta_ints(m)[2 + lane] = le;
    meta_weights(m, K)[lane] = le >= 0 ? a.weights[(size_t)t * K + lane] : 0.0f;
  }
}

__device__ __forceinline__ void prefix_counts(const int32_t *counts, int n, int *pre) {
  pre[0] = 0;
  for (int q = 0; q < n; q++) pre[q + 1] = pre[q] + counts[q];
}

__device__ __forceinline__ size_t row_base(const cb_moe_dev_t &a, const int *recv_pre, int q) {
  return a.custom ? (size_t)q * a.cap : (size_t)recv_pre[q];
}

__device__ __forceinline__ void signal_peers(const cb_moe_dev_t &a, int slot) {
  __syncthreads();
  const int q = threadIdx.x;
  if (q < a.nranks && q != a.rank) red_release_sys_add(cb_pad_flag((char *)a.base[q] + a.pad_off, slot, 0, a.rank), 1);
}

__device__ __forceinline__ void wait_peers(const cb_moe_dev_t &a, int slot, uint32_t epoch) {
  const int q = threadIdx.x;
  if (q < a.nranks && q != a.rank)
    cb_wait_geq_acquire_sys(cb_pad_flag((char *)a.base[a.rank] + a.pad_off, slot, 0, q), epoch * CB_MOE_PUSH_BLOCKS,
                            a.timeout_ns, a.rank, q, slot);
  __syncthreads();
}

/* Largest of n counts. Items are visited as (j, d) = (k / n, k % n), so the rows a warp moves
 * alternate between destinations and local and NVLink copies overlap. */
__device__ __forceinline__ int max_count(const int32_t *counts, int n) {
  int m = 0;
  for (int q = 0; q < n; q++) m = max(m, (int)counts[q]);
  return m;
}

__global__ void __launch_bounds__(kPushThreads) dispatch_push_kernel(cb_moe_dev_t a) {
  __shared__ int cnt[CB_MOE_MAX_RANKS], maxc;
  const int tid = threadIdx.x, lane = tid & 31, n = a.nranks;
  if (tid < n) cnt[tid] = a.send_count[tid];
  if (tid == 0) maxc = max_count(a.send_count, n);
  __syncthreads();
  const int P = row_parts(a.hidden);
  for (int k = blockIdx.x * kWarps + (tid >> 5); k < maxc * n * P; k += gridDim.x * kWarps) {
    const int part = k % P, d = (k / P) % n, j = k / P / n;
    if (j >= cnt[d]) continue;
    const int t = a.send_idx[(size_t)d * a.cap + j];
    write_row(a, t, part, a.dst_rows[d] + (size_t)j * a.row_bytes, lane);
    if (part == 0) write_meta(a, t, d, a.dst_meta[d] + (size_t)j * a.meta_bytes, lane);
  }
  if (a.custom) signal_peers(a, 0);
  if (tid == 0) a.epoch_dispatch[blockIdx.x] += 1;
}

/* Per local expert, the received rows that selected it (order within an expert is
 * arbitrary; grouped GEMMs gather by these lists). */
__global__ void __launch_bounds__(kPushThreads) expert_layout_kernel(cb_moe_dev_t a) {
  __shared__ int pre[CB_MOE_MAX_RANKS + 1];
  const int tid = threadIdx.x, n = a.nranks, K = a.topk;
  if (a.custom) wait_peers(a, 0, a.epoch_dispatch[0]);
  if (tid == 0) prefix_counts(a.recv_count, n, pre);
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + tid; i < pre[n]; i += gridDim.x * blockDim.x) {
    int q = 0;
    while (i >= pre[q + 1]) q++;
    const size_t row = row_base(a, pre, q) + (size_t)(i - pre[q]);
    const int32_t *loc = meta_ints(a.recv_meta + row * a.meta_bytes) + 2;
    for (int k = 0; k < K; k++) {
      const int le = loc[k];
      if (le < 0) continue;
      const int pos = atomicAdd(&a.expert_count[le], 1);
      a.expert_rows[(size_t)le * n * a.cap + pos] = (int32_t)row;
    }
  }
}

/* Identity experts: y = sum over this row's local experts of w_k * expert_k(x), fp32. */
__global__ void __launch_bounds__(kPushThreads) combine_push_kernel(cb_moe_dev_t a) {
  __shared__ int pre[CB_MOE_MAX_RANKS + 1], maxc;
  const int tid = threadIdx.x, lane = tid & 31, n = a.nranks, K = a.topk;
  if (tid == 0) {
    prefix_counts(a.recv_count, n, pre);
    maxc = max_count(a.recv_count, n);
  }
  __syncthreads();
  const int P = row_parts(a.hidden);
  for (int k = blockIdx.x * kWarps + (tid >> 5); k < maxc * n * P; k += gridDim.x * kWarps) {
    const int part = k % P, q = (k / P) % n, j = k / P / n;
    if (j >= pre[q + 1] - pre[q]) continue;
    const size_t row = row_base(a, pre, q) + (size_t)j;
    char *m = a.recv_meta + row * a.meta_bytes;
    const char *x = a.recv_rows + row * a.row_bytes;
    uint4 *y = (uint4 *)(a.comb_dst[q] + (size_t)j * a.comb_row_bytes);
    /* the row's weights once, in registers (dropped or non-local slots weigh 0) */
    float w[CB_MOE_MAX_TOPK];
#pragma unroll
    for (int kk = 0; kk < CB_MOE_MAX_TOPK; kk++)
      w[kk] = kk < K && meta_ints(m)[2 + kk] >= 0 ? meta_weights(m, K)[kk] : 0.0f;
    const int nv = min(a.hidden, (part + 1) * kPartChannels) / 8;
    for (int v = part * kPartChannels / 8 + lane; v < nv; v += 64) {
      const bool second = v + 32 < nv;
      float f0[8], f1[8], acc0[8] = {0, 0, 0, 0, 0, 0, 0, 0}, acc1[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      read_row8(a, x, v, f0);
      if (second) read_row8(a, x, v + 32, f1);
#pragma unroll
      for (int kk = 0; kk < CB_MOE_MAX_TOPK; kk++) {
        if (kk >= K) break;
        if (w[kk] == 0.0f) continue;
        for (int c = 0; c < 8; c++) {
          acc0[c] += w[kk] * f0[c];
          acc1[c] += w[kk] * f1[c];
        }
      }
      y[v] = cb_vec_from_float<__nv_bfloat16>(acc0);
      if (second) y[v + 32] = cb_vec_from_float<__nv_bfloat16>(acc1);
    }
  }
  if (a.custom) signal_peers(a, 1);
  if (tid == 0) a.epoch_combine[blockIdx.x] += 1;
}

/* out[t] = sum over destinations in rank order of the combine rows that came back. */
__global__ void __launch_bounds__(kPushThreads) combine_reduce_kernel(cb_moe_dev_t a) {
  __shared__ int pre[CB_MOE_MAX_RANKS + 1];
  const int tid = threadIdx.x, lane = tid & 31, n = a.nranks;
  if (a.custom) wait_peers(a, 1, a.epoch_combine[0]);
  if (tid == 0) prefix_counts(a.send_count, n, pre);
  __syncthreads();
  const int P = row_parts(a.hidden);
  for (int k = blockIdx.x * kWarps + (tid >> 5); k < a.ntokens * P; k += gridDim.x * kWarps) {
    const int t = k / P, part = k % P;
    /* where token t's rows came back, per destination (NULL: not sent there) */
    const uint4 *src[CB_MOE_MAX_RANKS];
#pragma unroll
    for (int d = 0; d < CB_MOE_MAX_RANKS; d++) {
      const int pos = d < n ? a.send_pos[(size_t)t * n + d] : -1;
      src[d] = pos < 0 ? nullptr
                       : (const uint4 *)(a.comb_src + ((a.custom ? (size_t)d * a.cap : (size_t)pre[d]) + (size_t)pos) *
                                                          a.comb_row_bytes);
    }
    const int v1 = min(a.hidden, (part + 1) * kPartChannels) / 8;
    for (int v = part * kPartChannels / 8 + lane; v < v1; v += 32) {
      uint4 raw[CB_MOE_MAX_RANKS];
#pragma unroll
      for (int d = 0; d < CB_MOE_MAX_RANKS; d++)
        if (src[d]) raw[d] = src[d][v]; /* all loads in flight before the sum */
      float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0}, f[8];
#pragma unroll
      for (int d = 0; d < CB_MOE_MAX_RANKS; d++) {
        if (!src[d]) continue;
        cb_vec_to_float<__nv_bfloat16>(raw[d], f);
        for (int c = 0; c < 8; c++) acc[c] += f[c];
      }
      ((uint4 *)((char *)a.out + (size_t)t * a.hidden * 2))[v] = cb_vec_from_float<__nv_bfloat16>(acc);
    }
  }
}

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

/* The value a receiver must see: bf16 as is, or the fp8 round trip at the group's scale. */
__device__ __forceinline__ float dispatched(const cb_moe_dev_t &a, float x, float scale) {
  return a.fp8 ? cb_e4m3_to_float(cb_float_to_e4m3(x / scale)) * scale : x;
}

/* Source values of channels [8v, 8v+8) of token t and their fp8 group scale. The loop over
 * groups must be entered by all 32 lanes (the scale is a half-warp reduction, as in write_row):
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
  *scale = amax > 0.0f ? amax / kE4m3Max : 1.0f;
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
  __shared__ int pre[CB_MOE_MAX_RANKS + 1];
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

extern "C" void cb_moe_layout(const cb_moe_dev_t *d, cudaStream_t s) {
  layout_kernel<<<d->nranks, kLayoutThreads, 0, s>>>(*d);
  CB_CUDA_LAUNCH("moe layout_kernel");
}
extern "C" void cb_moe_dispatch_push(const cb_moe_dev_t *d, cudaStream_t s) {
  dispatch_push_kernel<<<CB_MOE_PUSH_BLOCKS, kPushThreads, 0, s>>>(*d);
  CB_CUDA_LAUNCH("moe dispatch_push_kernel");
}
extern "C" void cb_moe_expert_layout(const cb_moe_dev_t *d, cudaStream_t s) {
  expert_layout_kernel<<<CB_MOE_PUSH_BLOCKS, kPushThreads, 0, s>>>(*d);
  CB_CUDA_LAUNCH("moe expert_layout_kernel");
}
extern "C" void cb_moe_combine_push(const cb_moe_dev_t *d, cudaStream_t s) {
  combine_push_kernel<<<CB_MOE_PUSH_BLOCKS, kPushThreads, 0, s>>>(*d);
  CB_CUDA_LAUNCH("moe combine_push_kernel");
}
extern "C" void cb_moe_combine_reduce(const cb_moe_dev_t *d, cudaStream_t s) {
  combine_reduce_kernel<<<CB_MOE_PUSH_BLOCKS, kPushThreads, 0, s>>>(*d);
  CB_CUDA_LAUNCH("moe combine_reduce_kernel");
}
extern "C" void cb_moe_fill_tokens(const cb_moe_dev_t *d, uint64_t seed, int iter, cudaStream_t s) {
  if (!d->ntokens) return;
  fill_tokens_kernel<<<1024, 256, 0, s>>>(*d, seed, iter);
  CB_CUDA_LAUNCH("moe fill_tokens_kernel");
}
extern "C" void cb_moe_check_received(const cb_moe_dev_t *d, const int32_t *all_ids, const float *all_w,
                                      const int32_t *all_ntokens, uint64_t seed, int iter, unsigned long long *wrong,
                                      cudaStream_t s) {
  check_received_kernel<<<CB_MOE_PUSH_BLOCKS, kPushThreads, 0, s>>>(*d, all_ids, all_w, all_ntokens, seed, iter, wrong);
  CB_CUDA_LAUNCH("moe check_received_kernel");
}
extern "C" void cb_moe_check_output(const cb_moe_dev_t *d, uint64_t seed, int iter, unsigned long long *wrong,
                                    cudaStream_t s) {
  check_output_kernel<<<CB_MOE_PUSH_BLOCKS, kPushThreads, 0, s>>>(*d, seed, iter, wrong);
  CB_CUDA_LAUNCH("moe check_output_kernel");
}
