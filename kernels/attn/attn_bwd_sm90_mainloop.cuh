/* Mainloop of the Hopper backward block-attention kernel (attn_bwd_sm90_kernel.cuh): the shared
 * memory of a CTA, the producer warp's loads and one consumer warpgroup's sweep over the query
 * tiles, in the keys' orientation (FlashAttention-3's SdP_swapAB):
 *   S^T = K Q^T, dP^T = V dO^T        (wgmma, both operands K-major from shared memory; two
 *                                      commit groups, so that P^T starts once S^T is in)
 *   P^T = exp2(S^T * scale log2 e - lse log2 e)   (masked as the forward)
 *   dV += P^T dO                      (D = 128 issued at once: it runs while dS^T is computed)
 *   dS^T = P^T * (dP^T - delta)       (once dP^T is in; D = 64 P^T from its 16-bit pairs, and dV
 *                                      issued after it: it runs under dS^T's store and dQ)
 *   dS^T (16-bit) -> shared memory; both warpgroups' halves complete (named barrier 1), then
 *   dQ_tile = dS K over the CTA's 128 keys (wgmma, both operands MN-major from shared memory;
 *   each warpgroup its own 64 x 64 block: D = 128 half of the columns, D = 64 half of the rows),
 *   handed to the epilogue's TMA reductions (attn_bwd_sm90_epilogue.cuh) while
 *   dK += dS^T Q                      (issued after dQ; P^T / dS^T from registers, dO / Q MN-major)
 *   runs, and behind it the next tile's S^T (D = 64: before this tile's dK is in; D = 128 once
 *   it is: attn_sm90_tile.h says why). Each of these overlaps was measured on
 *   the H200 against the form before it (docs/decisions/attention-hopper.md has the numbers and
 *   the variants that lost).
 *
 * The producer warp: lane 0 issues K and V once, then each tile's Q and dO (TMA); then its 32
 * lanes load the tile's statistics (lse * log2 e and delta, BLOCK_M rows each) into shared
 * memory and arrive on q_full. Staged there rather than in the consumers' registers: 32
 * registers fewer per consumer thread, which removed ptxas's spills at D = 128.
 *
 * Every wgmma's shared-memory descriptor is one add to a descriptor the consumer makes once per
 * operand (cb_wgmma_desc_add), and the warpgroup index is warp-uniform (the kernel's): the
 * descriptor math then runs on the uniform datapath, not per thread (R2UR 73 -> 26 at D 128).
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
#include "attn_bwd_sm90_schedule.h"
#include "attn_params.h"
#include "attn_sm90_softmax.cuh"
#include "attn_sm90_tile.h"
#include "mma_ptx.cuh"
#include "sm90_ptx.cuh"
#include "sm90_wgmma.cuh"

/* Shared memory of one CTA, 1024-byte aligned (the 128-byte swizzle's atoms), in this order:
 *   K, V         [D/64][128 keys][64] 16-bit each, 128-byte swizzled (sm90_wgmma.cuh's layouts)
 *   Q, dO        [stage][D/64][BLOCK_M rows][64], the same
 *   dS^T         [2][BLOCK_M/64][128 keys][64 rows] 16-bit, swizzled by the key row
 *                (cb_bwd_sm90_store_ds)
 *   dQ           [warpgroup][box][64 rows][32] fp32 in the dq map's 128-byte swizzle (the epilogue's)
 *   statistics   [stage][lse * log2 e, delta][BLOCK_M] fp32
 *   mbarriers    kv_full (K and V, once); q_full[stage] (the producer warp's 32 arrivals, lane 0's
 *                with the bytes of Q and dO); q_empty[stage] (every consumer thread's)
 * cb_bwd_sm90_sizes has the sizes, the kernel carves the buffers (cb_bwd_sm90_smem). */
