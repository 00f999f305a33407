/* Register fragment layouts of the warp-wide tensor-core instruction
 * mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32 (PTX ISA, "Matrix fragments
 * for mma.m16n8k16"), as index functions that the attention kernel (attn_fwd.cu) derives its
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

#ifdef __CUDACC__
#define CB_FRAG_HD __host__ __device__ __forceinline__
#else
#define CB_FRAG_HD static inline
#endif

/* A operand: element h of register reg of lane -> (row, col) of the 16 x 16 tile */
CB_FRAG_HD void cb_mma_a_pos(int lane, int reg, int h, int *row, int *col) {
  *row = lane / 4 + (reg & 1) * 8;
  *col = 2 * (lane % 4) + (reg >> 1) * 8 + h;
}

/* B operand: element h of register reg -> (k, n) of the 16 x 8 tile */
CB_FRAG_HD void cb_mma_b_pos(int lane, int reg, int h, int *k, int *n) {
  *k = 2 * (lane % 4) + reg * 8 + h;
  *n = lane / 4;
}

/* C/D accumulator: register reg (0..3) -> (row, col) of the 16 x 8 tile */
CB_FRAG_HD void cb_mma_c_pos(int lane, int reg, int *row, int *col) {
  *row = lane / 4 + (reg >> 1) * 8;
  *col = 2 * (lane % 4) + (reg & 1);
}

/* Which row (within a 16-row slice) and which 16-byte chunk (within a 16-column slice) lane
 * addresses for ldmatrix.x4 (matrix lane / 8, its row lane % 8):
 *   A operand from a row-major [row][k] tile: matrix i = rows (i & 1) * 8, chunk i >> 1, so
 *     register i is a_i;
 *   B operands of two n8 tiles from a [n][k] tile (K for Q.K^T), no .trans: matrix i = n rows
 *     (i >> 1) * 8, chunk i & 1, so registers 0, 1 are b0, b1 of the first n tile, 2, 3 of the
 *     second;
 *   B operands of two n8 tiles from a [k][n] tile (V for P.V), .trans: matrix i = k rows
 *     (i & 1) * 8, n chunk i >> 1: registers 0, 1 are b0, b1 of the first n tile, 2, 3 of the
 *     second (the same addressing as the A operand). */
CB_FRAG_HD int cb_ldm_a_row(int lane) { return ((lane >> 3) & 1) * 8 + (lane & 7); }
CB_FRAG_HD int cb_ldm_a_chunk(int lane) { return lane >> 4; }
CB_FRAG_HD int cb_ldm_b_row(int lane) { return (lane >> 4) * 8 + (lane & 7); }
CB_FRAG_HD int cb_ldm_b_chunk(int lane) { return (lane >> 3) & 1; }
CB_FRAG_HD int cb_ldm_bt_row(int lane) { return cb_ldm_a_row(lane); }
CB_FRAG_HD int cb_ldm_bt_chunk(int lane) { return cb_ldm_a_chunk(lane); }

/* Swizzled position of 16-byte chunk c of row r in a shared tile whose rows are a multiple of
 * 128 bytes: the 8 rows one ldmatrix phase reads at one logical chunk fall on 8 different
 * 16-byte bank groups. */
CB_FRAG_HD int cb_swz_chunk(int r, int c) { return c ^ (r & 7); }

/* The attention kernel's P reuse: the scores of a 16 x 64 key tile sit in 8 accumulators
 * s[nt][0..3] (keys 8 nt .. 8 nt + 7). The A operand of the P.V step kk (keys 16 kk .. 16 kk +
 * 15) takes element h of its register reg from s[nt][c] with these (nt, c); no shuffles. */
CB_FRAG_HD void cb_attn_p_source(int kk, int reg, int h, int *nt, int *c) {
  *nt = 2 * kk + (reg >> 1);
  *c = (reg & 1) * 2 + h;
}

#endif
