/* Ring-attention configuration (family ringattn): the attention shape, which causal forms to
 * run, how the sequence is sharded over the ranks, and the FLOP count the rows report.
 * Host-only and CUDA-free, so the CLI and the CPU tests use it as the algorithms do.
 *
 * Sharding. The total sequence S is split over P ranks in sequence order:
 *   non-causal: rank r holds positions [r*S/P, (r+1)*S/P)               (one run)
 *   causal:     zigzag, S split into 2P chunks of c = S/(2P); rank r holds chunks r and
 *               2P-1-r (two runs), so every rank has the same share of the causal work
 * A rank's shard of q, k and v is one contiguous [batch][S/P][heads][head_dim] array whose rows
 * are those runs, in that order. (--layout picks another: attn_layout.h, stripe among them.) */
#ifndef CB_ATTN_CONFIG_H
#define CB_ATTN_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

enum cb_attn_causal_bits { CB_ATTN_NONCAUSAL = 1, CB_ATTN_CAUSAL = 2 };

/* --pass: what a row times. fwd: the forward; bwd: the backward alone (dQ, dK, dV from a forward
 * made before the timed loop); both: the training step, forward then backward. */
enum cb_attn_pass { CB_ATTN_PASS_FWD = 0, CB_ATTN_PASS_BWD = 1, CB_ATTN_PASS_BOTH = 2 };
#define CB_ATTN_PASS_HAS_FWD(p) ((p) != CB_ATTN_PASS_BWD)
#define CB_ATTN_PASS_HAS_BWD(p) ((p) != CB_ATTN_PASS_FWD)

/* The longest total sequence collbench accepts: positions must fit the kernel's int indices
 * with room for batch x heads products. */
#define CB_ATTN_MAX_SEQ (1ull << 30)
/* The most batch sizes one run sweeps (--batch LIST: each is a variant, attn_variant.h). */
#define CB_ATTN_MAX_BATCHES 16

typedef struct cb_attn_config {
  /* batch: the rows' batch. In the run's configuration batches[0]; a row's own configuration
   * (attn_family.h cb_attn_row_config) holds its group's entry of the --batch list. */
  int batch, heads, kv_heads, head_dim;
  int batches[CB_ATTN_MAX_BATCHES], nbatches; /* --batch N|LIST: the batch sizes swept (default 1) */
  int causal_modes;                           /* CB_ATTN_* bits: --causal 0 | 1 | both */
  int block_kernels;   /* CB_ATTN_BLOCK_* bits (attn_block.h): --block-kernel collbench | cudnn | both */
  int pass;            /* CB_ATTN_PASS_*: --pass fwd | bwd | both */
  int layouts;         /* --layout: CB_ATTN_LAYOUT_BIT bits (attn_layout.h); 0: the causal default */
  uint64_t ulysses;    /* --ulysses: bit U-1 for each Ulysses degree U asked for; 0: not given */
  int ulysses_all;     /* --ulysses all: every U dividing the rank count (attn_variant.h) */
  char save_dir[1024]; /* --save DIR: empty = do not save */
  const char *cmdline; /* the run's command line for --save's meta.json (set by the program) */
} cb_attn_config_t;

/* batch 1, 32 heads, 32 kv heads, head dim 128, non-causal and causal, both block kernels, the
 * forward pass. */
void cb_attn_defaults(cb_attn_config_t *c);

/* --batch: a batch size 1..4096, or a comma list of up to CB_ATTN_MAX_BATCHES distinct ones,
 * into c->batches (in the order given) and c->batch (the first). Returns 0, or -1 with why
 * (c unchanged). */
int cb_attn_parse_batches(const char *s, cb_attn_config_t *c, char *why, size_t n);

/* "0", "1", "both" -> CB_ATTN_* bits. Returns 0 or -1. */
int cb_attn_parse_causal(const char *s, int *bits);

/* "fwd", "bwd", "both" -> CB_ATTN_PASS_*; returns 0 or -1. cb_attn_pass_name: the reverse (the
 * rows' pass column), "?" for anything else. */
int cb_attn_parse_pass(const char *s, int *pass);
const char *cb_attn_pass_name(int pass);

/* Rejects what cannot run anywhere (before any GPU work): head_dim not 64/128, kv_heads not
 * dividing heads, a dtype other than bfloat16/half. Returns 0, or -1 with why. */
int cb_attn_config_check(const cb_attn_config_t *c, cb_dtype_t dtype, char *why, size_t n);

/* Rejects a sequence length that does not shard over nranks in the causal default layout
 * (attn_layout.h cb_attn_layout_seq_check): S must be a multiple of nranks (non-causal,
 * contiguous) or of 2*nranks (causal, zigzag). Returns 0, or -1 with why. */
int cb_attn_seq_check(uint64_t seq, int nranks, int causal, char *why, size_t n);

/* --save DIR must be usable before anything runs: a new folder (nothing at that name, not even
 * a symlink: collbench creates it with its first row, attn_save_dir.h) in an existing folder
 * this process may write into. Returns 0, or -1 with why. (As root, write permission is not
 * checked by the system, so a read-only parent is found only when the folder is made.) */
int cb_attn_check_save_dir(const char *dir, char *why, size_t n);

/* One or two runs of global positions (the layout of kernels/attn/attn.h's cb_attn_pos_t): row i
 * of the first run is at start0 + i * stride, of the second at start1 + i * stride. stride 0
 * means 1 (every initializer without it keeps its meaning); the stripe layout's one run has
 * stride R, the ring's member count (attn_layout.h). */
typedef struct cb_attn_runs {
  int64_t start0, len0, start1, len1;
  int64_t stride;
} cb_attn_runs_t;

/* The positions rank r holds in the causal default layout (above; attn_layout.h has the others). */
cb_attn_runs_t cb_attn_shard(uint64_t seq, int nranks, int rank, int causal);

/* Forward FLOPs of the whole problem: 4 * batch * heads * seq^2 * head_dim (two matrix products
 * of 2 FLOPs per multiply-add), half of that when causal (the masked half is not computed). */
double cb_attn_flops(const cb_attn_config_t *c, uint64_t seq, int causal);

/* FLOPs of one pass as FlashAttention counts them, in units of the forward's (cb_attn_flops):
 * the backward's five matrix products (S = Q K^T recomputed, dV, dP, dQ, dK) are 2.5 x the
 * forward's two; the training step 3.5 x. 0 for an unknown pass. */
double cb_attn_pass_flops_factor(int pass);

/* The size column of a ringattn row: bytes each rank receives in one pass of the ring schedule.
 * fwd: P - 1 K/V shards (cb_attn_kv_shard_bytes); bwd: those plus P fp32 dK/dV shards (the
 * partial sums travel a full turn, the last transfer taking them home); both: the sum. 0 on
 * one rank. */
uint64_t cb_attn_pass_bytes(const cb_attn_config_t *c, uint64_t seq, int nranks, size_t elem, int pass);

/* Bytes of one rank's K and V shard (what one ring step moves). */
uint64_t cb_attn_kv_shard_bytes(const cb_attn_config_t *c, uint64_t seq, int nranks, size_t elem);

#endif
