/* Shared host machinery of the ring-attention algorithms (ringattn_ring.c, ringattn_nccl.c,
 * ringattn_allgather.c, ringattn_single.c): the rank's shard buffers, the block-kernel launch,
 * the correctness check against the fp32 reference, timing of parts alone, and --save.
 *
 * Buffers of one rank (shape from cb_attn_config_t; rows = S/P, or S for `single`):
 *   q    [batch][rows][heads][head_dim]          dtype
 *   kv   [ K: batch][rows][kv_heads][head_dim] | V: same ]   dtype, one block = kv_bytes
 *   o    [batch][rows][heads][head_dim]          fp32 running output (attn.h)
 *   lse  [batch][heads][rows]                    fp32 running log-sum-exp
 *   out  [batch][rows][heads][head_dim]          dtype final output
 * A K/V block is one contiguous allocation so one copy (or one NCCL send) moves it.
 *
 * Every ringattn algorithm's private state (in->priv) starts with its cb_ra_t, so the shared
 * check and measurements below find it there. A scheme names its passes and their parts in the
 * cb_ra_t's hooks; cb_ra_run and cb_ra_measure run the row's --pass with them (ringattn_bwd.h:
 * the backward).
 *
 * The block kernel (attn_block.h) is collbench's (cb_attn_fwd) or cuDNN's fused attention
 * (ringattn_cudnn.c): every scheme runs with either, and cb_ra_attend is the one place that
 * launches it. */
#ifndef CB_RINGATTN_COMMON_H
#define CB_RINGATTN_COMMON_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "attn.h"
#include "attn_family.h"
#include "collective.h"
#include "ringattn_bwd.h"

#define CB_RA_MAX_STEPS 64 /* ranks of one ring (events per step) */
/* The peer rings' flags (ringattn_ring.c, ringattn_ring_bwd.c): each on its own 256-byte line,
 * and their K/V slots start 256-byte aligned. */
#define CB_RA_FLAG_STRIDE 256
/* Every check's bound (bf16/fp16, issue 12): max abs error <= 2 x the max error of a naive
 * low-precision computation of the same rows; the 1e-6 floor keeps a degenerate problem
 * (all-equal scores) from demanding exactness. */
#define CB_RA_TOLERANCE(naive_err) ((float)(2.0 * (naive_err) + 1e-6))

typedef struct cb_ra {
  const cb_world_t *w;
  const cb_attn_config_t *cfg;
  cb_dtype_t dtype;       /* bfloat16 or half */
  int P, r, bf16, causal; /* bf16: dtype == CB_BF16, for the kernels' arguments */
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
  int block;              /* CB_ATTN_BLOCK_COLLBENCH or CB_ATTN_BLOCK_CUDNN (attn_block.h) */
  struct cb_cudnn *cudnn; /* cuDNN rows: the rank's handle and plans (attn_cudnn.h) */
  void *cudnn_o;          /* cuDNN rows: one call's block output [batch][rows][heads][head_dim] */
  float *cudnn_stats;     /* cuDNN rows: its log-sum-exp [batch][heads][rows] */
  size_t mem;             /* device bytes this state allocated (mem_bytes) */
  void *extra[24];        /* further allocations of the algorithm (cb_ra_alloc), freed with it (nccl_ring with
                             cuDNN needs more than 8: its staging blocks and its outputs; a backward 5, 3 more
                             with cuDNN, and the scheme's 3: nccl_ring with cuDNN about 20) */
  int nextra;
  int pass;        /* CB_ATTN_PASS_* of the row (attn_config.h) */
  cb_ra_bwd_t bwd; /* the backward's buffers (ringattn_bwd.h; zero for --pass fwd) */
  /* the scheme's forward and backward, and each one's compute alone and
   * communication alone (NULL: nothing to measure) */
  void (*forward)(struct cb_inst *in, cudaStream_t s);
  void (*backward)(struct cb_inst *in, cudaStream_t s);
  void (*fwd_compute)(struct cb_inst *in, cudaStream_t s), (*fwd_comm)(struct cb_inst *in, cudaStream_t s);
  void (*bwd_compute)(struct cb_inst *in, cudaStream_t s), (*bwd_comm)(struct cb_inst *in, cudaStream_t s);
} cb_ra_t;

/* run() of every ringattn algorithm: the row's pass with the scheme's hooks (fwd, bwd, or
 * forward then backward). */
void cb_ra_run(cb_inst_t *in, int phase, cudaStream_t s);
/* measure() of the ring forms: compute alone (the pass's attention launches), then, behind a
 * barrier, communication alone (skipped on one rank), then the pass's local kernels alone on
 * one S/P block; into in->metric[CB_ATTN_COMPUTE_US, COMM_US, LOCAL_US] (attn_family.h). */
void cb_ra_measure(cb_inst_t *in, cudaStream_t s);
/* The setup steps every scheme shares after its own allocations: the row's FLOPs (this rank's
 * share: the whole problem / ranks, times the pass's factor; full: `single`, the whole problem)
 * and, for a pass with a backward, the backward's buffers (cb_ra_bwd_init). */
int cb_ra_setup_pass(cb_ra_t *x, cb_inst_t *in, int full, float *home, int parts, char *why, size_t n);
/* The supported() part of --pass: a cuDNN row with a backward needs a cuDNN that has one
 * (attn_cudnn_bwd.h: cb_cudnn_bwd_supported; CB_ATTN_NO_CUDNN without cuDNN). */
int cb_ra_pass_supported(const cb_params_t *p, int cudnn, char *why, size_t n);

