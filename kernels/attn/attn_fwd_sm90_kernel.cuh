/* The Hopper (sm_90a) block-attention forward kernel, FlashAttention-3's structure in CUDA C
 * with inline PTX (launched from attn_fwd_sm90.cu; contract in attn.h; tile choice in
 * attn_sm90_tile.h; softmax and epilogue in attn_sm90_softmax.cuh / attn_fwd_sm90_epilogue.cuh).
 *
 * Roles. Warpgroup 0 is the producer: after giving most of its registers away (setmaxnreg) one
 * thread issues every TMA load of the CTA: per query tile Q, then K and V tile by tile into a
 * 2-stage ring. The consumer warpgroups (2 or 3), 64 query rows each: S = Q K^T and O += P V on
 * the tensor cores (wgmma, Q / K / V read from shared memory by descriptor, P from registers) and
 * the online softmax in registers.
 *
 * Tiles. The grid has one CTA per SM at most (cb_fwd_grid); a CTA takes query tiles until none is
 * left: first tile blockIdx.x, then the next of a counter (cb_fwd_sm90_sched) that the producer
 * draws while it still loads the current tile's keys. It decodes the tile and hands it to the
 * consumers through a slot in shared memory with Q; Q of the next tile loads as soon as the last
 * S of the current one is done, under the current tile's last P V and epilogue. The key ring's
 * stage and parity run on across a CTA's tiles, and so do the consumers' turns.
 *
 * Barriers (mbarriers in shared memory, sm90_ptx.cuh), per stage s of the ring:
 *   k_full[s] / v_full[s]: the producer's arrival with the tile's byte count; complete when the
 *     TMA has written the tile. Consumers wait on them (parity = use count of the stage & 1).
 *   k_empty[s] / v_empty[s]: every consumer thread arrives once its warpgroup's wgmma reading
 *     the tile has completed (256 arrivals); the producer waits before overwriting the stage.
 *   K and V are separate so that S of the next tile can start while V of the current one is
 *     still in use, and K's slot is freed as soon as Q K^T is done.
 *   q_full: Q's bytes and the tile slot (the producer's arrival alone where the tile sees no
 *     key, or where no tile is left); q_empty: every consumer thread arrives after its last
 *     S = Q K^T of the tile (or on reading a tile with no key); the producer waits before the
 *     next Q.
 * Keys are swept from the last tile down to the first, so the tiles that need a mask (the
 * partial last tile, the causal diagonal) come first, where the pipeline is filling anyway.
 *
 * Consumer main loop (FlashAttention-3's intra-warpgroup overlap): iteration i issues
 * S_i = Q K_i^T and O += P_{i-1} V_{i-1}, then, while P V runs on the tensor cores, waits for
 * S_i alone (wait_group 1) and runs the softmax of tile i; then waits for P V, rescales O and
 * packs P_i. So the exponentials of one tile overlap the P V of the previous one.
 * Ping-pong: the two consumer warpgroups take turns to issue their GEMMs through a
 * pair of named barriers, so that one's softmax runs while the other's GEMMs own the tensor
 * cores (FlashAttention-3's inter-warpgroup schedule). Warpgroup 1 lets warpgroup 0 go first;
 * each iteration syncs on its own barrier before issuing and arrives on the other's after; the
 * one extra arrival on warpgroup 0's barrier is consumed after the loop so both end balanced.
 *
 * Shared memory (1024-byte aligned; tiles in TMA's 128-byte swizzle, sm90_wgmma.cuh): a row of
 * D 16-bit elements is D / 64 "halves" of 64 columns (128 bytes, the swizzle's width), stored
 * as separate [rows][64] tiles: Q [D/64][BLOCK_M][64], K and V [stage][D/64][BLOCK_N][64]. */
