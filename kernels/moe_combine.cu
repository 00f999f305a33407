/* The custom path's MoE combine in one kernel (moe.h cb_moe_combine_fused): pushing and
 * reducing overlap instead of running as two passes.
 *
 * Blocks [0, comb_push_blocks) push: for every remote source q, the rows this rank received
 * from q are weighted (identity experts: y = (sum of the row's local expert weights) * x, fp32,
 * rounded once to bf16) and stored into q's combine region for this rank, chunk by chunk
 * (chunk_rows rows); after a chunk, one release store raises its flag in q's memory:
 *   flags (peer memory of each rank, at chunk_off): uint32 [source d][nchunks], value = the
 *   combine call's epoch (per-block epoch words, equal on every block and every rank).
 * Blocks [comb_push_blocks, push_blocks) reduce this rank's tokens in ranges of up to
 * kReduceTokens (T / reduce blocks, so every reduce block has work at decode sizes):
 * they wait for the flags of the chunks holding the range's rows, then sum per token, in rank
 * order, the combine rows that came back and its own rows weighted straight from the local
 * receive buffer (the self destination needs no copy), and write out[t] in bf16.
 *
 * Buffer reuse: a peer overwrites this rank's combine region only in its next combine, which
 * starts after its next dispatch was signalled by this rank, i.e. after this kernel ended; and
 * this rank's next dispatch overwrites a peer's receive rows only after every chunk flag from
 * that peer arrived here (the peer's pushers have read them). */
#include "error_gpu.h"
#include "moe_rows.cuh"

namespace {

using namespace cb_moe;

constexpr int kCombThreads = 1024;
constexpr int kCombWarps = kCombThreads / 32;
constexpr int kReduceTokens = 32; /* most tokens per reduce step of one block */

__device__ __forceinline__ uint32_t *chunk_flag(const cb_moe_dev_t &a, int owner, int src, int chunk) {
  return (uint32_t *)((char *)a.base[owner] + a.chunk_off) + (size_t)src * a.nchunks + chunk;
}

/* The sum of the weights of row `m`'s local experts (dropped and non-local slots weigh 0), in
 * every lane. */
__device__ __forceinline__ float local_weight_sum(const cb_moe_dev_t &a, char *m, int lane) {
  float w = lane < a.topk && meta_ints(m)[2 + lane] >= 0 ? meta_weights(m, a.topk)[lane] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) w += __shfl_xor_sync(0xffffffffu, w, o);
  return w;
}

/* Vector v (channels [8v, 8v+8)) of a dispatched row, raw: bf16 uint4, or fp8 uint2 with its
 * group scale in .z (bit pattern). */
__device__ __forceinline__ uint4 load_dispatched(const cb_moe_dev_t &a, const char *row, int v) {
  if (!a.fp8) return ((const uint4 *)row)[v];
  const uint2 q = *(const uint2 *)(row + (size_t)v * 8);
  return make_uint4(q.x, q.y, __float_as_uint(((const float *)(row + a.hidden))[v / 16]), 0u);
}

__device__ __forceinline__ void dispatched_to_float(bool fp8, const uint4 &raw, float (&f)[8]) {
  if (!fp8) {
    cb_vec_to_float<__nv_bfloat16>(raw, f);
    return;
  }
  const float scale = __uint_as_float(raw.z);
  e4m3x4_to_float(raw.x, scale, f);
  e4m3x4_to_float(raw.y, scale, f + 4);
}

/* ---- push blocks ---- */

