/* The Hopper (sm_90a) backward block-attention kernel (contract: attn_bwd.h; launched from
 * attn_bwd_sm90.cu), FlashAttention-2's backward on FlashAttention-3's machinery: TMA loads on an
 * mbarrier pipeline, a producer warpgroup and two consumer warpgroups (setmaxnreg), wgmma.
 *
 * Work split. One CTA per (tile of BLOCK_N = 128 keys, kv head, batch); each consumer warpgroup
 * owns 64 of the keys and keeps their dK and dV (64 x D fp32 each) in registers for the whole
 * sweep, over every query head that reads this kv head and every 64-row query tile that sees a
 * key of the tile (causal: the tiles above the diagonal are never loaded). So dK and dV need no
 * atomics (no other CTA writes these rows); dQ, which every key tile contributes to, is added
 * to global memory by TMA tensor reductions (fp32 adds done by the TMA unit).
 *
 * Per query tile (64 rows), per consumer warpgroup (64 keys), in the keys' orientation:
 *   S^T = K Q^T, dP^T = V dO^T        (wgmma, both operands K-major from shared memory; two
 *                                      commit groups, so that P^T starts once S^T is in)
 *   P^T = exp2(S^T * scale log2 e - lse log2 e)   (masked as the forward)
 *   dV += P^T dO                      (issued at once: it runs while dS^T is computed)
 *   dS^T = P^T * (dP^T - delta)       (once dP^T is in)
 *   dS^T (16-bit) -> shared memory; both warpgroups' halves complete (named barrier 1), then
 *   dQ_tile = dS K over the CTA's 128 keys (wgmma, both operands MN-major from shared memory;
 *   at D = 128 each warpgroup takes 64 of the columns; at D = 64 both compute all 64 and each
 *   adds half of them: a branch around the wgmma would make ptxas serialize every wgmma of the
 *   kernel, its warning C7520), written (scaled) into the warpgroup's dQ buffer in the fp32 map's
 *   128-byte swizzle and added to dq by one thread's TMA reductions (one per 32-column box,
 *   FlashAttention-3's way) while
 *   dK += dS^T Q                      (issued after dQ; P^T / dS^T from registers, dO / Q MN-major)
 *   runs. The forward's statistics of the tile (lse * log2 e and delta, 64 rows each) come with
 *   Q and dO: the producer warp's lane 0 issues the tile's TMA, then its 32 lanes load the
 *   statistics into shared memory and arrive on q_full.
 * Each of these overlaps was measured on the H200 against the form before it; docs/decisions.md
 * has the numbers and the variants that lost.
 * The dS^T buffer is double-buffered: a warpgroup overwrites buffer t % 2 at tile t + 2 only
 * after the named barrier of tile t + 1, which the other warpgroup reaches after its dQ wgmma of
 * tile t has completed.
 *
 * A warpgroup's dQ buffer is rewritten only after its leader thread's previous reductions have
 * read it (cp.async.bulk.wait_group.read, then the warpgroup's named barrier 2 + c).
 *
 * Barriers: kv_full (K and V, once); per stage s of the 3-stage Q / dO ring q_full[s] (the
 * producer warp's 32 arrivals, each after its statistics stores; lane 0 announced the bytes of
 * Q and dO before) and q_empty[s] (every consumer thread once its warpgroup's wgmma reading Q
 * and dO have completed and its reads of the statistics are done). Shared memory: K, V
 * [D/64][128][64], Q, dO [stage][D/64][64][64], dS^T [2][128 keys][64 rows], 16-bit, 128-byte
 * swizzled (sm90_wgmma.cuh describes both operand layouts), dQ [warpgroup][D/64][64 rows][32]
 * fp32, 128-byte swizzled, the statistics [stage][2][64] fp32: D = 128: 226.6 KB (of 227). */
#ifndef CB_ATTN_BWD_SM90_KERNEL_CUH
#define CB_ATTN_BWD_SM90_KERNEL_CUH

#include <cuda.h>
#include <math.h>
#include <stdint.h>

#include "attn_params.h"
#include "attn_sm90_softmax.cuh"
#include "attn_sm90_tile.h"
#include "mma_ptx.cuh"
#include "sm90_ptx.cuh"
#include "sm90_wgmma.cuh"

static constexpr int CB_BWD_BLOCK_N = 64 * CB_SM90_CONSUMER_WGS; /* keys per CTA: 64 per consumer warpgroup */
static constexpr int CB_BWD_BLOCK_M = 64;                        /* query rows per tile */
static constexpr int CB_BWD_STAGES = 3;                          /* Q / dO tiles in flight */

