/* The Hopper (sm_90a) backward block-attention kernel (contract: attn_bwd.h; launched from
 * attn_bwd_sm90.cu; tile choice in attn_sm90_tile.h; mainloop and epilogues in
 * attn_bwd_sm90_mainloop.cuh / attn_bwd_sm90_epilogue.cuh; the preprocess, delta, is
 * attn_bwd_preprocess.cu), FlashAttention-2's backward on FlashAttention-3's machinery: TMA
 * loads on an mbarrier pipeline, a producer warp and two consumer warpgroups (setmaxnreg), wgmma.
 *
 * Work split. One CTA per (tile of BLOCK_N = 128 keys, kv head, batch, part of the query heads);
 * each consumer warpgroup owns 64 of the keys and keeps their dK and dV (64 x D fp32 each) in
 * registers for the whole sweep, over its query heads that read this kv head and every query
 * tile (64 rows; 128 at D = 64) that sees a key of the tile (causal: the tiles above the diagonal are never loaded).
 * With all of the group's query heads in one CTA, dK and dV need no atomics (no other CTA writes
 * these rows); grouped shapes with too few CTAs for the GPU split the heads
 * (attn_bwd_sm90_schedule.h has the split and the launch order). dQ, which every key tile
 * contributes to, is added to global memory tile by tile by TMA tensor reductions.
 *
 * Roles. Warpgroup 0 is the producer: after giving most of its registers away, its first warp
 * loads K and V once and Q, dO and the rows' statistics tile by tile into a ring of stages
 * (cb_bwd_sm90_load), its second adds each tile's dQ to global memory (cb_bwd_sm90_dq_write);
 * warpgroups 1 and 2 are the consumers (cb_bwd_sm90_consume), then each adds
 * its dK and dV (cb_bwd_sm90_dkdv_add). Barriers and the shared-memory layout:
 * attn_bwd_sm90_mainloop.cuh (cb_bwd_sm90_smem); D = 128 takes 226.6 KB of the 227. */
#ifndef CB_ATTN_BWD_SM90_KERNEL_CUH
#define CB_ATTN_BWD_SM90_KERNEL_CUH

#include <cuda.h>
#include <stdint.h>

#include "attn_bwd_sm90_epilogue.cuh"
#include "attn_bwd_sm90_mainloop.cuh"
#include "attn_bwd_sm90_schedule.h"
#include "attn_params.h"
#include "attn_sm90_tile.h"
#include "sm90_ptx.cuh"

template <typename T, int D>
__global__ void __launch_bounds__(CB_SM90_THREADS, 1)
    cb_attn_bwd_sm90_kernel(const __grid_constant__ CUtensorMap tq, const __grid_constant__ CUtensorMap tk,
                            const __grid_constant__ CUtensorMap tv, const __grid_constant__ CUtensorMap tdo,
                            const __grid_constant__ CUtensorMap tdq, const cb_attn_bwd_params bp) {
  constexpr int S = cb_bwd_stages(D);
  constexpr int kConsumers = 128 * CB_SM90_CONSUMER_WGS; /* the consumer threads */
  const cb_attn_params &p = bp.f;

  /* the buffers (attn_bwd_sm90_mainloop.cuh), carved here: their pointer arithmetic in this form
   * keeps the kernel's code as measured */
  extern __shared__ unsigned char cb_bwd_smem_raw[];
  using SM = cb_bwd_sm90_sizes<D>;
  unsigned char *smem = cb_bwd_smem_raw + ((1024u - (cb_smem_addr(cb_bwd_smem_raw) & 1023u)) & 1023u);
  unsigned char *sK = smem, *sV = sK + SM::kKBytes, *sQ = sV + SM::kKBytes, *sdO = sQ + S * SM::kQBytes;
  unsigned char *sdS = sdO + S * SM::kQBytes;
  unsigned char *sdQ = sdS + 2 * SM::kDSBytes;
  float *sStat = reinterpret_cast<float *>(sdQ + CB_SM90_CONSUMER_WGS * SM::kDqBytes);
  uint64_t *bars = reinterpret_cast<uint64_t *>(sStat + S * 2 * SM::BM);
  uint64_t *kv_full = bars, *q_full = bars + 1, *q_empty = bars + 1 + S;
  const cb_bwd_sm90_smem sm = {sK, sV, sQ, sdO, sdS, sdQ, sStat, kv_full, q_full, q_empty};

  const cb_bwd_sm90_work<SM::BM> w = cb_bwd_sm90_work_of<SM::BM>(p, bp.grid, blockIdx.x);

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
  if (wg == 0) { /* warp 0 loads, warp 1 writes dQ out */
    cb_setmaxnreg_dec<CB_SM90_PRODUCER_REGS>();
    if (threadIdx.x >= 64 || w.iters == 0) return;
    if (threadIdx.x < 32) cb_bwd_sm90_load<D>(tq, tk, tv, tdo, bp, sm, w);
    else cb_bwd_sm90_dq_write<D>(tdq, p, sdQ, w);
    return;
  }

  cb_setmaxnreg_inc<CB_SM90_CONSUMER_REGS>();
  /* the warpgroup index broadcast from lane 0, so that the compiler sees it warp-uniform (as
   * CUTLASS does): the descriptors made from it (the mainloop's) stay on the uniform datapath */
  const int c = __shfl_sync(0xffffffffu, wg - 1, 0), lane = threadIdx.x % 32, wq = (threadIdx.x / 32) % 4, g = lane / 4,
            q4 = lane % 4;
  if (w.iters == 0) return; /* no query of this pair sees these keys: nothing to add */
  int kr[2], kpos[2];       /* the thread's two key rows (wgmma's accumulator rows g and g + 8) */
#pragma unroll
  for (int r = 0; r < 2; r++) {
    kr[r] = w.n0 + 64 * c + 16 * wq + g + 8 * r;
    kpos[r] = cb_attn_pos(p.k_start0, p.k_len0, p.k_start1, min(kr[r], p.kv_len - 1));
  }
  float dk[D / 2], dv[D / 2];
#pragma unroll
  for (int x = 0; x < D / 2; x++) dk[x] = dv[x] = 0.0f;
  const cb_bwd_sm90_thread t = {c, wq, g, q4};
  cb_bwd_sm90_consume<T, D>(bp, sm, w, t, kr, kpos, dk, dv);
  cb_bwd_sm90_dkdv_add<D>(bp, dk, dv, kr, q4, w.hk, w.b);
}

#endif
