/* The custom path's MoE combine in one kernel (moe.h cb_moe_combine_fused): pushing and
 * reducing overlap instead of running as two passes.
 *
 * Roles (a block's role index: its block index, or cb_spread_role's spread of it when the kernel
 * runs in clusters, kernels/spread.cuh) [0, comb_push_blocks) push: for every remote source q,
 * the rows this rank received from q are weighted (identity experts: y = (sum of the row's local
 * expert weights) * x, fp32, rounded once to bf16) and stored into q's combine region for this
 * rank, chunk by chunk (chunk_rows rows); after a chunk, one release store raises its flag in
 * q's memory:
 *   flags (peer memory of each rank, at chunk_off): uint32 [source d][nchunks], value = the
 *   combine call's epoch (per-block epoch words, equal on every block and every rank).
 * Roles [comb_push_blocks, push_blocks) reduce this rank's tokens, one warp per token (or per
 * slice of a token's row at decode sizes, reduce_tokens): the warp waits for the flags of the
 * chunks holding its token's rows, then sums its own row weighted straight from the local
 * receive buffer (the self destination needs no copy) and the combine rows that came back, in
 * rank order, in fp32, and writes out[t] in bf16.
 *
 * Buffer reuse: a peer overwrites this rank's combine region only in its next combine, which
 * starts after its next dispatch was signalled by this rank (peer: the peer's expert-layout
 * kernel waited for this rank's completion counter; peer_ll: each block of the peer's dispatch
 * waited for this rank's flag of the same block), i.e. after this kernel ended; and
 * this rank's next dispatch overwrites a peer's receive rows only after every chunk flag from
 * that peer arrived here (the peer's pushers have read them). */
#include "error_gpu.h"
#include "moe_rows.cuh"
#include "moe_trace.cuh"
#include "pdl.cuh"
#include "spread.cuh"

