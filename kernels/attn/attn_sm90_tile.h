/* Tile choice of the Hopper attention kernels, forward (attn_fwd_sm90.cu) and backward
 * (attn_bwd_sm90.cu), in one place with its why. The figures behind each choice are in
 * docs/decisions/attention-hopper.md.
 *
 * Both kernels run CTAs of 3 warpgroups: one producer (its TMA loads are issued by one thread,
 * or one warp in the backward) and two consumers with setmaxnreg: the producer drops to 24
 * registers, each consumer gets 240 (128 x 24 + 256 x 240 = 64512 of the SM's 65536), one CTA per
 * SM (shared memory, below).
 *
 * Forward. Each consumer owns 64 query rows (wgmma's M), so a CTA covers BLOCK_M = 128 rows and
 * keeps one Q tile in shared memory for its whole sweep over the keys. Keys come in tiles of
 * BLOCK_N, double-buffered (2 stages of K and of V, each with its own full/empty barriers).
 * Registers per consumer thread: O 64 x D fp32 over 128 threads = D / 2; S 64 x BLOCK_N fp32 =
 * BLOCK_N / 2; P as 16-bit pairs = BLOCK_N / 4. D = 128, BLOCK_N = 128: 64 + 64 + 32 = 160 of the
 * 240, leaving room for addresses, the row statistics and the masks. Shared memory: Q 128 x D +
 * 2 x (K + V) BLOCK_N x D, 16-bit: D = 128: 160 KB (of 227 KB).
 * Why 128-key tiles with ping-pong (the consumer warpgroups take turns at the tensor cores), at
 * both head dims and masks: on an H200 (bf16, 32 heads, S = 4K to 32K) it was the fastest or
 * within 4 % of the fastest at every shape the ring uses; FlashAttention-3's 176-key tiles for
 * non-causal D = 128 gained 4 % at S = 32K only and lost 3-12 % at 4K-16K; without ping-pong every
 * shape lost 2-20 %. (A new key tile width needs its S wrapper in sm90_wgmma.cuh.)
 *
 * Backward. A CTA owns BLOCK_N = 128 keys of one kv head, 64 per consumer warpgroup, whose dK and
 * dV (64 x D fp32 each: D / 2 + D / 2 registers per thread) stay in registers over the whole sweep
 * of its query heads (all of the kv head's, or a part: attn_bwd_sm90_schedule.h); query tiles of
 * BLOCK_M rows (Q, dO and their statistics) stream through a ring of stages. BLOCK_M x D is
 * 8192 at both head dims (D = 128: 64 rows, 3 stages; D = 64: 128 rows, 2 stages), so dQ's tile
 * splits into one 64 x 64 block per consumer warpgroup (32 registers): at D = 128 each takes half
 * of the columns, at D = 64 half of the rows. Per query tile a consumer holds S^T and dP^T
 * (64 keys x BLOCK_M queries fp32: BLOCK_M / 2 registers each) and P^T and dS^T as 16-bit A
 * operands (BLOCK_M / 4 each) besides dK and dV: D = 128: 128 + 32 + 32 + 16 + 16, D = 64:
 * 64 + 64 + 64 + 32 + 32 (P^T's fp32 form dies as it is packed: cb_bwd_ds_from_16bit_p); the
 * consumers fit either in their 240 without spilling (ptxas: at D = 128 the producer warp, at 24
 * registers, keeps one loop invariant on the stack, 4 bytes reloaded once per tile). Shared
 * memory: K, V 2 x 128 x D; Q, dO stages x 2 x BLOCK_M x D; dS^T 2 x 128 x BLOCK_M 16-bit; the dQ
 * buffers 2 x 64 x 64 fp32; the statistics: D = 128: 226.6 KB of 227, D = 64: 195 KB.
 * Why these: FlashAttention-3's shapes (D = 128: 64 x 128, D = 64: 128 x 128; two consumer
 * warpgroups splitting the keys, P^T and dS^T from registers in the dV and dK products). At
 * D = 64 the 64-row tiles left the tensor pipe 43 % busy (Nsight Compute, S 16K): each GEMM's K
 * is 64, so the per-tile work (softmax recompute, dS^T store, the barriers) weighed twice what it
 * does at D = 128. 3 stages at D = 128 measured +-1 % against 2 and shipped with the dQ
 * reductions they went with. The consumer's schedule (cb_bwd_next_st_after_dk below) and the
 * figures: docs/decisions/attention-hopper.md. */
