/* Adds one block call's 16-bit gradients into fp32 sums at a row offset: the cuDNN backward's
 * dQ, dK, dV (collectives/attn_cudnn_bwd.h, compact, rounded to the input dtype) into the
 * backward pass's fp32 dq and dK|dV sums (collectives/ringattn_bwd.h). Device code in
 * attn_add_rows.cu.
 *
 * Layouts: src [batch][len][width] bf16/fp16, compact; dst [batch][dst_rows][width] fp32; the
 * call covers dst rows [row0, row0 + len) of every batch:
 *   dst[b][row0 + i][c] += src[b][i][c].
 * width (heads x head_dim) must be a multiple of 8: each thread adds one 16-byte vector. */
#ifndef CB_ATTN_ADD_ROWS_H
#define CB_ATTN_ADD_ROWS_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Returns 0, or -1 with why for bad arguments (nothing launched). */
int cb_attn_add_rows(float *dst, const void *src, int batch, int64_t dst_rows, int64_t row0, int64_t len, int64_t width,
                     int bf16, cudaStream_t s, char *why, size_t n);

#ifdef __cplusplus
}
#endif
#endif
