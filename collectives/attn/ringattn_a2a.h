/* Ulysses and the Ulysses x ring hybrid (DeepSpeed-Ulysses; TransformerEngine's a2a and
 * a2a+p2p; USP), the pipeline its two forms share: `ulysses` (peer memory, ringattn_ulysses.c)
 * and `nccl_ulysses` (NCCL, ringattn_nccl_ulysses.c). The host arithmetic (heads, copies, bytes)
 * is attn_a2a.h's.
 *
 * The ranks form P/U = R groups of U consecutive ranks (U: the variant's Ulysses degree,
 * attn_variant.h). A row holds two states:
 *   the shard's (x, the row's cb_ra_t): this rank's S/P rows of every head, as every row has
 *     them (the checks and --save read it);
 *   the inner one (a (scheme, block kernel) pair over the R groups, ringattn_pair.h): this
 *     member's H/U query heads (and its K/V heads) over its group's S/R rows, in the layout's
 *     order; its scheme is `single` when R = 1 (the attention over the whole sequence), else
 *     the ring across the groups among the ranks with this member index (`ring` over peer
 *     memory inside one node, `nccl_ring` otherwise), so both block kernels and both passes
 *     run unchanged.
 * Forward: q, k, v scattered by heads and gathered by sequence (all-to-all inside the group:
 * phase FWD_IN), the inner forward, the output sent back (FWD_OUT). Backward: dout in (BWD_IN),
 * the inner backward (from the inner forward's out and lse, kept as a framework keeps them),
 * dq, dk, dv back (BWD_OUT), replicated K/V heads' sums added. The log-sum-exp goes back only for
 * --save (LSE_OUT, untimed). Gradients travel in fp32, as the ring's sums do.
 *
 * A form (cb_ra_uly_move_t) moves the phases' tensors; this file says which tensors a phase
 * moves and where each block lands (cb_ra_uly_tensors, cb_ra_uly_copy). */
#ifndef CB_RINGATTN_A2A_H
#define CB_RINGATTN_A2A_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "attn_a2a.h"
#include "collective.h"
#include "ringattn_scheme.h"
#include "ringattn_state.h"

enum { CB_RA_UL_FWD_IN, CB_RA_UL_FWD_OUT, CB_RA_UL_BWD_IN, CB_RA_UL_BWD_OUT, CB_RA_UL_LSE_OUT, CB_RA_UL_NPHASES };
#define CB_RA_UL_MAX_TENSORS 3
#define CB_RA_UL_PHASE_IS_BWD(ph) ((ph) == CB_RA_UL_BWD_IN || (ph) == CB_RA_UL_BWD_OUT)

/* One tensor of a phase, as this rank sees it: read from src, landing in dst (both this rank's;
 * a peer's block lands at the same place of the peer's copy). */
typedef struct cb_ra_uly_tensor {
  cb_attn_a2a_tensor_t t;
  int kv;           /* its heads are split as the K/V heads */
  int out;          /* 0: shard -> inner (scatter by heads); 1: inner -> shard */
  const char *src;  /* shard (in) or inner (out) */
  char *dst;        /* inner (in) or shard (out) */
  size_t rep_bytes; /* out of K/V heads held by replicas: bytes from one replica's landing block to the next */
} cb_ra_uly_tensor_t;

struct cb_ra_uly;

/* How a form moves a phase's tensors inside the group. */
typedef struct cb_ra_uly_move {
  const char *what; /* for the row's note */
  int peer;         /* 1: needs peer memory in the group (and runs the peer ring across groups in one node) */
  /* Its memory, once the inner state is made: sets *home to where the shard's dK|dV sums land,
   * kv_replicas blocks of them one after the other (NULL: none made yet). Returns 0 or -1. */
  int (*setup)(struct cb_ra_uly *u, cb_inst_t *in, float **home, char *why, size_t n);
  /* After the pass's buffers exist: puts the buffers its transfers land in where it needs them
   * (cb_ra_share). NULL: nothing. */
  void (*share)(struct cb_ra_uly *u);
  void (*teardown)(struct cb_ra_uly *u); /* frees its memory (after a partial setup too) */
  /* The start of a pass (bwd 0: forward), before its first phase. NULL: nothing. */
  void (*begin)(struct cb_ra_uly *u, int bwd, cudaStream_t s);
  /* Moves phase ph: every block lands, this rank's own included, before what follows on s
   * (sync = 0: the transfers alone, for the communication-alone measurement). */
  void (*exchange)(struct cb_ra_uly *u, const cb_world_t *w, int ph, int sync, cudaStream_t s);
} cb_ra_uly_move_t;

