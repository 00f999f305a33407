/* Mainloop of the Hopper backward block-attention kernel (attn_bwd_sm90_kernel.cuh): the shared
 * memory of a CTA, the producer warp's loads and one consumer warpgroup's sweep over the query
 * tiles, in the keys' orientation (FlashAttention-3's SdP_swapAB):
 *   S^T = K Q^T, dP^T = V dO^T        (wgmma, both operands K-major from shared memory; two
 *                                      commit groups, so that P^T starts once S^T is in)
 *   P^T = exp2(S^T * scale log2 e - lse log2 e)   (masked as the forward)
 *   dV += P^T dO                      (issued at once: it runs while dS^T is computed)
 *   dS^T = P^T * (dP^T - delta)       (once dP^T is in)
 *   dS^T (16-bit) -> shared memory; both warpgroups' halves complete (named barrier 1), then
 *   dQ_tile = dS K over the CTA's 128 keys (wgmma, both operands MN-major from shared memory;
 *   at D = 128 each warpgroup takes 64 of the columns; at D = 64 both compute all 64 and each
 *   adds half of them: a branch around the wgmma would make ptxas serialize every wgmma of the
 *   kernel, its warning C7520), handed to the epilogue's TMA reductions
 *   (attn_bwd_sm90_epilogue.cuh) while
 *   dK += dS^T Q                      (issued after dQ; P^T / dS^T from registers, dO / Q MN-major)
 *   runs. Each of these overlaps was measured on the H200 against the form before it
 *   (docs/decisions/attention-hopper.md has the numbers and the variants that lost).
 *
 * The producer warp: lane 0 issues K and V once, then each tile's Q and dO (TMA); then its 32
 * lanes load the tile's statistics (lse * log2 e and delta, 64 rows each) into shared memory and
 * arrive on q_full. Staged there rather than in the consumers' registers: 32 registers fewer per
 * consumer thread, which removed ptxas's spills at D = 128.
 *
 * The dS^T buffer is double-buffered: a warpgroup overwrites buffer t % 2 at tile t + 2 only
 * after the named barrier of tile t + 1, which the other warpgroup reaches after its dQ wgmma of
 * tile t has completed. */
#ifndef CB_ATTN_BWD_SM90_MAINLOOP_CUH
#define CB_ATTN_BWD_SM90_MAINLOOP_CUH

#include <cuda.h>
#include <math.h>
#include <stdint.h>

#include "attn_bwd_sm90_epilogue.cuh"
#include "attn_params.h"
#include "attn_sm90_softmax.cuh"
#include "attn_sm90_tile.h"
#include "mma_ptx.cuh"
#include "sm90_ptx.cuh"
#include "sm90_wgmma.cuh"

/* Shared memory of one CTA, 1024-byte aligned (the 128-byte swizzle's atoms), in this order:
 *   K, V         [D/64][128 keys][64] 16-bit each, 128-byte swizzled (sm90_wgmma.cuh's layouts)
 *   Q, dO        [stage][D/64][64 rows][64], the same
 *   dS^T         [2][128 keys][64 rows] 16-bit, swizzled by the key row (cb_bwd_sm90_store_ds)
 *   dQ           [warpgroup][box][64 rows][32] fp32 in the dq map's 128-byte swizzle (the epilogue's)
 *   statistics   [stage][lse * log2 e, delta][64] fp32
 *   mbarriers    kv_full (K and V, once); q_full[stage] (the producer warp's 32 arrivals, lane 0's
 *                with the bytes of Q and dO); q_empty[stage] (every consumer thread's)
 * cb_bwd_sm90_sizes has the sizes, the kernel carves the buffers (cb_bwd_sm90_smem). */
template <int D>
struct cb_bwd_sm90_sizes {
  static constexpr int S = CB_BWD_STAGES, kHalves = D / 64;
  static constexpr uint32_t kKHalf = CB_BWD_BLOCK_N * 128, kQHalf = CB_BWD_BLOCK_M * 128; /* bytes */
  static constexpr uint32_t kKBytes = kHalves * kKHalf, kQBytes = kHalves * kQHalf, kDSBytes = CB_BWD_BLOCK_N * 128;
  static constexpr uint32_t kDqBytes = cb_bwd_dq_boxes(D) * CB_BWD_BLOCK_M * 128; /* per warpgroup */
  static_assert(1024 + 2 * kKBytes + 2 * S * kQBytes + 2 * kDSBytes + CB_SM90_CONSUMER_WGS * kDqBytes +
                        S * 2 * CB_BWD_BLOCK_M * 4 + 8 * (1 + 2 * S) ==
                    cb_attn_bwd_sm90_smem_bytes(D),
                "the launcher's shared-memory size is this layout's");
};

