/* The tile of the mma.sync attention kernel (attn_fwd_mma_kernel.cuh, the fallback for GPUs without
 * wgmma): the CTA's shape, the main loop each head dim takes and why, the shared-memory budget,
 * and the checked copy of a tile into the swizzled shared-memory layout.
 *
 * Work split. One CTA per (query tile of CB_ATTN_BLOCK_M = 128 rows, head, batch); K/V swept in
 * tiles of CB_ATTN_BLOCK_N = 64 keys; 4 warps of 32 query rows (CB_ATTN_SLICES = 2 m16 slices,
 * FlashAttention-2's shape), each warp owning its rows for the whole sweep (no cross-warp
 * reduction). Every K/V fragment read from shared memory feeds both m16 slices: per 64-key tile
 * at D = 128 the CTA reads 4 warps x 32 KB of K and V + 32 KB of Q = 160 KB (1280 cycles at
 * 128 B/cycle), below the ~1500 cycles of its 1024 mma.sync. (8 warps of 16 rows read 256 KB,
 * above the mma time, and measured slower: docs/decisions/attention-mma-forms.md.)
 *
 * Shared-memory layout: rows of D bf16/fp16 = D / 8 chunks of 16 bytes; chunk c of row r is
 * stored at chunk position c ^ (r % 8). ldmatrix reads 8 rows x 16 bytes per phase at one
 * logical chunk: the 8 rows land on 8 different 16-byte bank groups (no conflicts); cp.async
 * writes whole rows, a permutation of the row's chunks (no conflicts either). */
#ifndef CB_ATTN_MMA_TILE_CUH
#define CB_ATTN_MMA_TILE_CUH

#include <stddef.h>

#include "mma_frag.h"
#include "mma_ptx.cuh"

static constexpr int CB_ATTN_BLOCK_M = 128; /* query rows per CTA */
static constexpr int CB_ATTN_BLOCK_N = 64;  /* keys per K/V tile */
static constexpr int CB_ATTN_STAGES = 2;    /* K/V tiles in flight: the one computed, the next */
static_assert(CB_ATTN_BLOCK_N % 16 == 0, "pairs of n8 score tiles, whole k16 steps of P.V");

/* The warp shape: m16 row slices per warp (the kernel's kMT), warps and threads per CTA, and
 * the CTAs per SM the registers must allow (255 registers x 128 threads x 2 CTAs fill an SM's
 * 64 K). */
static constexpr int CB_ATTN_SLICES = 2;
static constexpr int CB_ATTN_WARPS = CB_ATTN_BLOCK_M / (16 * CB_ATTN_SLICES);
static constexpr int CB_ATTN_THREADS = CB_ATTN_WARPS * 32;
static constexpr int CB_ATTN_MIN_CTAS = 2;

/* The main loop a head dim takes (both described above the kernel; the other forms tried and
 * their numbers: docs/decisions/attention-mma-forms.md), the fastest of nine on an H200:
 *   D = 128 (false): each 64-key tile as two 32-key halves in sequence, only one half of S live:
 *     O takes 128 of the 255 registers and Q is re-read from shared memory, so the 32 freed S
 *     registers are what lets ptxas issue K's ldmatrix ahead of the mma (354 TFLOP/s, bf16,
 *     S = 16K, against 336 for the one-tile loop);
 *   D = 64 (true): the halves pipelined across tiles, each half's softmax woven into the other
 *     half's Q K^T, one barrier per tile (319 TFLOP/s against 305 for the one-tile loop);
 *     Q stays in registers and nothing spills, so the second live half costs nothing there. */
static constexpr bool cb_attn_split_halves(int D) { return D == 64; }

/* V tiles in flight in the split-halves loop: V of tile j is still read after the barrier that
 * lets tile j + 2 load, so V needs a third stage (K keeps two). */
static constexpr int CB_ATTN_V_STAGES_SPLIT = 3;

/* dynamic shared memory of one CTA for head dim D (16-bit elements): Q 128 x D + 2 stages of K
 * and 2 (3 in the split-halves loop) of V, 64 x D each: 96 KB at D = 128 (two CTAs: 192 KB of
 * 228), 56 KB at D = 64 (opt-in above 48 KB) */
static constexpr size_t cb_attn_smem_bytes(int D) {
  return (size_t)(CB_ATTN_BLOCK_M +
                  (CB_ATTN_STAGES + (cb_attn_split_halves(D) ? CB_ATTN_V_STAGES_SPLIT : CB_ATTN_STAGES)) *
                      CB_ATTN_BLOCK_N) *
         D * 2;
}

/* Copy `ROWS` rows of D elements (row stride `stride` elements in global memory) into a
 * swizzled shared tile with cp.async, THREADS threads; rows >= valid are zero-filled (zeros,
 * not garbage: a zero V row times a zero probability stays 0, garbage could be NaN). */
template <typename T, int D, int ROWS, int THREADS>
__device__ __forceinline__ void cb_attn_load_tile(T *s, const T *g, size_t stride, int valid) {
  constexpr int kChunks = D / 8;
  static_assert((ROWS * kChunks) % THREADS == 0, "whole copy rounds");
#pragma unroll
  for (int it = 0; it < ROWS * kChunks / THREADS; it++) {
    const int i = threadIdx.x + it * THREADS;
    const int r = i / kChunks, c = i % kChunks;
    const bool ok = r < valid;
    const T *src = ok ? g + (size_t)r * stride + c * 8 : g;
    cb_cp_async16(s + cb_swz_offset(r, c, D), src, ok ? 16 : 0);
  }
}

#endif
