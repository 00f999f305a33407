/* Register fragment layouts of the warp-wide tensor-core instruction
 * mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32 (PTX ISA, "Matrix fragments
 * for mma.m16n8k16"), as index functions that the attention kernel (attn_fwd_mma_kernel.cuh) derives its
 * indices from and that the CPU test (tests/cpu/test_attn_merge.c) checks on the host. Plain C11
 * can include it.
 *
 * With g = lane / 4 (group) and t = lane % 4 (thread in group); every 32-bit register of A and B
 * holds two 16-bit elements, the lower-indexed one in the low half:
 *   A (16 x 16, row major), regs a0..a3:  a0: (g,     2t + h)    a1: (g + 8, 2t + h)
 *                                         a2: (g,     2t + 8 + h) a3: (g + 8, 2t + 8 + h)
 *   B (16 x 8, k x n), regs b0, b1:       b0: (k = 2t + h, n = g) b1: (k = 2t + 8 + h, n = g)
 *   C, D (16 x 8, fp32), regs c0..c3:     c0, c1: (g, 2t + {0,1})  c2, c3: (g + 8, 2t + {0,1})
 * (h = 0 low half, 1 high half).
 *
 * ldmatrix.sync.aligned.m8n8.x4.b16: lane L gives the address of row L % 8 of matrix L / 8;
 * register i receives matrix i's elements (row g, columns 2t, 2t + 1), i.e. exactly a C-layout
 * 8 x 8 piece; with .trans it receives (rows 2t, 2t + 1, column g) of the stored matrix. */
#ifndef CB_MMA_FRAG_H
#define CB_MMA_FRAG_H

#include "hostdev.h"

/* A operand: element h of register reg of lane -> (row, col) of the 16 x 16 tile */
CB_HD void cb_mma_a_pos(int lane, int reg, int h, int *row, int *col) {
  *row = lane / 4 + (reg & 1) * 8;
  *col = 2 * (lane % 4) + (reg >> 1) * 8 + h;
}

/* B operand: element h of register reg -> (k, n) of the 16 x 8 tile */
CB_HD void cb_mma_b_pos(int lane, int reg, int h, int *k, int *n) {
  *k = 2 * (lane % 4) + reg * 8 + h;
  *n = lane / 4;
}

/* C/D accumulator: register reg (0..3) -> (row, col) of the 16 x 8 tile */
CB_HD void cb_mma_c_pos(int lane, int reg, int *row, int *col) {
  *row = lane / 4 + (reg >> 1) * 8;
  *col = 2 * (lane % 4) + (reg & 1);
}

/* ldmatrix.x4 addressing: lane gives the address of one row and one 16-byte chunk of a
 * 16-row x 2-chunk block; matrix i is lanes 8i .. 8i+7. Two rules:
 *   cb_ldm_row / cb_ldm_chunk: matrix i covers rows (i & 1) * 8 .. +7, chunk i >> 1.
 *     A from a row-major [row][k] block (Q): register i is a_i.
 *     B from a [k][n] block with .trans (V for P.V): registers 0, 1 are b0, b1 of the n tile of
 *     chunk 0, registers 2, 3 those of chunk 1.
 *   cb_ldm_b_row / cb_ldm_b_chunk: matrix i covers rows (i >> 1) * 8 .. +7, chunk i & 1.
 *     B from a [n][k] block, no .trans (K for Q.K^T): registers 0, 1 are b0, b1 of the n tile of
 *     rows 0..7, registers 2, 3 those of rows 8..15. (The first rule would give b0, b1 in
 *     registers 0, 2: mma takes B as a register pair, so that costs moves.) */
CB_HD int cb_ldm_row(int lane) { return ((lane >> 3) & 1) * 8 + (lane & 7); }
CB_HD int cb_ldm_chunk(int lane) { return lane >> 4; }
CB_HD int cb_ldm_b_row(int lane) { return (lane >> 4) * 8 + (lane & 7); }
CB_HD int cb_ldm_b_chunk(int lane) { return (lane >> 3) & 1; }

/* Swizzled position of 16-byte chunk c of row r in a shared tile whose rows are a multiple of
 * 128 bytes: the 8 rows one ldmatrix phase reads at one logical chunk fall on 8 different
 * 16-byte bank groups. */
CB_HD int cb_swz_chunk(int r, int c) { return c ^ (r & 7); }

/* Element offset of (row, 16-byte chunk c) in a swizzled tile of rows of row_elems 16-bit
 * elements (row_elems a multiple of 64, at most 128: 8 or 16 chunks per row).
 * Stepping without recomputing the swizzle: for c0 in {0, 1} and an even chunk step K,
 *   offset(r, c0 + K) = offset(r, c0) ^ (8 K)       (K touches only chunk bits above c0's)
 *   offset(r + 8 m, c) = offset(r, c) + 8 m row_elems  (r % 8 is unchanged)
 * so a kernel keeps one offset per addressing rule and reaches every step with one XOR or add. */
CB_HD int cb_swz_offset(int r, int c, int row_elems) { return r * row_elems + (cb_swz_chunk(r, c) << 3); }

/* The attention kernel's P reuse: the scores of a 16 x 64 key tile sit in 8 accumulators
 * s[nt][0..3] (keys 8 nt .. 8 nt + 7). The A operand of the P.V step kk (keys 16 kk .. 16 kk +
 * 15) takes element h of its register reg from s[nt][c] with these (nt, c); no shuffles. */
CB_HD void cb_attn_p_source(int kk, int reg, int h, int *nt, int *c) {
  *nt = 2 * kk + (reg >> 1);
  *c = (reg & 1) * 2 + h;
}

#endif
