/* The state every ring-attention row shares (cb_ra_t): the shape of the rank's problem, its
 * shard buffers, the second stream and events of the ring forms, the buffers of the backward,
 * and the launches of collbench's kernels that the block kernels and the checks share. The
 * lowest file of the wing's host code: it calls no other file of collectives/attn/.
 *
 * Buffers of one rank (shape from cb_attn_config_t; rows = S/P, or S for `single`):
 *   q    [batch][rows][heads][head_dim]          dtype
 *   kv   [ K: batch][rows][kv_heads][head_dim] | V: same ]   dtype, one block = kv_bytes
 *   o    [batch][rows][heads][head_dim]          fp32 running output (attn.h)
 *   lse  [batch][heads][rows]                    fp32 running log-sum-exp
 *   out  [batch][rows][heads][head_dim]          dtype final output
 * A K/V block is one contiguous allocation so one copy (or one NCCL send) moves it.
 * The backward's, beside them (ringattn_bwd.c allocates and frees them):
 *   dout  [batch][rows][heads][head_dim]                  dtype: the loss gradient of out,
 *                                                         seeded random values (tensor 3 of
 *                                                         attn_util.h's fill), made once
 *   delta [batch][heads][rows]                            fp32: rowsum(dout * out)
 *   dq    [batch][rows][heads][head_dim]                  fp32 (accumulated over the steps)
 *   dkv   [ dK: batch][rows][kv_heads][head_dim] | dV ]   fp32 home: the complete dK, dV of
 *                                                         this rank's K/V shard (one allocation
 *                                                         so one copy moves both)
 *   part  like dkv                                        one step's contribution (ring forms)
 *
 * Who owns what: this struct is the first member of the scheme's own state (ringattn_scheme.h),
 * which holds the scheme's buffers; the block kernel keeps its own behind block_state
 * (ringattn_block_kernel.h); each owner frees what it allocated. A scheme may put one of these
 * buffers into memory of its own (cb_ra_share: peer memory other ranks write into); that one it
 * frees itself. */
#ifndef CB_RINGATTN_STATE_H
#define CB_RINGATTN_STATE_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "attn.h"
#include "attn_bwd.h"
#include "attn_family.h"
#include "collective.h"

#define CB_RA_MAX_STEPS 64 /* ranks of one ring (events per step) */
/* The peer rings' flags (ringattn_ring.c, ringattn_ring_bwd.c): each on its own 256-byte line,
 * and their K/V slots start 256-byte aligned. */
#define CB_RA_FLAG_STRIDE 256

typedef struct cb_ra_bwd {
  void *dout;
  float *delta, *dq, *dkv, *part;
  size_t dkv_elems; /* floats of dK and dV together (2 x the K/V block's elements; set by cb_ra_init) */
  size_t dkv_bytes;
  int dkv_owned; /* dkv was allocated here (else it is the scheme's home, e.g. in peer memory) */
} cb_ra_bwd_t;

struct cb_ra_scheme;
struct cb_ra_block_kernel;

/* Where a state's rows sit among the ranks: a ring of P members, member j being world rank
 * first + j * stride (a Ulysses row's inner ring runs across its groups), this rank member r, the
 * sequence laid out by `layout` over the P members in groups of U ranks (attn_layout.h). */
typedef struct cb_ra_part {
  int P, r, stride, first, U, layout;
} cb_ra_part_t;

#define CB_RA_MAX_SHARED 8

typedef struct cb_ra {
  const cb_world_t *w;
  const cb_attn_config_t *cfg; /* &row_cfg */
  cb_attn_config_t row_cfg;    /* the group's configuration: the run's with its batch (attn_family.h) */
  cb_dtype_t dtype;            /* bfloat16 or half */
  int P, r, bf16, causal;      /* bf16: dtype == CB_BF16, for the kernels' arguments */
  int layout, U;               /* the sequence layout and its groups (cb_ra_part_t) */
  int ring_stride, ring_first;
  uint64_t S;
  int64_t rows;
  size_t elem;
  size_t q_elems, kv_elems; /* kv_elems: elements of K (= of V) in one block */
  size_t kv_bytes;          /* one K/V block, K and V */
  size_t lse_elems;         /* the rows' log-sum-exp (also delta, cuDNN's stats): batch x heads x rows */
  float scale;              /* the softmax scale, 1/sqrt(head_dim), of every block kernel */
  cb_attn_runs_t runs;      /* global positions of this rank's rows */
  void *q, *kv, *out;
  float *o, *lse;
  cudaStream_t comm; /* the ring's second stream (transfers) */
  cudaEvent_t fork, join;
  cudaEvent_t step_a[CB_RA_MAX_STEPS], step_b[CB_RA_MAX_STEPS];
  const struct cb_ra_scheme *scheme;      /* the row's scheme (ringattn_scheme.h) */
  const struct cb_ra_block_kernel *block; /* the row's block kernel (ringattn_block_kernel.h) */
  void *block_state;                      /* the block kernel's own state (NULL: none) */
  size_t mem;                             /* device bytes allocated for the row (the mem_bytes column) */
  int pass;                               /* CB_ATTN_PASS_* of the row (attn_config.h) */
  cb_ra_bwd_t bwd;                        /* the backward's buffers (zero for --pass fwd) */
  void **shared[CB_RA_MAX_SHARED];        /* buffer fields in the scheme's memory (cb_ra_share) */
  int nshared;
} cb_ra_t;