#ifndef CB_ATTN_SM90_KERNEL_CUH
#define CB_ATTN_SM90_KERNEL_CUH

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "attn_fwd_sm90_epilogue.cuh"
#include "attn_params.h"
#include "attn_sm90_order.h"
#include "attn_sm90_softmax.cuh"
#include "attn_sm90_tile.h"
#include "mma_ptx.cuh"
#include "sm90_ptx.cuh"
#include "sm90_wgmma.cuh"

/* named barriers 1 and 2: the consumer warpgroups' turns (ping-pong) */
static constexpr int CB_SM90_BAR_TURN = 1;

/* The tile scheduler's slots: [next tile past the first wave, CTAs done] per launch in flight;
 * the launcher draws slots in turn (attn_fwd_sm90.cu) and the last CTA of a launch resets its
 * slot, so launches on different streams use different counters. */
static constexpr int CB_FWD_SCHED_SLOTS = 64;
__device__ unsigned cb_fwd_sm90_sched[CB_FWD_SCHED_SLOTS][2];

/* a tile slot's fields (CB_FWD_SLOT_INTS ints; ntiles -1: no tile left) */
enum { CB_FWD_SLOT_H, CB_FWD_SLOT_B, CB_FWD_SLOT_ROW0, CB_FWD_SLOT_NFULL, CB_FWD_SLOT_NTILES };
static_assert(CB_FWD_SLOT_NTILES < CB_FWD_SLOT_INTS, "a tile slot holds its fields");

