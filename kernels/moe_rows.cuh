/* Device pieces shared by the MoE kernels (kernels/moe.cu) and their checks
 * (kernels/moe_check.cu): block sizes, the token-data formula, metadata rows, row parts, the
 * fp8 row format, prefix counts and the completion counters between ranks. */
#ifndef CB_MOE_ROWS_CUH
#define CB_MOE_ROWS_CUH

#include "dtype.cuh"
#include "ll.cuh"
#include "moe.h"
#include "moe_token.h"
#include "pattern.cuh"

namespace cb_moe {

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

/* The token data, as the host reference computes it (moe_token.h). */
__device__ __forceinline__ float token_value(uint64_t seed, int rank, int iter, int t, int h) {
  return cb_moe_token_formula(seed, rank, iter, t, h);
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
    cb_wait_geq_acquire_sys(cb_pad_flag((char *)a.base[a.rank] + a.pad_off, slot, 0, q), epoch * (uint32_t)a.push_blocks,
                            a.timeout_ns, a.ctl, a.rank, q, slot);
  __syncthreads();
}

/* Largest of n counts. Items are visited as (j, d) = (k / n, k % n), so the rows a warp moves
 * alternate between destinations and local and NVLink copies overlap. */
__device__ __forceinline__ int max_count(const int32_t *counts, int n) {
  int m = 0;
  for (int q = 0; q < n; q++) m = max(m, (int)counts[q]);
  return m;
}

} // namespace cb_moe

#endif
