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
/* The dispatch push kernel: a whole SM per block (32 warps), so a grid capped at a few SMs
 * (--sms) still keeps 64 KB of row data in flight per SM. */
constexpr int kDispatchThreads = 1024;
constexpr int kDispatchWarps = kDispatchThreads / 32;
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

__device__ __forceinline__ int local_expert(int id, int Eloc, int d) {
  return id >= 0 && id / Eloc == d ? id % Eloc : -1;
}

__device__ __forceinline__ bool goes_to(const int32_t *ids, int t, int K, int Eloc, int d) {
  for (int k = 0; k < K; k++)
    if (local_expert(ids[(size_t)t * K + k], Eloc, d) >= 0) return true;
  return false;
}

/* ---- rows ---- */

/* bf16 pairs straight from their 32-bit words (no float arrays: the 1024-thread dispatch
 * kernel has 64 registers per thread). */
__device__ __forceinline__ float bf16_lo(uint32_t w) { return __uint_as_float(w << 16); }
__device__ __forceinline__ float bf16_hi(uint32_t w) { return __uint_as_float(w & 0xffff0000u); }
__device__ __forceinline__ float bf16x8_amax(const uint4 &v) {
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
  float m = 0.0f;
#pragma unroll
  for (int i = 0; i < 4; i++) m = fmaxf(m, fmaxf(fabsf(bf16_lo(w[i])), fabsf(bf16_hi(w[i]))));
  return m;
}
/* fp8 quantization of x at a group scale: x * (1/scale), both correctly rounded (__frcp_rn,
 * __fmul_rn: the same bits whatever the compile flags, no contraction). The dispatch kernels
 * and the check (moe_check.cu dispatched) both quantize through these two, so the check's
 * expected bytes are the kernels' exactly. One reciprocal per 128-channel group replaces an
 * IEEE division per element (a dozen instructions each: fp8 dispatch was compute-bound at
 * <= 32 SMs). x * (1/s) may differ from x / s in the last bit of the fp32 value before
 * rounding to e4m3; both are valid quantizations (|x * (1/s)| <= 448 * (1 + 2^-22), which
 * the saturating conversion takes to 448). */
__device__ __forceinline__ float e4m3_inv_scale(float scale) { return __frcp_rn(scale); }
/* A 128-channel group's scale from its amax: amax / 448, at least the smallest normal float so
 * that 1/scale stays finite (below it 1/scale was inf and 0 * inf a NaN byte; x / scale never
 * had that problem); 1 for an all-zero group. Kernels and check alike. */
__device__ __forceinline__ float e4m3_group_scale(float amax) {
  return amax > 0.0f ? fmaxf(amax / kE4m3Max, 1.17549435e-38f /* FLT_MIN */) : 1.0f;
}
__device__ __forceinline__ float e4m3_scaled(float x, float inv) { return __fmul_rn(x, inv); }

/* Words w0, w1 (four bf16 values) times inv (e4m3_inv_scale of the group scale) as four e4m3
 * bytes (hardware cvt on sm_89+, same bits as cb_float_to_e4m3). */
__device__ __forceinline__ uint32_t e4m3x4(uint32_t w0, uint32_t w1, float inv) {
  const float f[4] = {e4m3_scaled(bf16_lo(w0), inv), e4m3_scaled(bf16_hi(w0), inv), e4m3_scaled(bf16_lo(w1), inv),
                      e4m3_scaled(bf16_hi(w1), inv)};
  uint32_t q = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  const __nv_fp8x4_e4m3 v(make_float4(f[0], f[1], f[2], f[3]));
  memcpy(&q, &v, 4);
#else
  for (int i = 0; i < 4; i++) q |= (uint32_t)cb_float_to_e4m3(f[i]) << (8 * i);
#endif
  return q;
}

/* One warp's share of token t's row part (channels [part*1024, part*1024 + 1024)), loaded
 * and, for fp8, quantized once for every destination the token goes to:
 *   bf16: v[u] = vector c0/8 + lane + 32u of the row (u < 4: 128 vectors of 8 channels);
 *   fp8:  v[u] = output vector lane + 32u (u < 2: 16 e4m3 bytes each), scale = the part's
 *         group scale lane (lanes 0..7: one fp32 scale per 128 channels). */