/* Windows of this rank's rows the checks compare (all rows of a short problem, else
 * CB_RA_CHECK_WINDOW_ROWS at the start and end of each run): row0/len in the shard, pos their
 * global positions. Returns how many (<= CB_RA_CHECK_MAX_WINDOWS). */
#define CB_RA_CHECK_WINDOW_ROWS 32
#define CB_RA_CHECK_MAX_WINDOWS 4
typedef struct cb_ra_window {
  int64_t row0, len;
  cb_attn_pos_t pos;
} cb_ra_window_t;
int cb_ra_check_windows(const cb_ra_t *x, cb_ra_window_t *w);
/* 1 when the reference kernels may read the whole sequence against itself (short problems). */
int cb_ra_check_all(uint64_t rows, uint64_t S);
/* The check's inputs of (seed, iter). */
uint64_t cb_ra_check_seed(uint64_t seed, int iter);

/* One launch of the forward block kernel (reference = 1: cb_attn_reference, lowp as there) of
 * q_len query rows at qpos against kv_len K/V rows at kvpos, batch `batch` (the cb_attn_args_t
 * fields of attn.h). */
void cb_ra_attend_rows(const cb_ra_t *x, const void *q, float *o, float *lse, void *out, int batch, int64_t q_len,
                       cb_attn_pos_t qpos, const void *k, const void *v, int64_t kv_len, cb_attn_pos_t kvpos, int first,
                       int final, int reference, int lowp, cudaStream_t s);

/* Every ringattn algorithm's supported(): shape and dtype checks, the rank limit. */
int cb_ra_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n);
/* The same for a cuDNN row (full: `single`): first its pass (cb_ra_pass_supported: a backward
 * needs a recent enough cuDNN), cuDNN in this build (else CB_ATTN_NO_CUDNN), and a mask cuDNN
 * has for every block pair the ring makes (attn_split.h). */
int cb_ra_cudnn_supported(const cb_world_t *w, const cb_params_t *p, int full, char *why, size_t n);
int cb_ra_supported_cudnn(const cb_world_t *w, const cb_params_t *p, char *why, size_t n); /* full = 0 */

/* Allocates and fills the rank's shard (full = 1: the whole sequence in natural order, for
 * `single`), creates the comm stream and events; block: the kernel (attn_block.h), for cuDNN
 * also its context, scratch and every plan the forward needs. Returns 0, or -1 with why (out
 * of memory, no cuDNN engine) after freeing what it made. */
int cb_ra_init(cb_ra_t *x, const cb_inst_t *in, int full, int block, char *why, size_t n);
void cb_ra_free(cb_ra_t *x);

/* Device memory counted in x->mem and freed by cb_ra_free. Returns 0 or -1 with why. */
int cb_ra_alloc(cb_ra_t *x, void **p, size_t bytes, char *why, size_t n);

/* cb_attn_runs_t -> the kernel's position runs. */
cb_attn_pos_t cb_ra_pos(cb_attn_runs_t r);

/* One block-kernel launch of this rank's queries against the K/V block `kv` whose rows hold
 * the positions kvpos. */
void cb_ra_attend(const cb_ra_t *x, const void *kv, cb_attn_pos_t kvpos, int first, int final, cudaStream_t s);

/* Appends the block kernel to a row's note (ringattn_common.c): "block kernel cuDNN <version>"
 * for a cuDNN row, "block kernel mma.sync (fallback: <why>)" where collbench's rows run the
 * fallback instead of the Hopper kernel, nothing for the Hopper kernel. */
void cb_ra_block_note(const cb_ra_t *x, char *note, size_t n);

/* Fills q and the own K/V block from seed (attn_util.h). */
void cb_ra_fill(cb_ra_t *x, uint64_t seed, cudaStream_t s);

/* The check shared by every ringattn algorithm: fresh inputs for (seed, iter), poisoned output,
 * one forward (the scheme's fwd; a pass with a backward then runs cb_ra_bwd_check), then the output compared with the
 * fp32 reference on all of this rank's rows (short problems) or on windows at the start and end of every run (where the
 * zigzag masks change). Tolerance: 2 x the max error of a naive low-precision computation of
 * the same rows (attn.h), measured in the same check. Sets in->metric[CB_ATTN_ERR_MAX, ERR_MEAN]; returns the
 * number of elements beyond the tolerance. With --save, the first check's tensors are written. */
long long cb_ra_check(cb_inst_t *in, cudaStream_t s, uint64_t seed, int iter);

/* Mean time in us of `reps` calls of fn on s (CUDA events; one warm-up call first). */
double cb_ra_time_us(cudaStream_t s, int reps, void (*fn)(cb_inst_t *in, cudaStream_t s), cb_inst_t *in);

/* teardown() of the algorithms whose state is a cb_ra_t with cb_ra_alloc'ed extras. */
void cb_ra_teardown(cb_inst_t *in);

/* Position runs of the K/V block that rank `src` holds (the ring's step i carries the block of
 * rank (r - i) mod P). */
cb_attn_pos_t cb_ra_src_pos(const cb_ra_t *x, int src);

/* --save DIR: rank 0 writes q, k, v, out (float32, [batch][seq][heads][head_dim], sequence
 * order) and lse ([batch][heads][seq]) as .npy plus meta.json (with a backward also dout, dq,
 * dk, dv); collective over the world unless
 * the state holds the full sequence (`single`: rank 0 alone). Returns 0, or -1 with why. */
int cb_ra_save(const cb_inst_t *in, const cb_ra_t *x, char *why, size_t n);

#endif
