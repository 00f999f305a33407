/* Epilogues of the Hopper backward block-attention kernel (attn_bwd_sm90_kernel.cuh): dQ of each
 * query tile, added to global memory as it is made, and dK, dV once, at the end of the sweep.
 *
 * dQ. Every key tile of the pass contributes to a query row's dQ, so it goes out by addition:
 * each consumer warpgroup writes its part of the tile's dQ (scaled) into its own shared buffer
 * in the fp32 tensor map's 128-byte swizzle and hands it to the dQ writer, the producer
 * warpgroup's second warp, whose lane 0 adds each 32-column box to dq with a TMA tensor
 * reduction (fp32 adds done by the TMA unit) and waits until they have read the buffer
 * (FlashAttention-3's store_dq). Handshake per consumer warpgroup c, 128 + 32 threads each:
 * named barrier CB_BWD_BAR_DQ_FULL + c (the consumers arrive after their stores and the proxy
 * fence, the writer syncs) and CB_BWD_BAR_DQ_EMPTY + c (the writer arrives once the reductions
 * have read the buffer, and once before the first tile; the consumers sync before storing).
 * So the consumers neither issue the reductions nor wait for them.
 *
 * dK and dV stay in registers over the whole sweep and are added once: this CTA alone owns these
 * key rows, so no atomics. */
#ifndef CB_ATTN_BWD_SM90_EPILOGUE_CUH
#define CB_ATTN_BWD_SM90_EPILOGUE_CUH

#include <cuda.h>
#include <stdint.h>

#include "attn_params.h"
#include "attn_sm90_tile.h"
#include "sm90_ptx.cuh"

static constexpr int CB_BWD_BAR_DQ_FULL = 2;           /* named barriers 2, 3: warpgroup c's dQ buffer is full */
static constexpr int CB_BWD_BAR_DQ_EMPTY = 4;          /* named barriers 4, 5: ... and free again */
static constexpr int CB_BWD_DQ_BAR_THREADS = 128 + 32; /* a consumer warpgroup and the writer warp */

/* Where consumer warpgroup c's 64 x 64 block of a tile's dQ lies in the tile (BM x D): D = 128,
 * the columns from 64 c; D = 64 (128-row tiles), the rows from 64 c (attn_sm90_tile.h). */
template <int D>
__device__ __forceinline__ int cb_bwd_sm90_dq_col0(int c) {
  return cb_bwd_block_m(D) == CB_BWD_DQ_ROWS ? CB_BWD_DQ_COLS * c : 0;
}
template <int D>
__device__ __forceinline__ int cb_bwd_sm90_dq_row0(int c) {
  return cb_bwd_block_m(D) == CB_BWD_DQ_ROWS ? 0 : CB_BWD_DQ_ROWS * c;
}

/* Warpgroup c's 64 x 64 block of the tile's dQ (its dQ = dS K accumulator, unscaled; the
 * thread's place wq, g, q4 as cb_bwd_sm90_thread) into its buffer at shared address buf, as the
 * map's 128-byte swizzle lays each 32-column box out (16-byte chunk k of row ml at chunk
 * k ^ (ml % 8)), for the dQ writer to add to dq. Each store's address is one XOR of a per-row
 * base: column 8 j + 2 q4 of a box lies in chunk (2 j + q4 / 2) ^ (ml % 8), byte 8 (q4 % 2) of
 * it, which is base ^ 32 j with base = 128 ml + 16 ((q4 / 2) ^ (ml % 8)) + 8 (q4 % 2) (buf is
 * 1024-byte aligned); the second box is 8 KB further. */
__device__ __forceinline__ void cb_bwd_sm90_dq_add(const cb_attn_bwd_params &bp, uint32_t buf,
                                                   const float (&dq)[CB_BWD_DQ_COLS / 2], int c, int wq, int g,
                                                   int q4) {
  cb_named_bar_sync(CB_BWD_BAR_DQ_EMPTY + c, CB_BWD_DQ_BAR_THREADS);
#pragma unroll
  for (int r = 0; r < 2; r++) {
    const int ml = 16 * wq + g + 8 * r;
    const uint32_t base = buf + ml * 128 + 16 * ((q4 / 2) ^ (ml % 8)) + 8 * (q4 % 2);
#pragma unroll
    for (int j = 0; j < CB_BWD_DQ_COLS / 8; j++)
      cb_st_shared_v2_f32((base ^ (32u * (j % 4))) + (j / 4) * (CB_BWD_DQ_ROWS * 128u), bp.scale * dq[4 * j + 2 * r],
                          bp.scale * dq[4 * j + 2 * r + 1]);
  }
  cb_fence_proxy_async_smem();
  cb_named_bar_arrive(CB_BWD_BAR_DQ_FULL + c, CB_BWD_DQ_BAR_THREADS);
}