#ifndef CB_ATTN_SM90_TILE_H
#define CB_ATTN_SM90_TILE_H

#include <stddef.h>

static constexpr int CB_SM90_CONSUMER_WGS = 2; /* consumer warpgroups */
static constexpr int CB_SM90_THREADS = 128 * (1 + CB_SM90_CONSUMER_WGS);
static constexpr int CB_SM90_PRODUCER_REGS = 24;       /* setmaxnreg of the producer warpgroup */
static constexpr int CB_SM90_CONSUMER_REGS = 240;      /* setmaxnreg of each consumer warpgroup */
static constexpr size_t CB_SM90_SMEM_MAX = 227 * 1024; /* dynamic shared memory one sm_90 CTA may have */

/* forward */
static constexpr int CB_SM90_BLOCK_M = 128; /* query rows per CTA at D = 128: 2 consumer warpgroups x 64 */
/* D = 64 runs FlashAttention-3's 192-row tiles: 3 consumer warpgroups of 160 registers each
 * (128 x 24 + 384 x 160 = 64512; O 32 + S 64 + P 32 of them), so that two warpgroups' GEMMs can
 * run while the third does its softmax; except where the 128-row tiles of two warpgroups finish
 * first (cb_fwd_wgs below). W: the consumer warpgroups. */
static constexpr int cb_fwd_consumer_wgs(int D) { return D == 64 ? 3 : CB_SM90_CONSUMER_WGS; }
static constexpr int cb_fwd_block_m(int W) { return 64 * W; }
static constexpr int cb_fwd_threads(int W) { return 128 * (1 + W); }
static constexpr int cb_fwd_consumer_regs(int W) { return W == 3 ? 160 : CB_SM90_CONSUMER_REGS; }
static constexpr int CB_SM90_BLOCK_N = 128; /* keys per K/V tile */
static constexpr int CB_SM90_STAGES = 2;    /* K and V tiles in flight each */

/* backward */
static constexpr int CB_BWD_BLOCK_N = 64 * CB_SM90_CONSUMER_WGS; /* keys per CTA: 64 per consumer warpgroup */
/* query rows per tile and the Q / dO tiles in flight */
static constexpr int cb_bwd_block_m(int D) { return D == 64 ? 128 : 64; }
static constexpr int cb_bwd_stages(int D) { return D == 64 ? 2 : 3; }
/* dQ: one 64 x 64 block of the tile per consumer warpgroup (rows x columns), added to dq in
 * boxes of 64 rows x 32 columns by the TMA reductions */
static constexpr int CB_BWD_DQ_ROWS = 64;
static constexpr int CB_BWD_DQ_COLS = 64;
static constexpr int CB_BWD_DQ_BOXES = CB_BWD_DQ_COLS / 32;
/* Software pipelining across query tiles: the next tile's S^T is issued at the end of this one,
 * so that it runs across the tile boundary instead of being issued and waited for at the start
 * of each tile. At D = 64 it is issued behind dK (once dQ's registers are free) and runs under
 * it; at D = 128 only once dK is in: issuing it behind dK there makes ptxas serialize every wgmma
 * (C7512: registers). Every tile issues one, the last a dummy on its own stage, so that no branch
 * surrounds a wgmma (C7520). */
static constexpr bool cb_bwd_next_st_after_dk(int D) { return D == 128; }
/* D = 64: dS^T = P^T (dP^T - delta) takes P^T from its 16-bit pairs (the dV operand), so that
 * its fp32 form (64 registers) dies at the packing; holding both beside S^T, dP^T, dK and dV,
 * ptxas serialized every wgmma (C7512). dV is then issued after dS^T is packed: the PTX ISA
 * forbids reading a wgmma's A registers while it is in flight, and with dS^T's fp32 form still
 * live at the issue ptxas serialized the fp16 kernel's wgmma */
