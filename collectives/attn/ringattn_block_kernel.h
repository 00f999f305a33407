/* The block kernel of a ring-attention row: what attends this rank's queries to one K/V block,
 * in the forward into the running fp32 output and log-sum-exp (and the final out), in the
 * backward into dQ and the block's fp32 dK/dV sums. A table of two entries, each in files of
 * its own with its own state:
 *   cb_ra_block_collbench  collbench's kernels (kernels/attn/attn.h, attn_bwd.h):
 *                          ringattn_block_collbench.c
 *   cb_ra_block_cudnn      cuDNN's fused attention (the binding in cudnn/):
 *                          ringattn_block_cudnn.c, ringattn_block_cudnn_bwd.c
 * Every scheme runs with either: ringattn_rows.c makes one registry row per (scheme, entry) and
 * ringattn_row.c hands the row's entry to the shared state (x->block). Schemes launch through
 * cb_ra_attend and cb_ra_bwd_attend below and never name a kernel.
 *
 * The contract both keep, so ring steps combine exactly whichever kernel ran: the forward merges
 * its pair into x->o / x->lse as cb_attn_fwd does (first: the first merge of the rows, final:
 * the last, which writes x->out); the backward computes its pair's gradients from the forward's
 * final x->out and x->lse (over the whole sequence) and adds them into x->bwd.dq and dkv. */
#ifndef CB_RINGATTN_BLOCK_KERNEL_H
#define CB_RINGATTN_BLOCK_KERNEL_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "collective.h"
#include "ringattn_state.h"

typedef struct cb_ra_block_kernel {
  /* What a row with this kernel needs beyond its scheme's (its pass, shapes, the library), for
   * the sequence sharded over P ranks (P = 1: the whole sequence on every rank). NULL: nothing. */
  int (*supported)(const cb_world_t *w, const cb_params_t *p, int P, char *why, size_t n);
  /* Its state for the forward, after the shared state (x->block_state; the device bytes it
   * allocates counted in x->mem), everything prepared that a timed forward or a measurement
   * needs. Returns 0, or -1 with why. NULL: nothing to make. */
  int (*init)(cb_ra_t *x, char *why, size_t n);
  /* Frees all of its state, the backward's too; safe after a partial init. NULL: nothing. */
  void (*free)(cb_ra_t *x);
  /* One launch: this rank's queries at qpos against the K/V block kv (K then V, x->kv_elems
   * elements each) at kvpos, merged into x->o / x->lse (x->out when final). */
  void (*forward)(const cb_ra_t *x, cb_attn_pos_t qpos, const void *kv, cb_attn_pos_t kvpos, int first, int final,
                  cudaStream_t s);
  /* Its state for the backward, after the shared backward buffers (ringattn_bwd.c), then one
   * real pair of this rank's queries against its own block into sums, as a probe: a build or a
   * GPU that cannot run it fails here with the reason. Returns 0, or -1 with why. */
  int (*bwd_init)(cb_ra_t *x, float *sums, char *why, size_t n);
  /* The start of every backward, before dq is cleared (collbench's: delta = rowsum(dout * out),
   * which cuDNN computes inside each call). NULL: nothing. */
  void (*bwd_begin)(const cb_ra_t *x, cudaStream_t s);
  /* One backward pair: this rank's queries at qpos against the K/V block kv at kvpos;
   * x->bwd.dq and dkv (dK | dV of that block, fp32) += its gradients. */
  void (*backward)(const cb_ra_t *x, cb_attn_pos_t qpos, const void *kv, cb_attn_pos_t kvpos, float *dkv,
                   cudaStream_t s);
  /* Appends to a row's note what a reader needs to know of the kernel ("block kernel cuDNN
   * <version>"; collbench's only where its fallback runs, and why). */
  void (*note)(const cb_ra_t *x, char *note, size_t n);
  /* SMs one forward launch of this rank's block occupies (the ring's sms column). NULL: the
   * kernel does not say (reported as 0). */
  int (*sms)(const cb_ra_t *x);
} cb_ra_block_kernel_t;

extern const cb_ra_block_kernel_t cb_ra_block_collbench, cb_ra_block_cudnn;

/* One forward launch of the row's block kernel: this rank's queries (at their own positions)
 * against the K/V block kv whose rows hold the positions kvpos. */
void cb_ra_attend(const cb_ra_t *x, const void *kv, cb_attn_pos_t kvpos, int first, int final, cudaStream_t s);

/* One backward pair of the row's block kernel: this rank's queries against the K/V block kv
 * (positions kvpos): dq and dkv (dK | dV of that block) += its gradients. */
void cb_ra_bwd_attend(const cb_ra_t *x, const void *kv, cb_attn_pos_t kvpos, float *dkv, cudaStream_t s);

/* Appends text to a row's note, "; " between parts (the block kernels' note()). */
void cb_ra_note_append(char *note, size_t n, const char *text);

#endif