struct row_part {
  uint4 v[4];
  float scale;
};

__device__ __forceinline__ void load_row_part(const cb_moe_dev_t &a, int t, int part, int lane, row_part &p) {
  const uint4 *src = (const uint4 *)((const char *)a.x + (size_t)t * a.hidden * 2);
  const int c0 = part * kPartChannels, c1 = min(a.hidden, c0 + kPartChannels);
  if (!a.fp8) {
    /* four 16-byte loads in flight per lane */
#pragma unroll
    for (int u = 0; u < 4; u++)
      if (c0 / 8 + lane + 32 * u < c1 / 8) p.v[u] = src[c0 / 8 + lane + 32 * u];
    return;
  }
  /* fp8: lane l makes output vectors o = l and l + 32 of the part (16 channels = 16 bytes
   * each), so every store instruction writes 512 contiguous bytes; a 128-channel scale group is
   * 8 lanes (amax over them by shuffles); both input pairs are loaded before any arithmetic. */
  const int nout = (c1 - c0) / 16; /* output vectors of this part (<= 64) */
  uint4 in[2][2];
#pragma unroll
  for (int u = 0; u < 2; u++) {
    const int o = lane + 32 * u;
    if (o < nout) {
      in[u][0] = src[c0 / 8 + 2 * o];
      in[u][1] = src[c0 / 8 + 2 * o + 1];
    }
  }
  float sc[2];
#pragma unroll
  for (int u = 0; u < 2; u++) {
    const bool valid = lane + 32 * u < nout;
    float amax = valid ? fmaxf(bf16x8_amax(in[u][0]), bf16x8_amax(in[u][1])) : 0.0f;
    for (int o = 1; o < 8; o <<= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
    sc[u] = e4m3_group_scale(amax);
    const float inv = e4m3_inv_scale(sc[u]);
    const uint4 a0 = in[u][0], a1 = in[u][1];
    p.v[u] = valid ? make_uint4(e4m3x4(a0.x, a0.y, inv), e4m3x4(a0.z, a0.w, inv), e4m3x4(a1.x, a1.y, inv),
                                e4m3x4(a1.z, a1.w, inv))
                   : make_uint4(0, 0, 0, 0);
  }
  /* group g of the part is lanes 8(g%4).. of vector half g/4: lane g < 8 takes its scale */
  const int from = 8 * (lane & 3);
  const float s0 = __shfl_sync(0xffffffffu, sc[0], from), s1 = __shfl_sync(0xffffffffu, sc[1], from);
  p.scale = lane < 4 ? s0 : s1;
}

/* Stores a loaded row part into the row at dst (whole warp; no shuffles, so a warp may skip a
 * destination as one). */
__device__ __forceinline__ void store_row_part(const cb_moe_dev_t &a, int part, char *dst, int lane,
                                               const row_part &p) {
  const int c0 = part * kPartChannels, c1 = min(a.hidden, c0 + kPartChannels);
  if (!a.fp8) {
#pragma unroll
    for (int u = 0; u < 4; u++)
      if (c0 / 8 + lane + 32 * u < c1 / 8) ((uint4 *)dst)[c0 / 8 + lane + 32 * u] = p.v[u];
    return;
  }
  const int nout = (c1 - c0) / 16;
#pragma unroll
  for (int u = 0; u < 2; u++)
    if (lane + 32 * u < nout) ((uint4 *)(dst + c0))[lane + 32 * u] = p.v[u];
  /* the part's scales: lanes 0..7 write them as 32 contiguous bytes */
  if (lane < 8 && lane < nout / 8) ((float *)(dst + a.hidden))[c0 / 128 + lane] = p.scale;
}

/* One warp writes part `part` of token t's row to dst (one destination: moe_hier.cu's kernels). */
__device__ __forceinline__ void write_row(const cb_moe_dev_t &a, int t, int part, char *dst, int lane) {
  row_part p;
  load_row_part(a, t, part, lane, p);
  store_row_part(a, part, dst, lane, p);
}

/* Four e4m3 bytes (one word, lowest byte first) times scale as fp32: the hardware cvt on sm_89+
 * (exact: every e4m3 value is a half and a float), else the bit-level decoder. */
__device__ __forceinline__ void e4m3x4_to_float(uint32_t w, float scale, float *f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  __nv_fp8x4_e4m3 v;
  memcpy(&v, &w, 4);
  const float4 q = static_cast<float4>(v);
  f[0] = q.x * scale;
  f[1] = q.y * scale;
  f[2] = q.z * scale;
  f[3] = q.w * scale;
#else
  for (int i = 0; i < 4; i++) f[i] = cb_e4m3_to_float((uint8_t)(w >> (8 * i))) * scale;
#endif
}

/* Channels [8v, 8v+8) of a received row as fp32 (dequantized for fp8). */
__device__ __forceinline__ void read_row8(const cb_moe_dev_t &a, const char *row, int v, float (&f)[8]) {
  if (!a.fp8) {
    cb_vec_to_float<__nv_bfloat16>(((const uint4 *)row)[v], f);
    return;
  }
  const uint2 q = *(const uint2 *)(row + (size_t)v * 8);
  const float scale = ((const float *)(row + a.hidden))[v / 16];
  e4m3x4_to_float(q.x, scale, f);
  e4m3x4_to_float(q.y, scale, f + 4);
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

/* Token t's row part `part` (at part 0 also its metadata) to every destination it goes to
 * (its positions: n ints, send_pos's row of t, or a copy of it in shared memory), loaded and
 * quantized once: remote destinations first, this rank last. Whole warp; a token going nowhere
 * (every selection dropped) costs one load of its positions. */
__device__ __forceinline__ void push_token_part(const cb_moe_dev_t &a, int t, int part, int lane,
                                                const int32_t *positions) {
  const int n = a.nranks;
  const int pos = lane < n ? positions[lane] : -1;
  if (!__ballot_sync(0xffffffffu, pos >= 0)) return;
  row_part p;
  load_row_part(a, t, part, lane, p);
  for (int i = 1; i <= n; i++) {
    const int d = (a.rank + i) % n, j = __shfl_sync(0xffffffffu, pos, d);
    if (j < 0) continue;
    store_row_part(a, part, a.dst_rows[d] + (size_t)j * a.row_bytes, lane, p);
    if (part == 0) write_meta(a, t, d, a.dst_meta[d] + (size_t)j * a.meta_bytes, lane);
  }
}

/* Block-wide stream compaction of one chunk of blockDim.x items (every thread of the block calls
 * it, with its lane, warp and the block's warp count; warp_off and total in shared memory):
 * returns this thread's position among the chunk's selected items, in thread order, and leaves
 * the chunk's count in total. Two barriers; the caller adds its running base and must
 * __syncthreads() before the next chunk reuses warp_off and total. */
__device__ __forceinline__ int block_compact_pos(bool sel, int lane, int warp, int nwarps, int (&warp_off)[32],
                                                 int &total) {
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
    if (lane == 31) total = incl;
  }
  __syncthreads();
  return warp_off[warp] + __popc(m & ((1u << lane) - 1));
}

/* Sums the rows at src[0..kMax) (bf16 combine rows; NULL entries skipped, in index order) over
 * the channels of one part into dst (one warp): moe.cu's two-kernel combine and moe_hier.cu's
 * node and final reduces. */
template <int kMax>
__device__ __forceinline__ void sum_rows(const uint4 *const (&src)[kMax], uint4 *dst, int hidden, int part, int lane) {
  const int v1 = min(hidden, (part + 1) * kPartChannels) / 8;
  for (int v = part * kPartChannels / 8 + lane; v < v1; v += 32) {
    uint4 raw[kMax];
#pragma unroll
    for (int q = 0; q < kMax; q++)
      if (src[q]) raw[q] = src[q][v]; /* all loads in flight before the sum */
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0}, f[8];
#pragma unroll
    for (int q = 0; q < kMax; q++) {
      if (!src[q]) continue;
      cb_vec_to_float<__nv_bfloat16>(raw[q], f);
      for (int c = 0; c < 8; c++) acc[c] += f[c];
    }
    dst[v] = cb_vec_from_float<__nv_bfloat16>(acc);
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
    cb_wait_geq_acquire_sys(cb_pad_flag((char *)a.base[a.rank] + a.pad_off, slot, 0, q),
                            epoch * (uint32_t)a.push_blocks, a.timeout_ns, a.ctl, a.rank, q, slot);
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
