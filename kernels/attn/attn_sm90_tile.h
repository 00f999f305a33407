/* Tile choice of the Hopper attention kernel (attn_fwd_sm90.cu), in one place with its why.
 *
 * A CTA is 3 warpgroups: one producer (a single thread issues every TMA load) and two
 * consumers, each owning 64 query rows (wgmma's M), so a CTA covers BLOCK_M = 128 rows and
 * keeps one Q tile in shared memory for its whole sweep over the keys. Keys come in tiles of
 * BLOCK_N, double-buffered (2 stages of K and of V, each with its own full/empty barriers).
 *
 * Registers per consumer thread: O 64 x D fp32 over 128 threads = D / 2; S 64 x BLOCK_N fp32 =
 * BLOCK_N / 2; P as 16-bit pairs = BLOCK_N / 4. D = 128, BLOCK_N = 128: 64 + 64 + 32 = 160 of the
 * 240 that setmaxnreg gives a consumer (the producer drops to 24: 128 x 24 + 256 x 240 = 64512
 * of the SM's 65536), leaving room for addresses, the row statistics and the masks.
 * Shared memory: Q 128 x D + 2 x (K + V) BLOCK_N x D, 16-bit: D = 128: 160 KB (one CTA per SM
 * of 227 KB).
 * Why 128-key tiles with ping-pong, at both head dims and masks: on an H200 (bf16, 32 heads,
 * S = 4K to 32K, docs/decisions.md) it was the fastest or within 4 % of the fastest at every
 * shape the ring uses; FlashAttention-3's 176-key tiles for non-causal D = 128 gained 4 % at
 * S = 32K only and lost 3-12 % at 4K-16K; without ping-pong every shape lost 2-20 %. The kernel
 * keeps the tile width and ping-pong as template parameters (attn_fwd_sm90_kernel.cuh; a new width
 * needs its S wrapper in sm90_wgmma.cuh); only this variant is built. */
#ifndef CB_ATTN_SM90_TILE_H
#define CB_ATTN_SM90_TILE_H

#include <stddef.h>

static constexpr int CB_SM90_BLOCK_M = 128;    /* query rows per CTA: 2 consumer warpgroups x 64 */
static constexpr int CB_SM90_CONSUMER_WGS = 2; /* consumer warpgroups */
static constexpr int CB_SM90_THREADS = 128 * (1 + CB_SM90_CONSUMER_WGS);
static constexpr int CB_SM90_STAGES = 2;          /* K and V tiles in flight each */
static constexpr int CB_SM90_PRODUCER_REGS = 24;  /* setmaxnreg of the producer warpgroup */
static constexpr int CB_SM90_CONSUMER_REGS = 240; /* setmaxnreg of each consumer warpgroup */
static constexpr bool CB_SM90_PINGPONG = true;    /* consumer warpgroups take turns (attn_fwd_sm90_kernel.cuh) */

static constexpr int CB_SM90_BLOCK_N = 128;            /* keys per K/V tile */
static constexpr size_t CB_SM90_SMEM_MAX = 227 * 1024; /* dynamic shared memory one sm_90 CTA may have */

/* Dynamic shared memory of one CTA: 1024 bytes of alignment slack (the 128-byte swizzle wants
 * 1024-byte aligned tiles), the tiles, then the mbarriers. */
static constexpr size_t cb_attn_sm90_smem_bytes(int head_dim, int block_n) {
  return 1024 + (size_t)(CB_SM90_BLOCK_M + 2 * CB_SM90_STAGES * block_n) * head_dim * 2 + 8 * (1 + 4 * CB_SM90_STAGES);
}

#endif
