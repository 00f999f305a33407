/* ringattn `nccl_ring`'s backward pass (ringattn_nccl_bwd.h): the schedule of ringattn_ring_bwd.c with
 * ncclSend/ncclRecv on the communication stream instead of peer copies and flags. Per step i,
 * on the comm stream: the K/V exchange (the block held for step i to next, the block for step
 * i + 1 from prev, as the forward's nccl_ring), then, once step i's sums are complete, the sums'
 * exchange (this step's to next; from prev the sums for step i + 1, or at i = P - 1 this rank's
 * complete dK/dV into the home buffer). Events order the streams:
 *   compute i waits the K/V receive of step i (kv_in[i]); the K/V receive into slot (i+1) % 2
 *   waits compute i - 1, its last reader (computed[i - 1]);
 *   the add of step i waits the sums' receive of step i - 1 (d_in[i]); the sums' send of step i
 *   waits that add (summed[i]); a receive into a dK/dV slot follows, on the same stream, the
 *   send that last read it.
 * The sums of step i travel while step i + 1 computes. Works across nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_bwd_util.h"
#include "error_gpu.h"
#include "ringattn_block_kernel.h"
#include "ringattn_bwd.h"
#include "ringattn_bwd_plan.h"
#include "ringattn_nccl_bwd.h"
#include "ringattn_pass.h"

struct cb_ra_nccl_bwd {
  void *slot[2]; /* the forward's K/V receive slots */
  float *d[2];   /* dK|dV receive slots */
  float *acc0;   /* step 0's sums */
  cudaEvent_t kv_in[CB_RA_MAX_STEPS], computed[CB_RA_MAX_STEPS], d_in[CB_RA_MAX_STEPS], summed[CB_RA_MAX_STEPS];
};

#define NCCL_BWD_EVENTS 4

static cudaEvent_t *event_row(struct cb_ra_nccl_bwd *g, int k) {
  cudaEvent_t *rows[NCCL_BWD_EVENTS] = {g->kv_in, g->computed, g->d_in, g->summed};
  return rows[k];
}

int cb_ra_nccl_bwd_setup(cb_inst_t *in, cb_ra_t *x, void *const slot[2], struct cb_ra_nccl_bwd **out, char *why,
                         size_t n) {
  struct cb_ra_nccl_bwd *g = calloc(1, sizeof *g);
  if (!g) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  *out = g;
  g->slot[0] = slot[0], g->slot[1] = slot[1];
  for (int k = 0; k < NCCL_BWD_EVENTS; k++)
    for (int i = 0; i < CB_RA_MAX_STEPS; i++)
      CB_CUDA(cudaEventCreateWithFlags(&event_row(g, k)[i], cudaEventDisableTiming));
  const size_t bytes = x->bwd.dkv_bytes;
  if (cb_ra_alloc(x, (void **)&g->d[0], bytes, why, n) || cb_ra_alloc(x, (void **)&g->d[1], bytes, why, n) ||
      cb_ra_alloc(x, (void **)&g->acc0, bytes, why, n))
    return -1;
  return cb_ra_setup_pass(x, in, NULL, 1, why, n);
}

void cb_ra_nccl_bwd_free(struct cb_ra_nccl_bwd *g) {
  if (!g) return;
  for (int k = 0; k < NCCL_BWD_EVENTS; k++)
    for (int i = 0; i < CB_RA_MAX_STEPS; i++)
      if (event_row(g, k)[i]) CB_CUDA(cudaEventDestroy(event_row(g, k)[i]));
  void *buf[] = {g->d[0], g->d[1], g->acc0}; /* (slot: the forward's, nccl_ring's own) */
  for (size_t i = 0; i < sizeof buf / sizeof buf[0]; i++) CB_CUDA(cudaFree(buf[i]));
  free(g);
}