template <typename T, int D, int W>
__global__ void __launch_bounds__(cb_fwd_threads(W), 1)
    cb_attn_fwd_sm90_kernel(const __grid_constant__ CUtensorMap tq, const __grid_constant__ CUtensorMap tk,
                            const __grid_constant__ CUtensorMap tv, const cb_attn_params p) {
  using DT = cb_mma_op<T>;
  constexpr int S = CB_SM90_STAGES, kBlockN = CB_SM90_BLOCK_N;
  constexpr int kHalves = D / 64;
  constexpr int kWGs = W, kBlockM = cb_fwd_block_m(W);
  constexpr uint32_t kQHalf = kBlockM * 128, kKVHalf = kBlockN * 128; /* bytes */
  constexpr uint32_t kQBytes = kHalves * kQHalf, kKVBytes = kHalves * kKVHalf;
  constexpr int kConsumers = 128 * kWGs;
  static_assert(D == 64 || D == 128, "head dim 64 or 128");
  static_assert(kBlockN % 16 == 0 && kKVHalf % 1024 == 0, "whole k16 steps, 1024-byte aligned tiles");

  extern __shared__ unsigned char cb_sm90_smem_raw[];
  unsigned char *smem = cb_sm90_smem_raw + ((1024u - (cb_smem_addr(cb_sm90_smem_raw) & 1023u)) & 1023u);
  unsigned char *sQ = smem, *sK = sQ + kQBytes, *sV = sK + S * kKVBytes;
  uint64_t *bars = reinterpret_cast<uint64_t *>(sV + S * kKVBytes);
  uint64_t *q_full = bars, *k_full = bars + 1, *k_empty = bars + 1 + S, *v_full = bars + 1 + 2 * S,
           *v_empty = bars + 1 + 3 * S, *q_empty = bars + 1 + 4 * S;
  /* the tiles the producer hands the consumers with Q, decoded (CB_FWD_SLOT_*), by parity of
   * the CTA's tile count: slot n & 1 is written after q_empty of tile n - 1, so the consumers may
   * read theirs again for the epilogue (tile n + 2 waits for them to start tile n + 1) */
  volatile int(*s_tile)[CB_FWD_SLOT_INTS] = reinterpret_cast<volatile int(*)[CB_FWD_SLOT_INTS]>(bars + 2 + 4 * S);

  /* The p.tiles (query tile, head, batch) units, in the order the scheduler hands them out: not
   * causal, the tile fastest (a head's tiles share its K and V in L2); causal, longest first (the
   * last query tiles see the most keys) in sections of pairs whose K and V fit L2
   * (attn_sm90_order.h). */
  const int qtiles = (p.q_len + kBlockM - 1) / kBlockM, pairs = p.tiles / qtiles;
  struct tile_t {
    int h, b, row0, nfull, ntiles;
  };
  auto tile_of = [&](int t) {
    int qtile = t % qtiles, pair = t / qtiles;
    if (p.causal) {
      cb_sm90_order(t, qtiles, pairs, p.sections, &qtile, &pair);
      qtile = qtiles - 1 - qtile;
    }
    tile_t f;
    f.h = pair % p.heads, f.b = pair / p.heads;
    f.row0 = qtile * kBlockM;
    const int rows = min(kBlockM, p.q_len - f.row0);
    /* keys this tile sees: a prefix of nvis; the first nfull are visible to every row */
    const int nvis = cb_attn_row_keys(p, f.row0 + rows - 1);
    f.nfull = cb_attn_row_keys(p, f.row0);
    f.ntiles = (nvis + kBlockN - 1) / kBlockN;
    return f;
  };

  if (threadIdx.x == 0) {
    cb_mbar_init(q_full, 1);
    cb_mbar_init(q_empty, kConsumers);
#pragma unroll
    for (int s = 0; s < S; s++) {
      cb_mbar_init(&k_full[s], 1);
      cb_mbar_init(&v_full[s], 1);
      cb_mbar_init(&k_empty[s], kConsumers);
      cb_mbar_init(&v_empty[s], kConsumers);
    }
    cb_mbar_fence_init();
  }
  __syncthreads();

  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    /* ---- producer: per tile Q once its last one is no longer read, then K and V tile by tile;
     * kv counts the key tiles over the CTA's query tiles (the ring's stage and parity) ---- */
    cb_setmaxnreg_dec<CB_SM90_PRODUCER_REGS>();
    if (threadIdx.x != 0) return;
    cb_tma_prefetch_map(&tq);
    cb_tma_prefetch_map(&tk);
    cb_tma_prefetch_map(&tv);
    unsigned *sched = cb_fwd_sm90_sched[p.sched_slot];
    /* t unsigned: gridDim.x plus the counter may pass INT_MAX near the largest grids */
    unsigned t = blockIdx.x;
    for (int kv = 0, nq = 0;; nq++) {
      tile_t f;
      if (t < (unsigned)p.tiles) f = tile_of((int)t); /* decoded while the consumers still read the last Q */
      cb_mbar_wait(q_empty, (nq & 1) ^ 1);            /* the last tile's Q and slot are no longer read */
      volatile int *slot = s_tile[nq & 1];
      if (t >= (unsigned)p.tiles) {
        slot[CB_FWD_SLOT_NTILES] = -1;
        cb_mbar_arrive(q_full);
        break;
      }
      slot[CB_FWD_SLOT_H] = f.h, slot[CB_FWD_SLOT_B] = f.b, slot[CB_FWD_SLOT_ROW0] = f.row0,
      slot[CB_FWD_SLOT_NFULL] = f.nfull, slot[CB_FWD_SLOT_NTILES] = f.ntiles;
      const int hk = f.h / p.group;
      if (f.ntiles == 0) {
        cb_mbar_arrive(q_full);
      } else {
        cb_mbar_arrive_expect_tx(q_full, kQBytes);
#pragma unroll
        for (int hf = 0; hf < kHalves; hf++) cb_tma_load_4d(sQ + hf * kQHalf, &tq, q_full, 64 * hf, f.h, f.row0, f.b);
      }
      for (int it = 0; it < f.ntiles; it++, kv++) {
        const int j = f.ntiles - 1 - it, s = kv % S;
        const uint32_t ph = (kv / S) & 1;
        cb_mbar_wait(&k_empty[s], ph ^ 1);
        cb_mbar_arrive_expect_tx(&k_full[s], kKVBytes);
#pragma unroll
        for (int hf = 0; hf < kHalves; hf++)
          cb_tma_load_4d(sK + s * kKVBytes + hf * kKVHalf, &tk, &k_full[s], 64 * hf, hk, j * kBlockN, f.b);
        cb_mbar_wait(&v_empty[s], ph ^ 1);
        cb_mbar_arrive_expect_tx(&v_full[s], kKVBytes);
#pragma unroll
        for (int hf = 0; hf < kHalves; hf++)
          cb_tma_load_4d(sV + s * kKVBytes + hf * kKVHalf, &tv, &v_full[s], 64 * hf, hk, j * kBlockN, f.b);
      }
      /* the next tile: the grid's CTAs start on the first gridDim.x, the rest go in order to
       * whichever CTA frees up first (a CTA that starts late, behind another kernel, takes fewer) */
      t = gridDim.x + atomicAdd(&sched[0], 1u);
    }
    /* the last CTA to leave resets the slot for the next launch that draws it */
    __threadfence();
    if (atomicAdd(&sched[1], 1u) == gridDim.x - 1) {
      __threadfence();
      atomicExch(&sched[0], 0u);
      atomicExch(&sched[1], 0u);
    }
    return;
  }

  /* ---- consumers ---- */
  cb_setmaxnreg_inc<cb_fwd_consumer_regs(W)>();
  const int c = wg - 1, lane = threadIdx.x % 32, wq = (threadIdx.x / 32) % 4;
  float s[kBlockN / 2], o[D / 2];
  uint32_t pa[kBlockN / 16][4];
  float alpha[2];

  const uint32_t q_addr = cb_smem_addr(sQ) + c * 64 * 128;
  const uint32_t k_addr = cb_smem_addr(sK), v_addr = cb_smem_addr(sV);
  auto qk = [&](int stage) { /* S = Q K^T, D / 16 k16 steps */
                             cb_wgmma_fence();
#pragma unroll
                             for (int ks = 0; ks < D / 16; ks++) {
                               const uint32_t off = (ks % 4) * 32; /* the k16 step within its 64-column half */
                               const uint64_t da = cb_wgmma_desc_sw128(q_addr + (ks / 4) * kQHalf + off, 16, 1024);
                               const uint64_t db =
                                   cb_wgmma_desc_sw128(k_addr + stage * kKVBytes + (ks / 4) * kKVHalf + off, 16, 1024);
                               cb_wgmma_ss<kBlockN>(s, da, db, ks > 0, DT::bf16);
                             }
                             cb_wgmma_commit();
  };
  auto pv = [&](int stage) { /* O += P V, BLOCK_N / 16 k16 steps of 16 keys (2048 bytes of V) */
                             cb_wgmma_fence();
#pragma unroll
                             for (int kk = 0; kk < kBlockN / 16; kk++) {
                               const uint64_t db =
                                   cb_wgmma_desc_sw128(v_addr + stage * kKVBytes + kk * 2048, kKVHalf, 1024);
                               cb_wgmma_rs_tb<D>(o, pa[kk], db, DT::bf16);
                             }
                             cb_wgmma_commit();
  };
  /* the turns go round the warpgroups: each turn barrier joins the warpgroup whose turn it is
   * and the one before it (2 x 128 threads); they run on across the CTA's query tiles (every
   * warpgroup takes one turn per key tile of each) */
  auto turn_wait = [&] { cb_named_bar_sync(CB_SM90_BAR_TURN + c, 256); };
  auto turn_pass = [&] { cb_named_bar_arrive(CB_SM90_BAR_TURN + (kWGs == 2 ? c ^ 1 : (c + 1) % kWGs), 256); };
  if (c == kWGs - 1) cb_named_bar_arrive(CB_SM90_BAR_TURN, 256); /* warpgroup 0 first */

  for (int kv = 0, nq = 0;; nq++) {
    /* untimed: were Q or the tile never to come, the producer's timed wait on q_empty traps */
    cb_mbar_wait_untimed(q_full, nq & 1);
    tile_t f;
    {
      volatile int *slot = s_tile[nq & 1];
      f.ntiles = slot[CB_FWD_SLOT_NTILES];
      if (f.ntiles < 0) break;
      f.h = slot[CB_FWD_SLOT_H], f.b = slot[CB_FWD_SLOT_B], f.row0 = slot[CB_FWD_SLOT_ROW0],
      f.nfull = slot[CB_FWD_SLOT_NFULL];
    }
    const int ntiles = f.ntiles;
    int row[2], lim[2];
    row[0] = f.row0 + c * 64 + wq * 16 + lane / 4;
    row[1] = row[0] + 8;
#pragma unroll
    for (int hh = 0; hh < 2; hh++) lim[hh] = row[hh] < p.q_len ? cb_attn_row_keys(p, row[hh]) : 0;
    cb_sm90_softmax sm;
    sm.init();
#pragma unroll
    for (int i = 0; i < D / 2; i++) o[i] = 0.0f;
    if (ntiles == 0) {
      cb_mbar_arrive(q_empty);
      cb_sm90_epilogue<T, DT, D>(p, sm, o, row, f.b, f.h);
      continue;
    }

    /* the first key tile (the last keys): S and its softmax alone */
    turn_wait();
    cb_mbar_wait(&k_full[kv % S], (kv / S) & 1);
    qk(kv % S);
    turn_pass();
    cb_wgmma_wait<0>();
    cb_wgmma_fence_operand(s);
    cb_mbar_arrive(&k_empty[kv % S]);
    if (ntiles == 1) cb_mbar_arrive(q_empty); /* Q's last read is done: the next tile's may load */
    if (ntiles * kBlockN > f.nfull) sm.mask(s, (ntiles - 1) * kBlockN, lim);
    sm.update(s, p.scale_log2, alpha);
    cb_sm90_pack_p<DT, kBlockN>(s, pa);

    for (int it = 1; it < ntiles; it++) {
      const int j = ntiles - 1 - it, g = kv + it, st = g % S, sp = (g - 1) % S;
      turn_wait();
      cb_mbar_wait(&k_full[st], (g / S) & 1);
      qk(st);
      cb_mbar_wait(&v_full[sp], ((g - 1) / S) & 1);
      pv(sp);
      turn_pass();
      cb_wgmma_wait<1>(); /* S_i done, P V may still run */
      cb_wgmma_fence_operand(s);
      cb_mbar_arrive(&k_empty[st]);
      if (it == ntiles - 1) cb_mbar_arrive(q_empty);
      if ((j + 1) * kBlockN > f.nfull) sm.mask(s, j * kBlockN, lim);
      sm.update(s, p.scale_log2, alpha);
      cb_wgmma_wait<0>();
      cb_wgmma_fence_operand(o);
      cb_wgmma_fence_operand(pa);
      cb_mbar_arrive(&v_empty[sp]);
      cb_sm90_rescale_o(o, alpha);
      cb_sm90_pack_p<DT, kBlockN>(s, pa);
    }
    {
      const int g = kv + ntiles - 1, sp = g % S;
      cb_mbar_wait(&v_full[sp], (g / S) & 1);
      pv(sp);
      cb_wgmma_wait<0>();
      cb_wgmma_fence_operand(o);
      cb_wgmma_fence_operand(pa);
      cb_mbar_arrive(&v_empty[sp]);
    }
    kv += ntiles;
    {
      /* the epilogue's place read again from the slot, so that the compiler does not compute its
       * 64-bit addresses above the mainloop and keep them live through it */
      volatile int *slot = s_tile[nq & 1];
      int rowe[2];
      rowe[0] = slot[CB_FWD_SLOT_ROW0] + c * 64 + wq * 16 + lane / 4;
      rowe[1] = rowe[0] + 8;
      cb_sm90_epilogue<T, DT, D>(p, sm, o, rowe, slot[CB_FWD_SLOT_B], slot[CB_FWD_SLOT_H]);
    }
  }
  if (c == 0) cb_named_bar_sync(CB_SM90_BAR_TURN, 256); /* the extra arrival */
}

#endif