/* Fills the shape, allocates and fills the rank's rows (those of `part`: for `single` one member
 * holding the whole sequence in natural order), creates the comm stream and events. Returns 0,
 * or -1 with why (out of memory) after freeing what it made. */
int cb_ra_init(cb_ra_t *x, const cb_inst_t *in, const cb_ra_part_t *part, char *why, size_t n);
/* Frees what cb_ra_init made (again: nothing). */
void cb_ra_free(cb_ra_t *x);

/* Puts the buffer in *field (one of x's, `bytes` long, allocated by cb_ra_init or cb_ra_bwd_init)
 * into mem, memory of the scheme's own that outlives x: the allocation is given back, and the
 * frees of x leave mem to the scheme. */
void cb_ra_share(cb_ra_t *x, void **field, size_t bytes, void *mem);
/* 1 when *field was shared (cb_ra_share): its owner frees it. */
int cb_ra_shared(const cb_ra_t *x, void *const *field);

/* World rank, and rank within this node, of member j (taken mod P) of x's ring. */
int cb_ra_ring_rank(const cb_ra_t *x, int j);
int cb_ra_ring_local(const cb_ra_t *x, int j);

/* cudaMalloc, counted in x->mem. The caller frees it (cudaFree). Returns 0 or -1 with why. */
int cb_ra_alloc(cb_ra_t *x, void **p, size_t bytes, char *why, size_t n);

/* cb_attn_runs_t -> the kernel's position runs, and back for a block of `rows` rows. */
cb_attn_pos_t cb_ra_pos(cb_attn_runs_t r);
cb_attn_runs_t cb_ra_runs(cb_attn_pos_t p, int64_t rows);

/* A block pair as the block kernels take it (attn_layout.h cb_attn_block_pair): this rank's
 * query rows at *qpos against a K/V block of x->rows rows at *kvpos; a stripe pair becomes its
 * dense causal block of stride 1, any other pair is left as it is. */
void cb_ra_block_pos(const cb_ra_t *x, cb_attn_pos_t *qpos, cb_attn_pos_t *kvpos);

/* Position runs of the K/V block that member `src` holds (the ring's step i carries the block of
 * member (r - i) mod P). */
cb_attn_pos_t cb_ra_src_pos(const cb_ra_t *x, int src);

/* Fills q and the own K/V block from seed (attn_util.h). */
void cb_ra_fill(cb_ra_t *x, uint64_t seed, cudaStream_t s);

/* One launch of collbench's forward block kernel (reference = 1: cb_attn_reference, lowp as
 * there) of q_len query rows at qpos against kv_len K/V rows at kvpos, batch `batch` (the
 * cb_attn_args_t fields of attn.h). Exits (CB_DIE) if the kernel refuses its arguments. */
void cb_ra_attend_rows(const cb_ra_t *x, const void *q, float *o, float *lse, void *out, int batch, int64_t q_len,
                       cb_attn_pos_t qpos, const void *k, const void *v, int64_t kv_len, cb_attn_pos_t kvpos, int first,
                       int final, int reference, int lowp, cudaStream_t s);

/* The arguments of one backward block pair (kernels/attn/attn_bwd.h): q_len query rows (q, dout, lse,
 * delta, dq) at qpos against kv_len K/V rows (kv: K then V, kv_elems elements each) at kvpos, with
 * the sums into dkv (dK then dV, kv_elems floats each); batch, shape, dtype and mask from x. */
cb_attn_bwd_args_t cb_ra_bwd_pair(const cb_ra_t *x, const void *q, const void *dout, const float *lse,
                                  const float *delta, float *dq, int64_t q_len, cb_attn_pos_t qpos, const void *kv,
                                  int64_t kv_len, cb_attn_pos_t kvpos, float *dkv, size_t kv_elems);

#endif
