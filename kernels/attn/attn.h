/* Forward attention over one (query block, key/value block) pair, the building block of ring
 * attention (collectives/ringattn_*.c). Device code in kernels/attn/attn_fwd_mma_kernel.cuh and attn_fwd.cu (tensor
 * cores, mma.sync m16n8k16, fp32 accumulation, online softmax); a plain fp32 reference in
 * kernels/attn/attn_reference.cu for the checks.
 *
 * Layouts (row-major, "BSHD" as FlashAttention):
 *   q    [batch][q_len][heads][head_dim]        bf16 or fp16
 *   k, v [batch][kv_len][kv_heads][head_dim]    bf16 or fp16  (GQA: head h reads kv head
 *                                                h / (heads / kv_heads))
 *   o    [batch][q_len][heads][head_dim]        fp32 running output, already normalized
 *   lse  [batch][heads][q_len]                  fp32 running log-sum-exp (natural log) of the
 *                                               scaled scores seen so far; -inf = none yet
 *   out  [batch][q_len][heads][head_dim]        bf16/fp16 final output (written when `final`)
 *
 * Successive calls over different K/V blocks merge exactly in fp32:
 *   lse' = log(exp(lse) + exp(lse_blk)),  o' = o * exp(lse - lse') + o_blk * exp(lse_blk - lse').
 *
 * Positions (for the causal mask): the rows of a block are one or two runs of global sequence
 * positions, row i < len0 -> start0 + i*st, else start1 + (i - len0)*st (st: the stride, 1
 * unless the stripe layout's reference checks ask for more), with start1 >= start0 + len0*st
 * (zigzag sharding: rank r holds chunks r and 2P-1-r). Causal: query at position p sees keys at
 * positions <= p. A query row that sees no key in this block leaves o and lse untouched. Tiles
 * whose keys are all masked are skipped (no loads, no math). */
#ifndef CB_ATTN_H
#define CB_ATTN_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_attn_pos {
  int64_t start0, len0, start1; /* one run: len0 >= rows of the block (start1 unused) */
  int64_t stride;               /* 0 or 1: consecutive; s: row i of a run at its start + i*s (the
                                   stripe layout). Only the references take s > 1 (the fast
                                   kernels refuse it: cb_attn_check_consecutive); the ring hands
                                   them a stripe pair as a dense one (collectives/attn/
                                   attn_layout.h cb_attn_block_pair). */
} cb_attn_pos_t;

typedef struct cb_attn_args {
  const void *q, *k, *v;
  float *o;                             /* running output (read unless first) */
  float *lse;                           /* running log-sum-exp (read unless first) */
  void *out;                            /* final output; required when final, else may be NULL */
  int batch, heads, kv_heads, head_dim; /* head_dim 64 or 128; kv_heads divides heads */
  int q_len, kv_len;                    /* rows of this block (any value >= 0) */
  int bf16;                             /* 1: bfloat16 inputs/output, 0: fp16 */
  int causal;
  cb_attn_pos_t qpos, kvpos;
  float scale; /* softmax scale, normally 1/sqrt(head_dim) */
  int first;   /* o and lse hold nothing yet: every row of o and lse is written (a row that
                  sees no key here gets o = 0, lse = -inf) without reading them first */
  int final;   /* also write out = o (converted) for every row (0 for a row that saw no key) */
} cb_attn_args_t;

/* Returns 0, or -1 with a reason (unsupported head_dim, heads % kv_heads != 0, ...) without
 * launching anything. Launch errors are left to the caller's cudaGetLastError check. Runs the
 * Hopper kernel (wgmma + TMA, kernels/attn/attn_fwd_sm90.cu) on sm_90 and the mma.sync kernel
 * (kernels/attn/attn_fwd_mma_kernel.cuh) on other GPUs; cb_attn_fwd_kernel_name says which (for row
 * notes: "wgmma", or "mma.sync (fallback: <why>)" written into buf). */
int cb_attn_fwd(const cb_attn_args_t *a, cudaStream_t s, char *why, size_t n);
const char *cb_attn_fwd_kernel_name(const cb_attn_args_t *a, char *buf, size_t n);

/* The Hopper kernel (kernels/attn/attn_fwd_sm90.cu), the one cb_attn_fwd runs on sm_90, run
 * explicitly: -1 with why where the device or the arguments cannot take it (for the test, which
 * checks it beside the mma.sync kernel). cb_attn_fwd_sm90_usable: 1 when this device is sm_90
 * and the arguments suit TMA, else 0 with the reason. */
int cb_attn_fwd_sm90(const cb_attn_args_t *a, cudaStream_t s, char *why, size_t n);
int cb_attn_fwd_sm90_usable(const cb_attn_args_t *a, char *why, size_t n);

/* The mma.sync kernel (kernels/attn/attn_fwd_mma_kernel.cuh), the one cb_attn_fwd runs off sm_90, run
 * on any GPU: for the test, which checks it on a Hopper GPU too. Same contract and return as
 * cb_attn_fwd. */
int cb_attn_fwd_mma(const cb_attn_args_t *a, cudaStream_t s, char *why, size_t n);

/* Query tiles of one launch over q_rows query rows (128-row tiles, per head and batch): capped at
 * the GPU's SMs, the SMs the kernel occupies (the Hopper kernel's grid is one CTA per SM at
 * most), for callers that report it. */
int64_t cb_attn_fwd_ctas(int64_t q_rows, int heads, int batch);

/* The argument checks both launchers run first (exported so a caller can validate a
 * configuration before allocating): 0, or -1 with the reason in why. */
int cb_attn_check_args(const cb_attn_args_t *a, char *why, size_t n);

/* The fast kernels' extra rule: causal positions of stride 1 (the references take any stride).
 * 0, or -1 with one line. */
int cb_attn_check_consecutive(const cb_attn_pos_t *qpos, const cb_attn_pos_t *kvpos, int causal, char *why, size_t n);

/* Plain reference with the same contract (simple kernel, one thread block per (batch, head,
 * query row), slow). lowp = 0: fp32 math throughout (the truth the checks compare with).
 * lowp = 1: a naive low-precision implementation: scores, probabilities and the output
 * rounded to the input dtype (bf16/fp16) after each step, as a framework doing
 * softmax(Q K^T) V in bf16 would; the tolerance of the fast kernel is derived from its error. */
int cb_attn_reference(const cb_attn_args_t *a, int lowp, cudaStream_t s, char *why, size_t n);

#ifdef __cplusplus
}
#endif
#endif