/* The dQ writer warp (the producer warpgroup's second): for every tile and consumer warpgroup,
 * once its buffer is full, lane 0 adds it to dq (its block of the tile at rows m0.. of head hh)
 * and waits until the reductions have read it; then the buffer is free again. sdQ: the two
 * buffers. Rows past q_len fall outside the map: the TMA unit drops them. */
template <int D, typename W>
__device__ __forceinline__ void cb_bwd_sm90_dq_write(const CUtensorMap &tdq, const cb_attn_params &p,
                                                     unsigned char *sdQ, const W &w) {
  constexpr uint32_t kDqBytes = CB_BWD_DQ_BOXES * CB_BWD_DQ_ROWS * 128;
  const bool lane0 = threadIdx.x % 32 == 0;
  if (lane0) cb_tma_prefetch_map(&tdq);
#pragma unroll
  for (int c = 0; c < CB_SM90_CONSUMER_WGS; c++) cb_named_bar_arrive(CB_BWD_BAR_DQ_EMPTY + c, CB_BWD_DQ_BAR_THREADS);
  for (int it = 0; it < w.iters; it++) {
    const int hh = w.head(it), m0 = w.row0(it);
#pragma unroll
    for (int c = 0; c < CB_SM90_CONSUMER_WGS; c++) {
      cb_named_bar_sync(CB_BWD_BAR_DQ_FULL + c, CB_BWD_DQ_BAR_THREADS);
      if (lane0) {
        unsigned char *buf = sdQ + c * kDqBytes;
#pragma unroll
        for (int bx = 0; bx < CB_BWD_DQ_BOXES; bx++)
          cb_tma_reduce_add_4d(&tdq, buf + bx * (CB_BWD_DQ_ROWS * 128), cb_bwd_sm90_dq_col0<D>(c) + 32 * bx, hh,
                               m0 + cb_bwd_sm90_dq_row0<D>(c), w.b);
        cb_bulk_commit();
        cb_bulk_wait_read();
      }
      __syncwarp();
      if (it + 1 < w.iters) cb_named_bar_arrive(CB_BWD_BAR_DQ_EMPTY + c, CB_BWD_DQ_BAR_THREADS);
    }
  }
  if (lane0) cb_bulk_wait(); /* the last reductions are done */
}

/* dK (scaled) and dV of the thread's two key rows kr[r] of kv head hk, batch b (q4: the thread's
 * column pair), added into the fp32 accumulators: read-add-write when this CTA is the only one
 * with these rows, atomically (vector float2 adds) when the query heads are split across CTAs
 * (attn_bwd_sm90_schedule.h). */
template <int D>
__device__ __forceinline__ void cb_bwd_sm90_dkdv_add(const cb_attn_bwd_params &bp, const float (&dk)[D / 2],
                                                     const float (&dv)[D / 2], const int (&kr)[2], int q4, int hk,
                                                     int b) {
  const cb_attn_params &p = bp.f;
  const float scale = bp.scale;
#pragma unroll
  for (int r = 0; r < 2; r++) {
    if (kr[r] >= p.kv_len) continue;
    const size_t base = (((size_t)b * p.kv_len + kr[r]) * p.kv_heads + hk) * D + 2 * q4;
#pragma unroll
    for (int j = 0; j < D / 8; j++) {
      float2 *pk = reinterpret_cast<float2 *>(bp.dk + base + 8 * j),
             *pv = reinterpret_cast<float2 *>(bp.dv + base + 8 * j);
      const float2 a = make_float2(scale * dk[4 * j + 2 * r], scale * dk[4 * j + 2 * r + 1]),
                   v = make_float2(dv[4 * j + 2 * r], dv[4 * j + 2 * r + 1]);
      if (bp.grid.split > 1) {
        atomicAdd(pk, a), atomicAdd(pv, v);
      } else {
        const float2 k0 = *pk, v0 = *pv;
        *pk = make_float2(k0.x + a.x, k0.y + a.y), *pv = make_float2(v0.x + v.x, v0.y + v.y);
      }
    }
  }
}

#endif