/* The CTA's buffers in that layout (carved by the kernel). */
struct cb_bwd_sm90_smem {
  unsigned char *sK, *sV, *sQ, *sdO, *sdS, *sdQ;
  float *sStat;
  uint64_t *kv_full, *q_full, *q_empty;
};

/* The CTA's work: its 128 keys from n0 of kv head hk, batch b, against `iters` query tiles: for
 * each of the `group` query heads that read the kv head, the ntile tiles from i_lo on (causal:
 * the first whose last row sees key n0). */
struct cb_bwd_sm90_work {
  int hk, b, n0, i_lo, ntile, iters;
  __device__ __forceinline__ int head(const cb_attn_params &p, int it) const { return hk * p.group + it / ntile; }
  __device__ __forceinline__ int row0(int it) const { return (i_lo + it % ntile) * CB_BWD_BLOCK_M; }
};

/* The producer warp (its 32 lanes; the caller has returned the rest of its warpgroup). */
template <int D>
__device__ __forceinline__ void cb_bwd_sm90_load(const CUtensorMap &tq, const CUtensorMap &tk, const CUtensorMap &tv,
                                                 const CUtensorMap &tdo, const cb_attn_bwd_params &bp,
                                                 const cb_bwd_sm90_smem &sm, const cb_bwd_sm90_work &w) {
  using SM = cb_bwd_sm90_sizes<D>;
  constexpr int S = SM::S;
  const cb_attn_params &p = bp.f;
  unsigned char *sK = sm.sK, *sV = sm.sV, *sQ = sm.sQ, *sdO = sm.sdO;
  float *sStat = sm.sStat;
  uint64_t *kv_full = sm.kv_full, *q_full = sm.q_full, *q_empty = sm.q_empty;
  const int lane = threadIdx.x;
  if (lane == 0) {
    cb_tma_prefetch_map(&tq);
    cb_tma_prefetch_map(&tdo);
    cb_mbar_arrive_expect_tx(kv_full, 2 * SM::kKBytes);
#pragma unroll
    for (int hf = 0; hf < SM::kHalves; hf++) {
      cb_tma_load_4d(sK + hf * SM::kKHalf, &tk, kv_full, 64 * hf, w.hk, w.n0, w.b);
      cb_tma_load_4d(sV + hf * SM::kKHalf, &tv, kv_full, 64 * hf, w.hk, w.n0, w.b);
    }
  }
  for (int it = 0; it < w.iters; it++) {
    const int hh = w.head(p, it), m0 = w.row0(it), s = it % S;
    const size_t row_stat = ((size_t)w.b * p.heads + hh) * p.q_len; /* lse / delta of (b, hh, row 0) */
    cb_mbar_wait(&q_empty[s], ((it / S) & 1) ^ 1);
    if (lane == 0) { /* the tile's TMA first, its statistics' loads behind it */
      cb_mbar_expect_tx(&q_full[s], 2 * SM::kQBytes);
#pragma unroll
      for (int hf = 0; hf < SM::kHalves; hf++) {
        cb_tma_load_4d(sQ + s * SM::kQBytes + hf * SM::kQHalf, &tq, &q_full[s], 64 * hf, hh, m0, w.b);
        cb_tma_load_4d(sdO + s * SM::kQBytes + hf * SM::kQHalf, &tdo, &q_full[s], 64 * hf, hh, m0, w.b);
      }
    }
    /* the tile's statistics, 2 rows per lane: lse * log2 e (+inf past q_len or where the row saw
     * no key: P = 0 there) and delta, stored before this lane's arrival on q_full (a release) */
#pragma unroll
    for (int h2 = 0; h2 < 2; h2++) {
      const int m = m0 + lane + 32 * h2;
      const float l = m < p.q_len ? __ldg(bp.lse + row_stat + m) : -INFINITY;
      sStat[(2 * s) * CB_BWD_BLOCK_M + lane + 32 * h2] = l == -INFINITY ? INFINITY : l * CB_ATTN_LOG2E;
      sStat[(2 * s + 1) * CB_BWD_BLOCK_M + lane + 32 * h2] = m < p.q_len ? __ldg(bp.delta + row_stat + m) : 0.0f;
    }
    cb_mbar_arrive(&q_full[s]);
  }
}

/* P^T of a tile in place in its scores S^T (accumulator element 4j + 2r + e = key kr[r], query
 * column m0 + 8j + 2q4 + e; sl[i]: the column's lse * log2 e), masked as the forward where the
 * tile needs it. */