template <int D>
struct cb_bwd_sm90_sizes {
  static constexpr int S = cb_bwd_stages(D), BM = cb_bwd_block_m(D), kHalves = D / 64;
  static constexpr uint32_t kKHalf = CB_BWD_BLOCK_N * 128, kQHalf = BM * 128; /* bytes */
  static constexpr uint32_t kKBytes = kHalves * kKHalf, kQBytes = kHalves * kQHalf;
  static constexpr uint32_t kDSHalf = CB_BWD_BLOCK_N * 128, kDSBytes = (BM / 64) * kDSHalf; /* dS^T: 64 rows a half */
  static constexpr uint32_t kDqBytes = CB_BWD_DQ_BOXES * CB_BWD_DQ_ROWS * 128;              /* per warpgroup */
  static_assert(BM * D == CB_SM90_CONSUMER_WGS * CB_BWD_DQ_ROWS * CB_BWD_DQ_COLS,
                "dQ's tile is one 64 x 64 block per consumer warpgroup");
  static_assert(1024 + 2 * kKBytes + 2 * S * kQBytes + 2 * kDSBytes + CB_SM90_CONSUMER_WGS * kDqBytes + S * 2 * BM * 4 +
                        8 * (1 + 2 * S) ==
                    cb_attn_bwd_sm90_smem_bytes(D),
                "the launcher's shared-memory size is this layout's");
};

/* The CTA's buffers in that layout (carved by the kernel). */
struct cb_bwd_sm90_smem {
  unsigned char *sK, *sV, *sQ, *sdO, *sdS, *sdQ;
  float *sStat;
  uint64_t *kv_full, *q_full, *q_empty;
};

/* The producer warp (its 32 lanes; the caller has returned the rest of its warpgroup). */
template <int D>
__device__ __forceinline__ void cb_bwd_sm90_load(const CUtensorMap &tq, const CUtensorMap &tk, const CUtensorMap &tv,
                                                 const CUtensorMap &tdo, const cb_attn_bwd_params &bp,
                                                 const cb_bwd_sm90_smem &sm,
                                                 const cb_bwd_sm90_work<cb_bwd_block_m(D)> &w) {
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
    const int hh = w.head(it), m0 = w.row0(it), s = it % S;
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
    /* the tile's statistics, BLOCK_M / 32 rows per lane: lse * log2 e (+inf past q_len or where
     * the row saw no key: P = 0 there) and delta, stored before this lane's arrival on q_full (a
     * release) */
#pragma unroll
    for (int h2 = 0; h2 < SM::BM / 32; h2++) {
      const int m = m0 + lane + 32 * h2;
      const float l = m < p.q_len ? __ldg(bp.lse + row_stat + m) : -INFINITY;
      sStat[(2 * s) * SM::BM + lane + 32 * h2] = l == -INFINITY ? INFINITY : l * CB_ATTN_LOG2E;
      sStat[(2 * s + 1) * SM::BM + lane + 32 * h2] = m < p.q_len ? __ldg(bp.delta + row_stat + m) : 0.0f;
    }
    cb_mbar_arrive(&q_full[s]);
  }
}

/* P^T of a tile in place in its scores S^T (64 keys x BM queries; accumulator element
 * 4j + 2r + e = key kr[r], query column m0 + 8j + 2q4 + e; sl[i]: the column's lse * log2 e, read
 * as float2 pairs: columns 8j + 2q4 and + 1 are adjacent), masked as the forward where the tile
 * needs it. Two straight-line paths chosen once per tile: without a mask no compare at all; with
 * one, the exponent is selected to -inf where a key is hidden (ex2 gives 0), with no branch. */
