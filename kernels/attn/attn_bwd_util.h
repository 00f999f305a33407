/* Helpers around the backward block pair (attn_bwd.h) for ring attention's backward pass and its
 * check: the naive low-precision backward the check's tolerance is derived from, fp32 delta, and
 * fp32 element-wise kernels (a += b, rounding to the 16-bit dtype). Device code in
 * kernels/attn/attn_bwd_util.cu, attn_bwd_preprocess.cu (delta) and attn_bwd_ref.cu. */
#ifndef CB_ATTN_BWD_UTIL_H
#define CB_ATTN_BWD_UTIL_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "attn_bwd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cb_attn_bwd_reference's kernel as a framework computing the backward in bf16/fp16 would:
 * scores rounded to the dtype (Q.K^T, then times scale, as the forward's naive reference),
 * P = exp(s - lse), dP = dO.V^T and dS = P * (dP - delta) each rounded to the dtype, products
 * accumulated in fp32; dq += this call's dq rounded to the dtype. dk and dv accumulate in fp32
 * across query rows (cb_attn_f32_round them to the dtype afterwards). lse and delta as given. */
int cb_attn_bwd_reference_naive(const cb_attn_bwd_args_t *a, cudaStream_t s, char *why, size_t n);

/* delta[b][h][i] = sum_d dout[b][i][h][d] * o[b][i][h][d] with o the fp32 output (the check's
 * truth, from the fp32 forward). */
void cb_attn_bwd_delta_f32(const float *o, const void *dout, float *delta, int batch, int q_len, int heads,
                           int head_dim, int bf16, cudaStream_t s);

/* dst[i] += src[i] for n floats. */
void cb_attn_f32_add(float *dst, const float *src, size_t n, cudaStream_t s);

/* x[i] = x[i] rounded to bfloat16 (bf16 = 1) or fp16 and back, for n floats. */
void cb_attn_f32_round(float *x, size_t n, int bf16, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