/* One grouped exchange on c: `bytes` of send to next, of recv from prev. */
static void exchange(const cb_inst_t *in, const cb_ra_t *x, const void *send, void *recv, size_t bytes,
                     cudaStream_t c) {
  CB_NCCL(ncclGroupStart());
  CB_NCCL(ncclSend(send, bytes, ncclChar, cb_ra_ring_rank(x, x->r + 1), in->world->nccl, c));
  CB_NCCL(ncclRecv(recv, bytes, ncclChar, cb_ra_ring_rank(x, x->r - 1), in->world->nccl, c));
  CB_NCCL(ncclGroupEnd());
}

static const void *block_of(const struct cb_ra_nccl_bwd *g, const cb_ra_t *x, int i) {
  return i == 0 ? x->kv : g->slot[i % 2];
}
static float *sums_of(const struct cb_ra_nccl_bwd *g, const cb_ra_t *x, int i) {
  return i == 0 ? g->acc0 : x->bwd.part;
}
/* what step i sends on: step 0 its own sums, later steps the received slot with this rank added */
static float *outgoing(const struct cb_ra_nccl_bwd *g, int i) { return i == 0 ? g->acc0 : g->d[i % 2]; }

void cb_ra_nccl_bwd_run(cb_inst_t *in, struct cb_ra_nccl_bwd *g, cudaStream_t s) {
  cb_ra_t *x = in->priv;
  const int P = x->P;
  cudaStream_t c = x->comm;
  if (P == 1) {
    cb_ra_bwd_single(in, s);
    return;
  }
  cb_ra_bwd_begin(x, s);
  CB_CUDA(cudaEventRecord(x->fork, s));
  CB_CUDA(cudaStreamWaitEvent(c, x->fork, 0));
  for (int i = 0; i < P; i++) {
    const cb_ra_bwd_step_t st = cb_ra_bwd_step(P, x->r, i);
    if (i + 1 < P) {
      if (i >= 1) CB_CUDA(cudaStreamWaitEvent(c, g->computed[i - 1], 0));
      exchange(in, x, block_of(g, x, i), g->slot[(i + 1) % 2], x->kv_bytes, c);
      CB_CUDA(cudaEventRecord(g->kv_in[i + 1], c));
    }
    if (i >= 1) CB_CUDA(cudaStreamWaitEvent(s, g->kv_in[i], 0));
    CB_CUDA(cudaMemsetAsync(sums_of(g, x, i), 0, x->bwd.dkv_bytes, s));
    cb_ra_bwd_attend(x, block_of(g, x, i), cb_ra_src_pos(x, st.kv_src), sums_of(g, x, i), s);
    CB_CUDA(cudaEventRecord(g->computed[i], s));
    if (i >= 1) {
      CB_CUDA(cudaStreamWaitEvent(s, g->d_in[i], 0));
      cb_attn_f32_add(g->d[i % 2], x->bwd.part, x->bwd.dkv_elems, s);
    }
    CB_CUDA(cudaEventRecord(g->summed[i], s));
    CB_CUDA(cudaStreamWaitEvent(c, g->summed[i], 0));
    exchange(in, x, outgoing(g, i), st.dkv_home ? (void *)x->bwd.dkv : (void *)g->d[(i + 1) % 2], x->bwd.dkv_bytes, c);
    if (i + 1 < P) CB_CUDA(cudaEventRecord(g->d_in[i + 1], c));
  }
  CB_CUDA(cudaEventRecord(x->join, c));
  CB_CUDA(cudaStreamWaitEvent(s, x->join, 0));
}

void cb_ra_nccl_bwd_compute(cb_inst_t *in, struct cb_ra_nccl_bwd *g, cudaStream_t s) {
  cb_ra_bwd_ring_compute(in->priv, g->slot, g->acc0, g->d, s);
}

void cb_ra_nccl_bwd_comm(cb_inst_t *in, struct cb_ra_nccl_bwd *g, cudaStream_t s) {
  cb_ra_t *x = in->priv;
  for (int i = 0; i < x->P; i++) {
    if (i + 1 < x->P) exchange(in, x, block_of(g, x, i), g->slot[(i + 1) % 2], x->kv_bytes, s);
    exchange(in, x, outgoing(g, i), i + 1 < x->P ? (void *)g->d[(i + 1) % 2] : (void *)x->bwd.dkv, x->bwd.dkv_bytes, s);
  }
}