namespace {

using namespace cb_moe;

constexpr int kCombThreads = 1024;
constexpr int kCombWarps = kCombThreads / 32;

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

/* Weights and stores chunk c's rows (rows [j0, j1) from source q) with warps 1..31 of the
 * block; warp 0 is the block's control warp (push_chunks). */
__device__ __forceinline__ void push_chunk_rows(const cb_moe_dev_t &a, int q, int j0, int j1, int warp, int lane) {
  const int P = row_parts(a.hidden);
  for (int it = warp - 1; it < (j1 - j0) * P; it += kCombWarps - 1) {
    const int j = j0 + it / P, part = it % P;
    const size_t row = (size_t)q * a.cap + j;
    const char *x = a.recv_rows + row * a.row_bytes;
    uint4 *y = (uint4 *)(a.comb_dst[q] + (size_t)j * a.comb_row_bytes);
    const int v0 = part * kPartChannels / 8, v1 = min(a.hidden, (part + 1) * kPartChannels) / 8;
    uint4 raw[4];
#pragma unroll
    for (int u = 0; u < 4; u++)
      if (v0 + lane + 32 * u < v1) raw[u] = load_dispatched(a, x, v0 + lane + 32 * u);
    /* the row's weight after its data loads are issued (both in flight at once) */
    const float w = local_weight_sum(a, a.recv_meta + row * a.meta_bytes, lane);
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
}

/* Chunks alternate between sources so every source's first rows go out first. The push block
 * of role b (spread.cuh: its block index in a plain launch) moves chunk b, then chunks claimed
 * from the call's counter (moe.h CB_MOE_WORK_*; fixed stripes left blocks on some SMs pushing
 * long after the others were done). Warps 1..31 move the rows; warp 0 claims the next chunk
 * while they do, and after the chunk's barrier raises its flag: the flag's system-scope release
 * waits for the chunk's stores to land (~4 us at 4096 tokens), and with warp 0 alone waiting the
 * other warps go on with the next chunk (the whole block used to wait for it, chunk after
 * chunk).
 *   chunk_of[k & 1]: the block's k-th chunk, written by warp 0 before barrier k - 1, read by
 *   the others before barrier k; warp 0 writes that slot again (chunk k + 2) only after
 *   barrier k. */
__device__ void push_chunks(const cb_moe_dev_t &a, uint32_t epoch, int vb) {
  const int n = a.nranks, r = a.rank, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (n < 2) return;
  const int nsrc = n - 1;
  int maxc = 0;
  for (int q = 0; q < n; q++)
    if (q != r) maxc = max(maxc, (int)a.recv_count[q]);
  const int CH = a.chunk_rows, nchunks = (maxc + CH - 1) / CH * nsrc;
  uint32_t *claim = a.work + CB_MOE_WORK_COMBINE + (epoch & 1u);
  if (vb == 0 && threadIdx.x == 0) a.work[CB_MOE_WORK_COMBINE + ((epoch + 1u) & 1u)] = 0; /* the next call's */
  __shared__ int chunk_of[2];
  int c = vb;
  for (int k = 0; c < nchunks; k++) {
    const int ci = c / nsrc, qi = c % nsrc, q = qi < r ? qi : qi + 1;
    const int j0 = ci * CH, j1 = min((int)a.recv_count[q], j0 + CH); /* j0 >= j1: nothing (whole block) */
    if (warp == 0) {
      int next = 0;
      if (lane == 0) next = a.comb_push_blocks + (int)atomicAdd(claim, 1u);
      if (lane == 0) chunk_of[(k + 1) & 1] = next;
    } else {
      push_chunk_rows(a, q, j0, j1, warp, lane);
    }
    __syncthreads(); /* chunk c's rows are stored, by every warp; chunk_of[(k + 1) & 1] is written */
    if (threadIdx.x == 0 && j0 < j1) {
      if (k == 0) CB_MOE_TRACE_AT(a, CB_MOE_TK_COMBINE, epoch, CB_MOE_TP_A);
      cb_st_release_sys(chunk_flag(a, q, r, ci), epoch);
      CB_MOE_TRACE_AT(a, CB_MOE_TK_COMBINE, epoch, k == 0 ? CB_MOE_TP_B : CB_MOE_TP_PUSHED);
    }
    c = chunk_of[(k + 1) & 1];
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

/* 16-byte vectors per lane and source in flight on 2 ranks (at most two sources per token):
 * 8 loads of 16 bytes per lane, 128 KB per SM (was 4 loads, 64 KB). */
constexpr int kReduceVecs = 4;
/* ... and with more sources (summed two at a time into fp32 accumulators that must stay live:
 * 2 x 8 floats within the 64 registers of a 1024-thread block). */
constexpr int kReduceVecsMany = 2;

template <bool FP8>
__device__ __forceinline__ uint4 load_source(int hidden, const source &s, int v) {
  if (FP8 && s.dispatched) {
    const uint2 q = *(const uint2 *)(s.row + (size_t)v * 8);
    return make_uint4(q.x, q.y, __float_as_uint(((const float *)(s.row + hidden))[v / 16]), 0u);
  }
  return ((const uint4 *)s.row)[v];
}

/* acc += s.w * (vector raw of source s), channel by channel (unpacked in place: no float
 * array beside the loads still in flight). */
template <bool FP8>
__device__ __forceinline__ void add_source(const source &s, const uint4 &raw, float (&acc)[8]) {
  if (FP8 && s.dispatched) {
    float f[8];
    dispatched_to_float(true, raw, f);
#pragma unroll
    for (int i = 0; i < 8; i++) acc[i] += s.w * f[i];
    return;
  }
  const uint32_t w[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int i = 0; i < 4; i++) {
    acc[2 * i] += s.w * bf16_lo(w[i]);
    acc[2 * i + 1] += s.w * bf16_hi(w[i]);
  }
}

/* out[v + 32u] (u < kReduceVecs, below v1) = the sum of a token's ns <= 2 sources: s0 (this
 * rank's dispatched row if the token came here, else a combine row) and s1 (always a combine
 * row: weight 1, bf16), every load issued before the first sum. */
template <bool FP8>
__device__ __forceinline__ void sum_upto2(int hidden, const source &s0, const uint4 *s1, int ns, int v, int v1,
                                          uint4 *out) {
  uint4 x0[kReduceVecs], x1[kReduceVecs];
#pragma unroll
  for (int u = 0; u < kReduceVecs; u++) {
    const int vu = v + 32 * u;
    if (vu >= v1) continue;
    if (ns > 0) x0[u] = load_source<FP8>(hidden, s0, vu);
    if (ns > 1) x1[u] = s1[vu];
  }
#pragma unroll
  for (int u = 0; u < kReduceVecs; u++) {
    const int vu = v + 32 * u;
    if (vu >= v1) continue;
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (ns > 0) add_source<FP8>(s0, x0[u], acc);
    if (ns > 1) {
      const uint32_t w[4] = {x1[u].x, x1[u].y, x1[u].z, x1[u].w};
#pragma unroll
      for (int i = 0; i < 4; i++) {
        acc[2 * i] += bf16_lo(w[i]);
        acc[2 * i + 1] += bf16_hi(w[i]);
      }
    }
    out[vu] = cb_vec_from_float<__nv_bfloat16>(acc);
  }
}

/* The same for ns > 2 sources, two at a time (kReduceVecsMany vectors of each in flight). */
template <bool FP8>
__device__ __forceinline__ void sum_many(int hidden, const source *src, int ns, int v, int v1, uint4 *out) {
  float acc[kReduceVecsMany][8];
#pragma unroll
  for (int u = 0; u < kReduceVecsMany; u++)
#pragma unroll
    for (int i = 0; i < 8; i++) acc[u][i] = 0.0f;
  for (int k = 0; k < ns; k += 2) {
    const source s0 = src[k];
    const bool two = k + 1 < ns;
    const source s1 = two ? src[k + 1] : s0;
    uint4 x0[kReduceVecsMany], x1[kReduceVecsMany];
#pragma unroll
    for (int u = 0; u < kReduceVecsMany; u++) {
      const int vu = v + 32 * u;
      if (vu >= v1) continue;
      x0[u] = load_source<FP8>(hidden, s0, vu);
      if (two) x1[u] = load_source<FP8>(hidden, s1, vu);
    }
#pragma unroll
    for (int u = 0; u < kReduceVecsMany; u++) {
      if (v + 32 * u >= v1) continue;
      add_source<FP8>(s0, x0[u], acc[u]);
      if (two) add_source<FP8>(s1, x1[u], acc[u]);
    }
  }
#pragma unroll
  for (int u = 0; u < kReduceVecsMany; u++)
    if (v + 32 * u < v1) out[v + 32 * u] = cb_vec_from_float<__nv_bfloat16>(acc[u]);
}

/* Vectors v, v + 32, ... below v1 of a token's sum (one lane's share of an item). TWO: at most
 * two ranks, so at most two sources per token (the self row first: src[1] is never it). */
template <bool FP8, bool TWO>
__device__ __forceinline__ void sum_slice(int hidden, const source *src, int ns, int v, int v1, uint4 *out) {
  if (TWO) {
    const source none = {nullptr, 0.0f, 0}; /* a token that went nowhere sums to zeros */
    const source s0 = ns > 0 ? src[0] : none;
    const uint4 *s1 = (const uint4 *)(ns > 1 ? src[1].row : nullptr);
    for (; v < v1; v += 32 * kReduceVecs) sum_upto2<FP8>(hidden, s0, s1, ns, v, v1, out);
  } else {
    for (; v < v1; v += 32 * kReduceVecsMany) sum_many<FP8>(hidden, src, ns, v, v1, out);
  }
}

/* Items: a token's row in slices of PI row parts, one warp each, PI = P (whole rows: the
 * token's positions, self weight and chunk waits looked up once for all P parts) when the
 * reduce warps have at least one token each, fewer parts per item at decode sizes so every
 * reduce warp still gets work (at 128 tokens: single parts, as before). Item i goes to warp
 * i mod W of the reduce grid, counted block-minor (consecutive items on different SMs), so
 * items are taken in token order, the order their chunks land in. Each warp waits for its own
 * token's chunks (lane d for destination d, then the warp barrier, which orders the other
 * lanes' loads after the acquire): no block-wide barrier, warps proceed independently. */
template <bool FP8, bool TWO>
__device__ void reduce_tokens(const cb_moe_dev_t &a, uint32_t epoch, int vb) {
  __shared__ source src[kCombWarps][CB_MAX_RANKS];
  const int n = a.nranks, r = a.rank, T = a.ntokens, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int P = row_parts(a.hidden);
  const int nred = gridDim.x - a.comb_push_blocks, b = vb - a.comb_push_blocks, W = nred * kCombWarps;
  const int PI = max(1, min(P, (int)((long long)T * P / W))), G = (P + PI - 1) / PI;
  for (int i = warp * nred + b; i < T * G; i += W) {
    const int t = i / G, g = i % G;
    /* the token's sources: lane d looks up destination d, all at once */
    const int pos = lane < n ? a.send_pos[(size_t)t * n + lane] : -1;
    const unsigned has = __ballot_sync(0xffffffffu, pos >= 0);
    const int pself = __shfl_sync(0xffffffffu, pos, r);
    const size_t self_row = (size_t)r * a.cap + (pself >= 0 ? pself : 0);
    /* the self row's weight (whole warp: a shuffle reduction), when the token came here; it is
     * local (this rank's dispatch), so looked up before the wait */
    const float wself = pself >= 0 ? local_weight_sum(a, a.recv_meta + self_row * a.meta_bytes, lane) : 0.0f;
    if (lane < n && lane != r && pos >= 0)
      cb_wait_geq_acquire_sys(chunk_flag(a, r, lane, pos / a.chunk_rows), epoch, a.timeout_ns, a.ctl, r, lane, 1);
    __syncwarp(); /* the acquires above, for every lane; the previous item's readers of src[warp] are done */
    if (threadIdx.x == 0 && i == b) CB_MOE_TRACE_AT(a, CB_MOE_TK_COMBINE, epoch, CB_MOE_TP_SIGNALLED);
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
      /* the self row first (the only dispatched one: sum_upto2 relies on it), then the
       * combine rows in rank order */
      const unsigned others = has & ~(1u << r);
      src[warp][lane == r ? 0 : (pself >= 0) + __popc(others & ((1u << lane) - 1u))] = s;
    }
    __syncwarp();
    const int ns = __popc(has);
    const int v0 = g * PI * kPartChannels / 8, v1 = min(a.hidden, (g + 1) * PI * kPartChannels) / 8;
    uint4 *out = (uint4 *)((char *)a.out + (size_t)t * a.hidden * 2);
    sum_slice<FP8, TWO>(a.hidden, src[warp], ns, v0 + lane, v1, out);
  }
  if (threadIdx.x == 0) CB_MOE_TRACE_AT(a, CB_MOE_TK_COMBINE, epoch, CB_MOE_TP_WAITED);
}

/* One instance per dispatch dtype (FP8 = a.fp8) and one reduce loop per source bound (2 ranks
 * or more): each sum then has one code path, which keeps it within the 64 registers of a
 * 1024-thread block (all four paths in one loop spilled 100-200 bytes, -Xptxas -v for sm_90;
 * this way bf16 spills nothing and fp8 28 bytes, the old kernel 24). */
template <bool FP8>
__global__ void __launch_bounds__(kCombThreads) combine_fused_kernel(cb_moe_dev_t a) {
  cb_griddep_wait(); /* the previous kernel (the dispatch) is complete (pdl.cuh) */
  cb_griddep_launch();
  const uint32_t epoch = a.epoch_combine[blockIdx.x] + 1;
  if (threadIdx.x == 0) CB_MOE_TRACE_AT(a, CB_MOE_TK_COMBINE, epoch, CB_MOE_TP_START);
  /* the block's role (spread.cuh): push blocks spread over the grid's clusters (GPCs) */
  const int vb = cb_spread_role(); /* role index: block order unless launched in clusters */
  if (vb < a.comb_push_blocks) push_chunks(a, epoch, vb);
  else if (a.nranks <= 2) reduce_tokens<FP8, true>(a, epoch, vb); /* two item loops: one sum path each */
  else reduce_tokens<FP8, false>(a, epoch, vb);
  CB_MOE_TRACE_BLOCK(a, CB_MOE_TK_COMBINE, epoch, CB_MOE_TP_END);
  if (threadIdx.x == 0) a.epoch_combine[blockIdx.x] = epoch;
}

} // namespace

extern "C" int cb_moe_combine_cluster(const cb_moe_dev_t *d) {
  if (!d->combine_spread) return 1;
  return d->fp8 ? cb_spread_cluster((const void *)combine_fused_kernel<true>, d->push_blocks, kCombThreads)
                : cb_spread_cluster((const void *)combine_fused_kernel<false>, d->push_blocks, kCombThreads);
}
extern "C" void cb_moe_combine_fused(const cb_moe_dev_t *d, cudaStream_t s) {
  /* spread over the GPCs (spread.cuh; blocks wait on each other: clusters only if all fit) */
  const bool spread = d->combine_spread != 0;
  if (d->fp8) CB_CUDA(cb_launch_spread(combine_fused_kernel<true>, d->push_blocks, kCombThreads, s, true, spread, *d));
  else CB_CUDA(cb_launch_spread(combine_fused_kernel<false>, d->push_blocks, kCombThreads, s, true, spread, *d));
  CB_CUDA_LAUNCH("moe combine_fused_kernel");
}
