/* Merge of one finished attention block (another kernel's normalized output and log-sum-exp,
 * e.g. cuDNN's fused attention: collectives/attn_cudnn.h) into the running fp32 output and
 * log-sum-exp of kernels/attn/attn.h, with cb_attn_merge (attn_merge.h): the same contract as
 * cb_attn_fwd, so ring steps combine exactly whichever kernel computed a block.
 *
 * Layouts (rows = the rows of the query shard; the block covers rows [row0, row0 + q_len)):
 *   o_blk   [batch][q_len][heads][head_dim]  bf16/fp16, compact (the block kernel rounds its
 *                                            output to the input dtype before the merge, as
 *                                            TransformerEngine's ring does with cuDNN)
 *   lse_blk [batch][heads][q_len]            fp32, natural log (cuDNN's softmax Stats)
 *   o       [batch][rows][heads][head_dim]   fp32 running output (attn.h)
 *   lse     [batch][heads][rows]             fp32 running log-sum-exp
 *   out     [batch][rows][heads][head_dim]   bf16/fp16, written when final
 * o_blk = NULL: no block for these rows (nothing seen here): first still sets o = 0 and
 * lse = -inf, final still writes out from o. */
#ifndef CB_ATTN_MERGE_BLOCK_H
#define CB_ATTN_MERGE_BLOCK_H

#include <cuda_runtime.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_attn_merge_block_args {
  const void *o_blk;
  const float *lse_blk;
  float *o, *lse;
  void *out;                  /* required when final */
  int batch, heads, head_dim; /* head_dim a multiple of 8 */
  int rows, row0, q_len;
  int bf16;
  int first; /* o and lse hold nothing yet for these rows: written without being read */
  int final; /* also write out */
} cb_attn_merge_block_args_t;

/* Returns 0, or -1 with why (bad arguments) without launching. Launch errors are left to the
 * caller's cudaGetLastError check. */
int cb_attn_merge_block(const cb_attn_merge_block_args_t *a, cudaStream_t s, char *why, size_t n);

#ifdef __cplusplus
}
#endif
#endif