__device__ void push_chunks(const cb_moe_dev_t &a, uint32_t epoch) {
  const int n = a.nranks, r = a.rank, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (n < 2) return;
  const int P = row_parts(a.hidden), nsrc = n - 1;
  int maxc = 0;
  for (int q = 0; q < n; q++)
    if (q != r) maxc = max(maxc, (int)a.recv_count[q]);
  const int CH = a.chunk_rows, nch = (maxc + CH - 1) / CH;
  /* chunks alternate between sources so every source's first rows go out first */
  for (int c = blockIdx.x; c < nch * nsrc; c += a.comb_push_blocks) {
    const int ci = c / nsrc, qi = c % nsrc, q = qi < r ? qi : qi + 1;
    const int j0 = ci * CH, j1 = min((int)a.recv_count[q], j0 + CH);
    if (j0 >= j1) continue; /* the same for the whole block */
    for (int it = warp; it < (j1 - j0) * P; it += kCombWarps) {
      const int j = j0 + it / P, part = it % P;
      const size_t row = (size_t)q * a.cap + j;
      const float w = local_weight_sum(a, a.recv_meta + row * a.meta_bytes, lane);
      const char *x = a.recv_rows + row * a.row_bytes;
      uint4 *y = (uint4 *)(a.comb_dst[q] + (size_t)j * a.comb_row_bytes);
      const int v0 = part * kPartChannels / 8, v1 = min(a.hidden, (part + 1) * kPartChannels) / 8;
      uint4 raw[4];
#pragma unroll
      for (int u = 0; u < 4; u++)
        if (v0 + lane + 32 * u < v1) raw[u] = load_dispatched(a, x, v0 + lane + 32 * u);
#pragma unroll
      for (int u = 0; u < 4; u++) {
        const int v = v0 + lane + 32 * u;
        if (v >= v1) continue;
        float f[8];
        dispatched_to_float(a.fp8, raw[u], f);
        for (int i = 0; i < 8; i++) f[i] *= w;
        y[v] = cb_vec_from_float<__nv_bfloat16>(f);
      }
    }
    __syncthreads(); /* the chunk's rows are stored, by every warp */
    if (threadIdx.x == 0) cb_st_release_sys(chunk_flag(a, q, r, ci), epoch);
  }
}

/* ---- reduce blocks ---- */

/* One source of a token's sum: where its row is, whether it is a dispatched row of this rank
 * (possibly fp8, weighted here) or a bf16 combine row that came back (weight 1). */
struct source {
  const char *row;
  float w;
  int dispatched;
};