struct cb_attn_bwd_params {
  cb_attn_params f; /* q, k, v, shapes, positions, scale (the forward's) */
  const void *dout;
  const float *lse, *delta;
  float *dq, *dk, *dv;
  float scale; /* dQ and dK are scaled by it (dS is taken against the scaled scores) */
};

static constexpr int cb_bwd_dq_boxes(int D) { return D == 128 ? 2 : 1; } /* 32-column dQ boxes per warpgroup */
static constexpr size_t cb_attn_bwd_smem_bytes(int D) {
  return 1024 + (size_t)(2 * CB_BWD_BLOCK_N + 2 * CB_BWD_STAGES * CB_BWD_BLOCK_M) * D * 2 +
         2 * (size_t)CB_BWD_BLOCK_N * 128 + (size_t)CB_SM90_CONSUMER_WGS * cb_bwd_dq_boxes(D) * CB_BWD_BLOCK_M * 128 +
         CB_BWD_STAGES * 2 * CB_BWD_BLOCK_M * 4 + 8 * (1 + 2 * CB_BWD_STAGES);
}

template <typename T, int D>
__global__ void __launch_bounds__(CB_SM90_THREADS, 1)
    cb_attn_bwd_sm90_kernel(const __grid_constant__ CUtensorMap tq, const __grid_constant__ CUtensorMap tk,
                            const __grid_constant__ CUtensorMap tv, const __grid_constant__ CUtensorMap tdo,
                            const __grid_constant__ CUtensorMap tdq, const cb_attn_bwd_params bp) {
  using DT = cb_mma_op<T>;
  constexpr int S = CB_BWD_STAGES, kHalves = D / 64;
  constexpr uint32_t kKHalf = CB_BWD_BLOCK_N * 128, kQHalf = CB_BWD_BLOCK_M * 128;
  constexpr uint32_t kKBytes = kHalves * kKHalf, kQBytes = kHalves * kQHalf, kDSBytes = CB_BWD_BLOCK_N * 128;
  constexpr int kConsumers = 128 * CB_SM90_CONSUMER_WGS; /* the consumer threads */
  const cb_attn_params &p = bp.f;

  extern __shared__ unsigned char cb_bwd_smem_raw[];
  unsigned char *smem = cb_bwd_smem_raw + ((1024u - (cb_smem_addr(cb_bwd_smem_raw) & 1023u)) & 1023u);
  unsigned char *sK = smem, *sV = sK + kKBytes, *sQ = sV + kKBytes, *sdO = sQ + S * kQBytes;
  unsigned char *sdS = sdO + S * kQBytes;
  constexpr uint32_t kDqBytes = cb_bwd_dq_boxes(D) * CB_BWD_BLOCK_M * 128; /* per warpgroup */
  unsigned char *sdQ = sdS + 2 * kDSBytes; /* [wg][box][64 rows][128 bytes], 128-byte swizzled */
  float *sStat =
      reinterpret_cast<float *>(sdQ + CB_SM90_CONSUMER_WGS * kDqBytes); /* [stage][lse * log2 e, delta][64] */
  uint64_t *bars = reinterpret_cast<uint64_t *>(sStat + S * 2 * CB_BWD_BLOCK_M);
  uint64_t *kv_full = bars, *q_full = bars + 1, *q_empty = bars + 1 + S;

  const int hk = blockIdx.y, b = blockIdx.z, n0 = blockIdx.x * CB_BWD_BLOCK_N;
  const int nq = (p.q_len + CB_BWD_BLOCK_M - 1) / CB_BWD_BLOCK_M;
  int i_lo = 0; /* causal: the first query tile whose last row sees key n0 */
  if (p.causal) {
    int lo = 0, hi = nq;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (cb_attn_row_keys(p, min(mid * CB_BWD_BLOCK_M + CB_BWD_BLOCK_M - 1, p.q_len - 1)) > n0) hi = mid;
      else lo = mid + 1;
    }
    i_lo = lo;
  }
  const int ntile = nq - i_lo, iters = p.group * ntile;

  if (threadIdx.x == 0) {
    cb_mbar_init(kv_full, 1);
#pragma unroll
    for (int s = 0; s < S; s++) {
      cb_mbar_init(&q_full[s], 32); /* the producer warp's lanes (lane 0 with the TMA bytes) */
      cb_mbar_init(&q_empty[s], kConsumers);
    }
    cb_mbar_fence_init();
  }
  __syncthreads();

  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    /* ---- producer warp: K and V once, then Q, dO and the rows' statistics tile by tile ---- */
    cb_setmaxnreg_dec<CB_SM90_PRODUCER_REGS>();
    if (threadIdx.x >= 32 || iters == 0) return;
    const int lane = threadIdx.x;
    if (lane == 0) {
      cb_tma_prefetch_map(&tq);
      cb_tma_prefetch_map(&tdo);
      cb_mbar_arrive_expect_tx(kv_full, 2 * kKBytes);
#pragma unroll
      for (int hf = 0; hf < kHalves; hf++) {
        cb_tma_load_4d(sK + hf * kKHalf, &tk, kv_full, 64 * hf, hk, n0, b);
        cb_tma_load_4d(sV + hf * kKHalf, &tv, kv_full, 64 * hf, hk, n0, b);
      }
    }
    for (int it = 0; it < iters; it++) {
      const int hh = hk * p.group + it / ntile, m0 = (i_lo + it % ntile) * CB_BWD_BLOCK_M, s = it % S;
      const size_t row_stat = ((size_t)b * p.heads + hh) * p.q_len; /* lse / delta of (b, hh, row 0) */
      cb_mbar_wait(&q_empty[s], ((it / S) & 1) ^ 1);
      if (lane == 0) { /* the tile's TMA first, its statistics' loads behind it */
        cb_mbar_expect_tx(&q_full[s], 2 * kQBytes);
#pragma unroll
        for (int hf = 0; hf < kHalves; hf++) {
          cb_tma_load_4d(sQ + s * kQBytes + hf * kQHalf, &tq, &q_full[s], 64 * hf, hh, m0, b);
          cb_tma_load_4d(sdO + s * kQBytes + hf * kQHalf, &tdo, &q_full[s], 64 * hf, hh, m0, b);
        }
      }
      /* the tile's statistics, 2 rows per lane: lse * log2 e (+inf past q_len or where the row saw
       * no key: P = 0 there) and delta, stored before this lane's arrival on q_full (a release).
       * Staged here rather than in the consumers' registers: 32 registers fewer per consumer
       * thread, which removed ptxas's spills at D = 128 (docs/decisions.md) */
#pragma unroll
      for (int h2 = 0; h2 < 2; h2++) {
        const int m = m0 + lane + 32 * h2;
        const float l = m < p.q_len ? __ldg(bp.lse + row_stat + m) : -INFINITY;
        sStat[(2 * s) * CB_BWD_BLOCK_M + lane + 32 * h2] = l == -INFINITY ? INFINITY : l * CB_ATTN_LOG2E;
        sStat[(2 * s + 1) * CB_BWD_BLOCK_M + lane + 32 * h2] = m < p.q_len ? __ldg(bp.delta + row_stat + m) : 0.0f;
      }
      cb_mbar_arrive(&q_full[s]);
    }
    return;
  }

  /* ---- consumers ---- */
  cb_setmaxnreg_inc<CB_SM90_CONSUMER_REGS>();
  const int c = wg - 1, lane = threadIdx.x % 32, wq = (threadIdx.x / 32) % 4, g = lane / 4, q4 = lane % 4;
  if (iters == 0) return; /* no query of this pair sees these keys: nothing to add */
  int kr[2], kpos[2];