__device__ __forceinline__ void cb_bwd_sm90_probs(float (&st)[32], const cb_attn_params &p, int m0, bool need_mask,
                                                  const int (&kr)[2], const int (&kpos)[2], const float *sl, int q4) {
#pragma unroll
  for (int kk = 0; kk < 4; kk++) /* 16 query columns a step: this nesting compiled 12 % faster */
#pragma unroll
    for (int j = 2 * kk; j < 2 * kk + 2; j++)
#pragma unroll
      for (int r = 0; r < 2; r++)
#pragma unroll
        for (int e = 0; e < 2; e++) {
          const int x = 4 * j + 2 * r + e;
          bool vis = true;
          if (need_mask) {
            const int m = min(m0 + 8 * j + 2 * q4 + e, p.q_len - 1);
            vis = kr[r] < p.kv_len && (!p.causal || kpos[r] <= cb_attn_pos(p.q_start0, p.q_len0, p.q_start1, m));
          }
          st[x] = vis ? cb_ex2(fmaf(st[x], p.scale_log2, -sl[8 * j + 2 * q4 + e])) : 0.0f;
        }
}

/* dS^T (16-bit) into shared memory for dQ: key row kk of the CTA at 128 * kk bytes, query
 * columns in 16-byte chunks swizzled by the row (chunk j at j ^ (kk % 8)). */
template <typename DT>
__device__ __forceinline__ void cb_bwd_sm90_store_ds(unsigned char *dsb, const float (&ds)[32], int c, int wq, int g,
                                                     int q4) {
#pragma unroll
  for (int r = 0; r < 2; r++) {
    const int kk = 64 * c + 16 * wq + g + 8 * r;
#pragma unroll
    for (int j = 0; j < 8; j++)
      *reinterpret_cast<uint32_t *>(dsb + kk * 128 + ((j ^ (kk % 8)) * 16) + 4 * q4) =
          DT::pack(ds[4 * j + 2 * r], ds[4 * j + 2 * r + 1]);
  }
}

/* A consumer thread's place: warpgroup c (its 64 keys of the CTA's 128), warp wq of it, and in
 * wgmma's accumulator layout (sm90_wgmma.cuh) rows g and g + 8 of the warp's 16, column pair q4. */
struct cb_bwd_sm90_thread {
  int c, wq, g, q4;
};

/* One consumer warpgroup over every query tile of the CTA's work, adding into its dK and dV
 * accumulators (64 x D each, fp32, unscaled); kr, kpos: the thread's two key rows and their
 * positions. */