__device__ void reduce_tokens(const cb_moe_dev_t &a, uint32_t epoch) {
  __shared__ source src[kCombWarps][CB_MAX_RANKS];
  const int n = a.nranks, r = a.rank, T = a.ntokens, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int P = row_parts(a.hidden);
  const int nred = gridDim.x - a.comb_push_blocks, b = blockIdx.x - a.comb_push_blocks;
  /* tokens per step: T spread over every reduce block (at 128 tokens 32 per step left all but
   * 4 reduce blocks idle: 40 us combines at any SM count), at most kReduceTokens */
  const int RT = max(1, min(kReduceTokens, (T + nred - 1) / nred));
  for (int t0 = b * RT; t0 < T; t0 += nred * RT) {
    const int t1 = min(T, t0 + RT);
    /* wait for the chunks that hold this range's rows (one thread per (token, destination)) */
    if (tid < (t1 - t0) * n) {
      const int t = t0 + tid / n, d = tid % n, pos = a.send_pos[(size_t)t * n + d];
      if (d != r && pos >= 0)
        cb_wait_geq_acquire_sys(chunk_flag(a, r, d, pos / a.chunk_rows), epoch, a.timeout_ns, a.ctl, r, d, 1);
    }
    __syncthreads();
    for (int it = warp; it < (t1 - t0) * P; it += kCombWarps) {
      const int t = t0 + it / P, part = it % P;
      /* the token's sources in rank order: lane d looks up destination d, all at once */
      const int pos = lane < n ? a.send_pos[(size_t)t * n + lane] : -1;
      const unsigned has = __ballot_sync(0xffffffffu, pos >= 0);
      const int pself = __shfl_sync(0xffffffffu, pos, r);
      const size_t self_row = (size_t)r * a.cap + (pself >= 0 ? pself : 0);
      /* the self row's weight (whole warp: a shuffle reduction), when the token came here */
      const float wself = pself >= 0 ? local_weight_sum(a, a.recv_meta + self_row * a.meta_bytes, lane) : 0.0f;
      __syncwarp(); /* the previous item's readers of src[warp] are done */
      if (lane < n && pos >= 0) {
        source s;
        if (lane == r) {
          s.row = a.recv_rows + self_row * a.row_bytes;
          s.w = wself;
          s.dispatched = 1;
        } else {
          s.row = a.comb_src + ((size_t)lane * a.cap + pos) * a.comb_row_bytes;
          s.w = 1.0f;
          s.dispatched = 0;
        }
        src[warp][__popc(has & ((1u << lane) - 1u))] = s;
      }
      __syncwarp();
      const int ns = __popc(has);
      const int v0 = part * kPartChannels / 8, v1 = min(a.hidden, (part + 1) * kPartChannels) / 8;
      for (int v = v0 + lane; v < v1; v += 64) {
        const bool second = v + 32 < v1;
        float acc0[8] = {0, 0, 0, 0, 0, 0, 0, 0}, acc1[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        /* two sources at a time, all four loads in flight before the sums */
        for (int k = 0; k < ns; k += 2) {
          const source s0 = src[warp][k];
          const bool two = k + 1 < ns;
          const source s1 = two ? src[warp][k + 1] : s0;
          uint4 x00, x01, x10, x11;
          x00 = s0.dispatched ? load_dispatched(a, s0.row, v) : ((const uint4 *)s0.row)[v];
          if (second) x01 = s0.dispatched ? load_dispatched(a, s0.row, v + 32) : ((const uint4 *)s0.row)[v + 32];
          if (two) {
            x10 = s1.dispatched ? load_dispatched(a, s1.row, v) : ((const uint4 *)s1.row)[v];
            if (second) x11 = s1.dispatched ? load_dispatched(a, s1.row, v + 32) : ((const uint4 *)s1.row)[v + 32];
          }
          float f[8];
          dispatched_to_float(s0.dispatched && a.fp8, x00, f);
          for (int i = 0; i < 8; i++) acc0[i] += s0.w * f[i];
          if (second) {
            dispatched_to_float(s0.dispatched && a.fp8, x01, f);
            for (int i = 0; i < 8; i++) acc1[i] += s0.w * f[i];
          }
          if (two) {
            dispatched_to_float(s1.dispatched && a.fp8, x10, f);
            for (int i = 0; i < 8; i++) acc0[i] += s1.w * f[i];
            if (second) {
              dispatched_to_float(s1.dispatched && a.fp8, x11, f);
              for (int i = 0; i < 8; i++) acc1[i] += s1.w * f[i];
            }
          }
        }
        uint4 *out = (uint4 *)((char *)a.out + (size_t)t * a.hidden * 2);
        out[v] = cb_vec_from_float<__nv_bfloat16>(acc0);
        if (second) out[v + 32] = cb_vec_from_float<__nv_bfloat16>(acc1);
      }
    }
    __syncthreads(); /* src[] and the next range's waits */
  }
}

__global__ void __launch_bounds__(kCombThreads) combine_fused_kernel(cb_moe_dev_t a) {
  const uint32_t epoch = a.epoch_combine[blockIdx.x] + 1;
  if ((int)blockIdx.x < a.comb_push_blocks) push_chunks(a, epoch);
  else reduce_tokens(a, epoch);
  if (threadIdx.x == 0) a.epoch_combine[blockIdx.x] = epoch;
}

} // namespace

extern "C" void cb_moe_combine_fused(const cb_moe_dev_t *d, cudaStream_t s) {
  combine_fused_kernel<<<d->push_blocks, kCombThreads, 0, s>>>(*d);
  CB_CUDA_LAUNCH("moe combine_fused_kernel");
}
