/* TMA tensor maps for the Hopper attention kernels (attn_fwd_sm90.cu, attn_bwd_sm90.cu): a
 * [batch][len][heads][d] 16-bit tensor (attn.h's layout) described to TMA as a 4-d tensor (d,
 * heads, len, batch), innermost first, read in boxes of (64, 1, rows, 1): one 64-column half of
 * `rows` consecutive rows of one head, 128-byte swizzled (sm90_wgmma.cuh). Rows past the end of
 * the tensor arrive as zeros. */
#ifndef CB_SM90_TMA_H
#define CB_SM90_TMA_H

#include <cuda.h>
#include <stddef.h>

/* 0, or -1 with why (no driver entry point, an encoding the driver refuses). */
int cb_sm90_map(CUtensorMap *m, const void *base, int bf16, int d, int heads, int len, int batch, int rows, char *why,
                size_t n);

/* The same for an fp32 tensor, in boxes of (32, 1, rows, 1): 128 bytes of one row a line
 * (the backward's dQ reductions). */
int cb_sm90_map_f32(CUtensorMap *m, void *base, int d, int heads, int len, int batch, int rows, char *why, size_t n);

#endif