template <int BM>
__device__ __forceinline__ void cb_bwd_sm90_probs(float (&st)[BM / 2], const cb_attn_params &p, int m0, bool need_mask,
                                                  const int (&kr)[2], const int (&kpos)[2], const float *sl, int q4) {
  /* BM = 64: the 8 pairs read up front (the measured kernel's code); BM = 128: each where it is
   * used (16 pairs up front are 32 registers at the tile's peak, beside S^T, dP^T, dK and dV) */
  constexpr int kPre = BM == 64 ? BM / 8 : 0;
  float2 l2[kPre > 0 ? kPre : 1];
#pragma unroll
  for (int j = 0; j < kPre; j++) l2[j] = *reinterpret_cast<const float2 *>(sl + 8 * j + 2 * q4);
  auto lse2 = [&](int j) {
    if constexpr (kPre > 0) return l2[j];
    else return *reinterpret_cast<const float2 *>(sl + 8 * j + 2 * q4);
  };
  const float sc = p.scale_log2;
  if (!need_mask) {
#pragma unroll
    for (int kk = 0; kk < BM / 16; kk++) /* 16 query columns a step: this nesting compiled 12 % faster */
#pragma unroll
      for (int j = 2 * kk; j < 2 * kk + 2; j++) {
        const float2 l = lse2(j);
#pragma unroll
        for (int r = 0; r < 2; r++) {
          st[4 * j + 2 * r] = cb_ex2(fmaf(st[4 * j + 2 * r], sc, -l.x));
          st[4 * j + 2 * r + 1] = cb_ex2(fmaf(st[4 * j + 2 * r + 1], sc, -l.y));
        }
      }
    return;
  }
  const bool in0 = kr[0] < p.kv_len, in1 = kr[1] < p.kv_len, causal = p.causal;
#pragma unroll
  for (int j = 0; j < BM / 8; j++)
#pragma unroll
    for (int e = 0; e < 2; e++) {
      const int m = min(m0 + 8 * j + 2 * q4 + e, p.q_len - 1);
      const int qp = cb_attn_pos(p.q_start0, p.q_len0, p.q_start1, m);
      const float l = e ? lse2(j).y : lse2(j).x;
#pragma unroll
      for (int r = 0; r < 2; r++) {
        const bool vis = (r ? in1 : in0) & (!causal | (kpos[r] <= qp));
        const int x = 4 * j + 2 * r + e;
        st[x] = cb_ex2(vis ? fmaf(st[x], sc, -l) : -INFINITY);
      }
    }
}

/* dS^T (16-bit) into the buffer at shared address dsb for dQ, the 16-bit pairs taken from the
 * dK operand dsa (dsa[kk][0..3] = rows g, g + 8 of query chunks 2kk, 2kk + 1). Each 64 query
 * columns are a half of kDSHalf bytes; in it key row kk of the CTA lies at 128 kk bytes, its
 * query columns in 16-byte chunks swizzled by the row (chunk j at j ^ (kk % 8)): the thread's
 * column pair q4 of chunk j is then at a ^ 16 j with a = dsb + 128 kk + 16 (kk % 8) + 4 q4 (dsb
 * is 1024-byte aligned, the row's chunk bits start at zero), one XOR per store. */
template <int BM>
__device__ __forceinline__ void cb_bwd_sm90_store_ds(uint32_t dsb, const uint32_t (&dsa)[BM / 16][4], int c, int wq,
                                                     int g, int q4) {
  constexpr uint32_t kDSHalf = CB_BWD_BLOCK_N * 128;
  uint32_t off[2]; /* both rows' offsets first: the measured kernel's order (its SASS) */
#pragma unroll
  for (int r = 0; r < 2; r++) {
    const int kk = 64 * c + 16 * wq + g + 8 * r;
    off[r] = (uint32_t)(kk * 128 + 16 * (kk % 8) + 4 * q4);
  }
#pragma unroll
  for (int h = 0; h < BM / 64; h++)
#pragma unroll
    for (int r = 0; r < 2; r++) {
      const uint32_t a = dsb + h * kDSHalf + off[r];
#pragma unroll
      for (int j = 0; j < 8; j++) cb_st_shared_b32(a ^ (16u * j), dsa[4 * h + j / 2][2 * (j % 2) + r]);
    }
}

/* acc = A B^T, 64 keys x BM query rows over the D columns (S^T = K Q^T, dP^T = V dO^T): a, b
 * the K-major descriptors of the warpgroup's K or V rows and of the stage's Q or dO; one commit
 * group. */