static constexpr bool cb_bwd_ds_from_16bit_p(int D) { return D == 64; }

/* Ints in each of the forward's two tile slots (by parity: the decoded tile the producer hands over). */
static constexpr int CB_FWD_SLOT_INTS = 8;
/* Dynamic shared memory of one CTA: 1024 bytes of alignment slack (the 128-byte swizzle wants
 * 1024-byte aligned tiles), the tiles, the mbarriers, then the two tile slots. */
static constexpr size_t cb_attn_fwd_sm90_smem_bytes(int D, int W) {
  return 1024 + (size_t)(cb_fwd_block_m(W) + 2 * CB_SM90_STAGES * CB_SM90_BLOCK_N) * D * 2 +
         8 * (2 + 4 * CB_SM90_STAGES) + 2 * CB_FWD_SLOT_INTS * 4;
}
/* the backward's: K, V, the Q / dO ring, dS^T (2 x 128 keys x BLOCK_M 16-bit), the dQ buffers, the
 * statistics ([stage][lse, delta][BLOCK_M] fp32), then the mbarriers (kv_full, q_full and q_empty
 * per stage) */
static constexpr size_t cb_attn_bwd_sm90_smem_bytes(int D) {
  return 1024 + (size_t)(2 * CB_BWD_BLOCK_N + 2 * cb_bwd_stages(D) * cb_bwd_block_m(D)) * D * 2 +
         2 * (size_t)CB_BWD_BLOCK_N * cb_bwd_block_m(D) * 2 +
         (size_t)CB_SM90_CONSUMER_WGS * CB_BWD_DQ_ROWS * CB_BWD_DQ_COLS * 4 +
         cb_bwd_stages(D) * 2 * cb_bwd_block_m(D) * 4 + 8 * (1 + 2 * cb_bwd_stages(D));
}

/* The forward's consumer warpgroups for a shape on `sms` SMs: cb_fwd_consumer_wgs(D), except at
 * D = 64 without a mask, where every CTA costs the same and the grid runs in whole waves: there
 * the 128-row tiles (two warpgroups; 0.958x the 192-row form's rows per second, H200, S 16K:
 * 463.6 against 483.7 TFLOP/s) when their waves finish first. 32 heads at 4K: 704 CTAs of 192
 * rows take 6 waves (5.3 of work), 1024 of 128 rows 8: 6 x 192 = 1152 against 8 x 128 / 0.958 =
 * 1069 row-times. Causal grids launch longest first (attn_sm90_order.h) and keep the default. */
static inline int cb_fwd_wgs(int D, int causal, int q_len, long pairs, int sms) {
  if (D != 64 || causal || sms < 1) return cb_fwd_consumer_wgs(D);
  const long t3 = ((q_len + cb_fwd_block_m(3) - 1) / cb_fwd_block_m(3)) * pairs,
             t2 = ((q_len + cb_fwd_block_m(2) - 1) / cb_fwd_block_m(2)) * pairs;
  const double w3 = (double)((t3 + sms - 1) / sms) * cb_fwd_block_m(3),
               w2 = (double)((t2 + sms - 1) / sms) * cb_fwd_block_m(2) / 0.958;
  return w2 < w3 ? 2 : 3;
}

/* The forward's grid: one CTA per SM at most (one fits an SM), each taking query tiles from the
 * kernel's scheduler until none is left (attn_fwd_sm90_kernel.cuh). A CTA then loads the next
 * tile's Q while its last one finishes, where a CTA per tile would start empty; and a CTA held
 * back by another kernel on the GPU (NCCL's, in a ring step) takes fewer tiles, not a fixed share.
 * H200, 32 heads, bf16 against one CTA per tile: D 64 4K 450 against 426 TFLOP/s, D 128 4K 624
 * against 604 (docs/decisions/attention-hopper.md). */
static inline int cb_fwd_grid(int tiles, int sms) { return tiles < sms || sms < 1 ? tiles : sms; }

#endif