template <typename T, int D>
__device__ __forceinline__ void cb_bwd_sm90_consume(const cb_attn_bwd_params &bp, const cb_bwd_sm90_smem &sm,
                                                    const cb_bwd_sm90_work &w, const cb_bwd_sm90_thread &t,
                                                    const int (&kr)[2], const int (&kpos)[2], float (&dk)[D / 2],
                                                    float (&dv)[D / 2]) {
  using DT = cb_mma_op<T>;
  using SM = cb_bwd_sm90_sizes<D>;
  constexpr int S = SM::S;
  constexpr uint32_t kKHalf = SM::kKHalf, kQHalf = SM::kQHalf, kQBytes = SM::kQBytes, kDSBytes = SM::kDSBytes;
  constexpr int kConsumers = 128 * CB_SM90_CONSUMER_WGS; /* the consumer threads */
  const cb_attn_params &p = bp.f;
  unsigned char *sK = sm.sK, *sV = sm.sV, *sQ = sm.sQ, *sdO = sm.sdO, *sdS = sm.sdS, *sdQ = sm.sdQ;
  float *sStat = sm.sStat;
  uint64_t *kv_full = sm.kv_full, *q_full = sm.q_full, *q_empty = sm.q_empty;
  const int c = t.c, wq = t.wq, g = t.g, q4 = t.q4;
  const uint32_t k_addr = cb_smem_addr(sK), v_addr = cb_smem_addr(sV), q_addr = cb_smem_addr(sQ),
                 do_addr = cb_smem_addr(sdO), ds_addr = cb_smem_addr(sdS);
  cb_mbar_wait(kv_full, 0);

  for (int it = 0; it < w.iters; it++) {
    const int hh = w.head(p, it), m0 = w.row0(it), s = it % S;
    cb_mbar_wait(&q_full[s], (it / S) & 1);
    /* the tile's statistics (the producer's): query column m0 + i at sl[i], sd[i] */
    const float *sl = sStat + (2 * s) * CB_BWD_BLOCK_M, *sd = sl + CB_BWD_BLOCK_M;
    const uint32_t qs = q_addr + s * kQBytes, dos = do_addr + s * kQBytes;
    float st[32], dpt[32];
    cb_wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < D / 16; ks++) { /* S^T = K Q^T: its own group, so P can start before dP^T is in */
      const uint32_t off = (ks / 4) * kKHalf + (ks % 4) * 32;
      cb_wgmma_ss<64>(st, cb_wgmma_desc_sw128(k_addr + off + c * 64 * 128, 16, 1024),
                      cb_wgmma_desc_sw128(qs + (ks / 4) * kQHalf + (ks % 4) * 32, 16, 1024), ks > 0, DT::bf16);
    }
    cb_wgmma_commit();
#pragma unroll
    for (int ks = 0; ks < D / 16; ks++) { /* dP^T = V dO^T */
      const uint32_t off = (ks / 4) * kKHalf + (ks % 4) * 32;
      cb_wgmma_ss<64>(dpt, cb_wgmma_desc_sw128(v_addr + off + c * 64 * 128, 16, 1024),
                      cb_wgmma_desc_sw128(dos + (ks / 4) * kQHalf + (ks % 4) * 32, 16, 1024), ks > 0, DT::bf16);
    }
    cb_wgmma_commit();
    cb_wgmma_wait<1>(); /* S^T is in; dP^T may still run */
    cb_wgmma_fence_operand(st);

    /* P^T while dP^T runs; dV += P^T dO is issued as soon as P^T is packed, then dS^T once dP^T
     * is in */
    const bool need_mask =
        w.n0 + CB_BWD_BLOCK_N > p.kv_len || (p.causal && cb_attn_row_keys(p, m0) < w.n0 + CB_BWD_BLOCK_N);
    uint32_t pa[4][4], dsa[4][4];
    cb_bwd_sm90_probs(st, p, m0, need_mask, kr, kpos, sl, q4);
    cb_sm90_pack_p<DT, 64>(st, pa);
    cb_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; kk++) /* dV += P^T dO: 16 query rows a step */
      cb_wgmma_rs_tb<D>(dv, pa[kk], cb_wgmma_desc_sw128(dos + kk * 2048, kQHalf, 1024), DT::bf16);
    cb_wgmma_commit();
    cb_wgmma_wait<1>(); /* dP^T is in; dV may still run */
    cb_wgmma_fence_operand(dpt);
#pragma unroll
    for (int j = 0; j < 8; j++)
#pragma unroll
      for (int x = 4 * j; x < 4 * j + 4; x++) dpt[x] = st[x] * (dpt[x] - sd[8 * j + 2 * q4 + (x & 1)]); /* dS^T */
    cb_sm90_pack_p<DT, 64>(dpt, dsa);
    cb_bwd_sm90_store_ds<DT>(sdS + (it & 1) * kDSBytes, dpt, c, wq, g, q4);
    cb_fence_proxy_async_smem();
    cb_named_bar_sync(1, kConsumers); /* both warpgroups' dS^T halves are in shared memory */
    float dq[32];
    cb_wgmma_fence();
    {
      const uint32_t dsa_addr = ds_addr + (it & 1) * kDSBytes, kcol = k_addr + (D == 128 ? c : 0) * kKHalf;
#pragma unroll
      for (int kk = 0; kk < CB_BWD_BLOCK_N / 16; kk++) /* dQ = dS K over the 128 keys */
        cb_wgmma_ss<64, 1, 1>(dq, cb_wgmma_desc_sw128(dsa_addr + kk * 2048, kDSBytes, 1024),
                              cb_wgmma_desc_sw128(kcol + kk * 2048, kKHalf, 1024), kk > 0, DT::bf16);
      cb_wgmma_commit();
    }
    cb_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; kk++) /* dK += dS^T Q, after dQ: dQ's reductions run while it does */
      cb_wgmma_rs_tb<D>(dk, dsa[kk], cb_wgmma_desc_sw128(qs + kk * 2048, kQHalf, 1024), DT::bf16);
    cb_wgmma_commit();
    cb_wgmma_wait<1>(); /* dQ is in; dK may still run */
    cb_wgmma_fence_operand(dq);
    cb_bwd_sm90_dq_add<D>(bp, sdQ + c * SM::kDqBytes, dq, c, wq, g, q4);
    cb_wgmma_wait<0>();
    cb_wgmma_fence_operand(dk);
    cb_wgmma_fence_operand(dv);
    cb_wgmma_fence_operand(pa);
    cb_wgmma_fence_operand(dsa);
    cb_mbar_arrive(&q_empty[s]);
  }
}

#endif