template <int D>
__device__ __forceinline__ void cb_bwd_sm90_keys_by_rows(float (&acc)[cb_bwd_block_m(D) / 2], uint64_t a, uint64_t b,
                                                         bool bf16) {
  using SM = cb_bwd_sm90_sizes<D>;
#pragma unroll
  for (int ks = 0; ks < D / 16; ks++) /* k16 step ks: 64-column half ks / 4, 32 bytes a step in it */
    cb_wgmma_ss<SM::BM>(acc, cb_wgmma_desc_add(a, (ks / 4) * SM::kKHalf + (ks % 4) * 32),
                        cb_wgmma_desc_add(b, (ks / 4) * SM::kQHalf + (ks % 4) * 32), ks > 0, bf16);
  cb_wgmma_commit();
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
                                                    const cb_bwd_sm90_work<cb_bwd_block_m(D)> &w,
                                                    const cb_bwd_sm90_thread &t, const int (&kr)[2],
                                                    const int (&kpos)[2], float (&dk)[D / 2], float (&dv)[D / 2]) {
  using DT = cb_mma_op<T>;
  using SM = cb_bwd_sm90_sizes<D>;
  constexpr int S = SM::S, BM = SM::BM;
  constexpr uint32_t kKHalf = SM::kKHalf, kQHalf = SM::kQHalf, kQBytes = SM::kQBytes, kDSBytes = SM::kDSBytes;
  constexpr int kConsumers = 128 * CB_SM90_CONSUMER_WGS; /* the consumer threads */
  constexpr bool kDsFrom16 = cb_bwd_ds_from_16bit_p(D);
  const cb_attn_params &p = bp.f;
  float *sStat = sm.sStat;
  uint64_t *kv_full = sm.kv_full, *q_full = sm.q_full, *q_empty = sm.q_empty;
  const int c = t.c, wq = t.wq, g = t.g, q4 = t.q4;
  const uint32_t k_addr = cb_smem_addr(sm.sK), v_addr = cb_smem_addr(sm.sV), q_addr = cb_smem_addr(sm.sQ),
                 do_addr = cb_smem_addr(sm.sdO), ds_addr = cb_smem_addr(sm.sdS);
  cb_mbar_wait(kv_full, 0);
  /* the operands' descriptors, once: K-major the warpgroup's K and V rows, Q and dO (stage 0; S^T
   * and dP^T), MN-major Q and dO (dK's and dV's B), dS^T (dQ's A: D = 64 the warpgroup's half of
   * the query rows) and K (dQ's B: D = 128 from the warpgroup's first column) */
  const uint64_t kd = cb_wgmma_desc_sw128(k_addr + c * 64 * 128, 16, 1024),
                 vd = cb_wgmma_desc_sw128(v_addr + c * 64 * 128, 16, 1024), qd = cb_wgmma_desc_sw128(q_addr, 16, 1024),
                 dod = cb_wgmma_desc_sw128(do_addr, 16, 1024), qtd = cb_wgmma_desc_sw128(q_addr, kQHalf, 1024),
                 dotd = cb_wgmma_desc_sw128(do_addr, kQHalf, 1024),
                 dsd = cb_wgmma_desc_sw128(ds_addr + (BM == 128 ? c * SM::kDSHalf : 0u), SM::kDSHalf, 1024);
  const uint64_t kqd = cb_wgmma_desc_sw128(k_addr + (D == 128 ? c * kKHalf : 0u), kKHalf, 1024);

  /* S^T runs a tile ahead (attn_sm90_tile.h): tile 0's is issued here, each next tile's at the
   * end of the one before */
  float st[BM / 2];
  cb_mbar_wait(&q_full[0], 0);
  cb_wgmma_fence();
  cb_bwd_sm90_keys_by_rows<D>(st, kd, qd, DT::bf16);

  for (int it = 0; it < w.iters; it++) {
    const int m0 = w.row0(it), s = it % S;
    cb_mbar_wait(&q_full[s], (it / S) & 1); /* complete already (waited for where S^T was issued):
                                             * kept, the measured kernel's code */
    /* the tile's statistics (the producer's): query column m0 + i at sl[i], sd[i] */
    const float *sl = sStat + (2 * s) * BM, *sd = sl + BM;
    float dpt[BM / 2];
    cb_wgmma_fence();
    cb_bwd_sm90_keys_by_rows<D>(dpt, vd, cb_wgmma_desc_add(dod, s * kQBytes), DT::bf16);
    cb_wgmma_wait<1>(); /* S^T is in; dP^T may still run */
    cb_wgmma_fence_operand(st);

    /* P^T while dP^T runs. D = 128: dV += P^T dO is issued as soon as P^T is packed, then dS^T
     * once dP^T is in, from P^T in fp32. D = 64: dS^T from P^T's 16-bit pairs (its fp32 form, 64
     * registers, dies at the packing: attn_sm90_tile.h), then dV: the pairs are dV's A operand,
     * which no thread may read while a wgmma that uses it is in flight (PTX ISA) */
    const bool need_mask =
        w.n0 + CB_BWD_BLOCK_N > p.kv_len || (p.causal && cb_attn_row_keys(p, m0) < w.n0 + CB_BWD_BLOCK_N);
    uint32_t pa[BM / 16][4], dsa[BM / 16][4];
    auto issue_dv = [&] {
      cb_wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < BM / 16; kk++) /* dV += P^T dO: 16 query rows a step */
        cb_wgmma_rs_tb<D>(dv, pa[kk], cb_wgmma_desc_add(dotd, s * kQBytes + kk * 2048), DT::bf16);
      cb_wgmma_commit();
    };
    cb_bwd_sm90_probs<BM>(st, p, m0, need_mask, kr, kpos, sl, q4);
    cb_sm90_pack_p<DT, BM>(st, pa);
    if constexpr (!kDsFrom16) {
      issue_dv();
      cb_wgmma_wait<1>(); /* dP^T is in; dV may still run */
    } else {
      cb_wgmma_wait<0>(); /* dP^T is in */
    }
    cb_wgmma_fence_operand(dpt);
#pragma unroll
    for (int j = 0; j < BM / 8; j++) { /* dS^T, delta read as float2 pairs */
      const float2 d2 = *reinterpret_cast<const float2 *>(sd + 8 * j + 2 * q4);
#pragma unroll
      for (int x = 4 * j; x < 4 * j + 4; x += 2) {
        const float2 pp = kDsFrom16 ? DT::unpack(pa[x / 8][(x % 8) / 2]) : make_float2(st[x], st[x + 1]);
        dpt[x] = pp.x * (dpt[x] - d2.x);
        dpt[x + 1] = pp.y * (dpt[x + 1] - d2.y);
      }
    }
    cb_sm90_pack_p<DT, BM>(dpt, dsa);
    if constexpr (kDsFrom16) issue_dv(); /* runs under dS^T's store, the barrier and dQ's issue */
    cb_bwd_sm90_store_ds<BM>(ds_addr + (it & 1) * kDSBytes, dsa, c, wq, g, q4);
    cb_fence_proxy_async_smem();
    cb_named_bar_sync(1, kConsumers); /* both warpgroups' dS^T halves are in shared memory */
    float dq[CB_BWD_DQ_COLS / 2];
    cb_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < CB_BWD_BLOCK_N / 16; kk++) /* dQ = dS K over the 128 keys, the warpgroup's block */
      cb_wgmma_ss<CB_BWD_DQ_COLS, 1, 1>(dq, cb_wgmma_desc_add(dsd, (it & 1) * kDSBytes + kk * 2048),
                                        cb_wgmma_desc_add(kqd, kk * 2048), kk > 0, DT::bf16);
    cb_wgmma_commit();
    cb_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BM / 16; kk++) /* dK += dS^T Q, after dQ: dQ's reductions run while it does */
      cb_wgmma_rs_tb<D>(dk, dsa[kk], cb_wgmma_desc_add(qtd, s * kQBytes + kk * 2048), DT::bf16);
    cb_wgmma_commit();
    cb_wgmma_wait<1>(); /* dQ is in; dK may still run */
    cb_wgmma_fence_operand(dq);
    cb_bwd_sm90_dq_add(bp, cb_smem_addr(sm.sdQ) + c * SM::kDqBytes, dq, c, wq, g, q4);

    /* the next tile's S^T, now that dQ's registers are free; the last tile issues a dummy on its
     * own stage */
    const bool more = it + 1 < w.iters;
    const int sn = more ? (it + 1) % S : s;
    if (more) cb_mbar_wait(&q_full[sn], ((it + 1) / S) & 1);
    if constexpr (cb_bwd_next_st_after_dk(D)) cb_wgmma_wait<0>(); /* D = 128: dK in first */
    cb_wgmma_fence();
    cb_bwd_sm90_keys_by_rows<D>(st, kd, cb_wgmma_desc_add(qd, sn * kQBytes), DT::bf16);
    cb_wgmma_wait<1>(); /* dK is in; the next S^T may still run */
    cb_wgmma_fence_operand(dk);
    cb_wgmma_fence_operand(dv);
    cb_wgmma_fence_operand(pa);
    cb_wgmma_fence_operand(dsa);
    cb_mbar_arrive(&q_empty[s]);
  }
  cb_wgmma_wait<0>(); /* the last tile's dummy S^T */
  cb_wgmma_fence_operand(st);
}

#endif