typedef struct cb_ra_uly {
  cb_ra_t x; /* first: the row's shared state, the shard (ringattn_scheme.h) */
  const cb_ra_uly_move_t *move;
  cb_attn_heads_split_t split;
  int U, R, g, me;            /* group size, groups, this rank's group and member index */
  cb_attn_config_t inner_cfg; /* the inner state's shape: H/U heads, its K/V heads */
  cb_inst_t inner_in;         /* the inner pair's instance (priv: its state) */
  const cb_ra_scheme_t *inner_scheme;
  cb_ra_t *inner;
  void *form; /* the form's own state */
} cb_ra_uly_t;

/* supported() of both forms: the Ulysses degree divides the ranks, the heads split
 * (cb_attn_heads_split), and for the peer form peer memory inside every group. */
int cb_ra_uly_supported(const cb_world_t *w, const cb_params_t *p, int peer, char *why, size_t n);
/* setup() of both forms (the inner pair, the form's memory, the pass's buffers; for --pass bwd
 * one forward, so the timed backwards start from its out and lse). */
int cb_ra_uly_setup(cb_inst_t *in, const cb_ra_uly_move_t *move, char *why, size_t n);
void cb_ra_uly_teardown(cb_inst_t *in);
void cb_ra_uly_fwd(cb_inst_t *in, cudaStream_t s);
void cb_ra_uly_bwd(cb_inst_t *in, cudaStream_t s);
/* The parts alone (cb_ra_measure): the inner pass's compute; the all-to-alls (and the inner
 * ring's transfers); the inner state's local block. */
void cb_ra_uly_fwd_compute(cb_inst_t *in, cudaStream_t s);
void cb_ra_uly_fwd_comm(cb_inst_t *in, cudaStream_t s);
void cb_ra_uly_bwd_compute(cb_inst_t *in, cudaStream_t s);
void cb_ra_uly_bwd_comm(cb_inst_t *in, cudaStream_t s);
void cb_ra_uly_local(cb_inst_t *in, cudaStream_t s);
/* The log-sum-exp back in the shard (for --save). */
void cb_ra_uly_save_prepare(cb_inst_t *in, cudaStream_t s);

/* A form's scheme entry (ringattn_scheme.h): its supported() and setup(), the pipeline's hooks. */
#define CB_RA_ULYSSES_SCHEME(supported_fn, setup_fn)                                                            \
  {                                                                                                             \
    .state_size = sizeof(cb_ra_uly_t), .ulysses = 1, .supported = supported_fn, .setup = setup_fn,              \
    .teardown = cb_ra_uly_teardown, .forward = cb_ra_uly_fwd, .backward = cb_ra_uly_bwd,                        \
    .fwd_compute = cb_ra_uly_fwd_compute, .fwd_comm = cb_ra_uly_fwd_comm, .bwd_compute = cb_ra_uly_bwd_compute, \
    .bwd_comm = cb_ra_uly_bwd_comm, .local = cb_ra_uly_local, .save_prepare = cb_ra_uly_save_prepare,           \
  }

/* For the forms: the tensors of phase ph (returns how many; 0 for a backward phase of --pass
 * fwd); the block of tensor e from member `from` to member `to` with the offset of its landing
 * replica block (added to the landing base); the world rank and the rank within the node of
 * member m of this rank's group; bytes of phase ph one member sends another. */
int cb_ra_uly_tensors(const cb_ra_uly_t *u, int ph, cb_ra_uly_tensor_t *t);
cb_attn_copy_t cb_ra_uly_copy(const cb_ra_uly_t *u, const cb_ra_uly_tensor_t *e, int from, int to, size_t *rep_off);
int cb_ra_uly_rank(const cb_ra_uly_t *u, int m);
int cb_ra_uly_local_rank(const cb_ra_uly_t *u, int m);
size_t cb_ra_uly_phase_bytes(const cb_ra_uly_t *u, int ph);
/* cudaMemcpy2DAsync on the stream ctx (cb_attn_copy2d_fn). */
void cb_ra_uly_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, void *ctx);

#endif