#pragma unroll
  for (int r = 0; r < 2; r++) {
    kr[r] = n0 + 64 * c + 16 * wq + g + 8 * r;
    kpos[r] = cb_attn_pos(p.k_start0, p.k_len0, p.k_start1, min(kr[r], p.kv_len - 1));
  }
  float dk[D / 2], dv[D / 2];
#pragma unroll
  for (int x = 0; x < D / 2; x++) dk[x] = dv[x] = 0.0f;
  const uint32_t k_addr = cb_smem_addr(sK), v_addr = cb_smem_addr(sV), q_addr = cb_smem_addr(sQ),
                 do_addr = cb_smem_addr(sdO), ds_addr = cb_smem_addr(sdS);
  cb_mbar_wait(kv_full, 0);

  for (int it = 0; it < iters; it++) {
    const int hh = hk * p.group + it / ntile, m0 = (i_lo + it % ntile) * CB_BWD_BLOCK_M, s = it % S;
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

    /* P^T in place (accumulator element 4j + 2r + e = key kr[r], query column m0 + 8j + 2q4 + e)
     * while dP^T runs; dV += P^T dO is issued as soon as P^T is packed, then dS^T once dP^T is in */
    const bool need_mask =
        n0 + CB_BWD_BLOCK_N > p.kv_len || (p.causal && cb_attn_row_keys(p, m0) < n0 + CB_BWD_BLOCK_N);
    uint32_t pa[4][4], dsa[4][4];
#pragma unroll
    for (int kk = 0; kk < 4; kk++) /* 16 query columns a step: this nesting compiled 12 % faster (decisions.md) */
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
    /* dS^T to shared memory for dQ: key row kk of the CTA at 128 * kk bytes, query columns in
     * 16-byte chunks swizzled by the row (chunk j at j ^ (kk % 8)) */
    unsigned char *dsb = sdS + (it & 1) * kDSBytes;
#pragma unroll
    for (int r = 0; r < 2; r++) {
      const int kk = 64 * c + 16 * wq + g + 8 * r;
#pragma unroll
      for (int j = 0; j < 8; j++)
        *reinterpret_cast<uint32_t *>(dsb + kk * 128 + ((j ^ (kk % 8)) * 16) + 4 * q4) =
            DT::pack(dpt[4 * j + 2 * r], dpt[4 * j + 2 * r + 1]);
    }
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
    /* this warpgroup's 64 rows x 32 * boxes columns (scaled) into its buffer, as the map's
     * 128-byte swizzle lays a box out (16-byte chunk k of row ml at chunk k ^ (ml % 8)); then
     * one thread adds each box to dq with a TMA reduction. The buffer is free again once the
     * previous tile's reductions have read it. */
    cb_wgmma_fence_operand(dq);
    unsigned char *buf = sdQ + c * kDqBytes;
    const bool leader = threadIdx.x % 128 == 0;
    const int j0 = D == 128 ? 0 : 4 * c;
    if (leader) cb_bulk_wait_read();
    cb_named_bar_sync(2 + c, 128);
#pragma unroll
    for (int r = 0; r < 2; r++) {
      const int ml = 16 * wq + g + 8 * r;
#pragma unroll
      for (int j = 0; j < 8; j++) {
        if (j < j0 || j >= j0 + 4 * cb_bwd_dq_boxes(D)) continue;
        const int cc = 8 * (j - j0) + 2 * q4; /* column within the warpgroup's part */
        /* the values named first: the measured kernel's PTX (decisions.md) */
        const float x0 = dq[4 * j + 2 * r], x1 = dq[4 * j + 2 * r + 1];
        *reinterpret_cast<float2 *>(buf + (cc / 32) * (CB_BWD_BLOCK_M * 128) + ml * 128 +
                                    ((((cc % 32) / 4) ^ (ml % 8)) * 16) + (cc % 4) * 4) =
            make_float2(bp.scale * x0, bp.scale * x1);
      }
    }
    cb_fence_proxy_async_smem();
    cb_named_bar_sync(2 + c, 128);
    if (leader) {
      const int col0 = D == 128 ? 64 * c : 32 * c;
#pragma unroll
      for (int bx = 0; bx < cb_bwd_dq_boxes(D); bx++)
        cb_tma_reduce_add_4d(&tdq, buf + bx * (CB_BWD_BLOCK_M * 128), col0 + 32 * bx, hh, m0, b);
      cb_bulk_commit();
    }
    cb_wgmma_wait<0>();
    cb_wgmma_fence_operand(dk);
    cb_wgmma_fence_operand(dv);
    cb_wgmma_fence_operand(pa);
    cb_wgmma_fence_operand(dsa);
    cb_mbar_arrive(&q_empty[s]);
  }
  if (threadIdx.x % 128 == 0) cb_bulk_wait(); /* the last dQ reductions are done */
  /* dK (scaled) and dV into the fp32 accumulators: this CTA alone owns these rows */
  const float scale = bp.scale;
#pragma unroll
  for (int r = 0; r < 2; r++) {
    if (kr[r] >= p.kv_len) continue;
    const size_t base = (((size_t)b * p.kv_len + kr[r]) * p.kv_heads + hk) * D + 2 * q4;
#pragma unroll
    for (int j = 0; j < D / 8; j++) {
      float2 *pk = reinterpret_cast<float2 *>(bp.dk + base + 8 * j),
             *pv = reinterpret_cast<float2 *>(bp.dv + base + 8 * j);
      float2 a = *pk, v = *pv;
      a.x += scale * dk[4 * j + 2 * r], a.y += scale * dk[4 * j + 2 * r + 1];
      v.x += dv[4 * j + 2 * r], v.y += dv[4 * j + 2 * r + 1];
      *pk = a, *pv = v;
    }
  }
}

#endif
