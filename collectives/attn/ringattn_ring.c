/* ringattn `ring`: K/V blocks rotate around the ranks of one node over peer memory while each
 * rank attends its queries to the block it holds; the fp32 output and log-sum-exp merge step
 * by step (attn.h). Zigzag sharding for causal runs (attn_config.h).
 *
 * Schedule of rank r (P ranks, next = r+1, prev = r-1 mod P), one forward:
 *   compute stream (the bench stream)      comm stream (its own, copy engine)
 *   step 0: attend own block               send own block -> next.slot[1], raise next.arrived[1]
 *   step i: wait arrived[i%2]              wait arrived[i%2]; wait freed[(i+1)%2] (next is done
 *           attend slot[i%2]                 with that slot); copy slot[i%2] -> next.slot[(i+1)%2];
 *           after the forward copy of it     raise next.arrived[(i+1)%2]
 *           is done: raise prev.freed[i%2]
 * The transfer for step i+1 runs on the copy engine while step i computes; no SM does
 * communication and the host never waits. Two slots per rank: the ring holds two K/V blocks
 * beyond its own.
 *
 * Peer allocation of every rank: [ slot 0 | slot 1 | flags ], flags = uint32 arrived[2],
 * freed[2] at 256-byte offsets. arrived[s] in the receiver's memory is raised by the sender
 * after its copy into slot s landed; freed[s] in the sender's memory is raised by the receiver
 * once slot s's block was attended and forwarded. Flag values count fills of the slot
 * (attn_util.h: value(k) = (forward - 1) * fills_per_forward + k), so graph replays stay in step
 * and a sender waits for freed >= value(k) - 1 before fill k. */
#include <stdio.h>

#include "attn_layout.h"
#include "attn_util.h"
#include "cb_limits.h"
#include "error_gpu.h"
#include "peer.h"
#include "ringattn_block_kernel.h"
#include "ringattn_bwd_plan.h"
#include "ringattn_pass.h"
#include "ringattn_ring_bwd.h"
#include "ringattn_scheme.h"

typedef struct ring {
  cb_ra_t x; /* first: the row's shared state (ringattn_scheme.h) */
  cb_peer_mem_t pm;
  size_t slot_bytes, flags_off;
  uint32_t *counter;          /* forwards so far (device memory of this rank) */
  struct cb_ra_ring_bwd *bwd; /* the backward's own peer ring (ringattn_ring_bwd.c), NULL for --pass fwd */
} ring_t;

enum { FLAG_ARRIVED = 0, FLAG_FREED = 2, FLAGS = 4 };

static uint32_t *flag_of(const ring_t *g, int rank_local, int which, int slot) {
  return (uint32_t *)((char *)g->pm.ptrs[rank_local] + g->flags_off + (size_t)(which + slot) * CB_RA_FLAG_STRIDE);
}

static void *slot_of(const ring_t *g, int rank_local, int slot) {
  return (char *)g->pm.ptrs[rank_local] + (size_t)slot * g->slot_bytes;
}

static int ring_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return cb_peer_supported(w, why, n);
}

static void ring_bwd(cb_inst_t *in, cudaStream_t s) {
  ring_t *g = in->priv;
  cb_ra_ring_bwd_run(in, g->bwd, s);
}
static void ring_bwd_compute(cb_inst_t *in, cudaStream_t s) {
  ring_t *g = in->priv;
  cb_ra_ring_bwd_compute(in, g->bwd, s);
}
static void ring_bwd_comm(cb_inst_t *in, cudaStream_t s) {
  ring_t *g = in->priv;
  cb_ra_ring_bwd_comm(in, g->bwd, s);
}

static int ring_setup(cb_inst_t *in, char *why, size_t n) {
  ring_t *g = in->priv;
  cb_ra_t *x = &g->x;
  g->slot_bytes = CB_ALIGN_UP(x->kv_bytes, CB_RA_FLAG_STRIDE);
  g->flags_off = 2 * g->slot_bytes;
  if (cb_ra_alloc(x, (void **)&g->counter, sizeof(uint32_t), why, n) ||
      cb_peer_alloc(in->world, g->flags_off + FLAGS * CB_RA_FLAG_STRIDE, &g->pm, why, n))
    return -1;
  CB_CUDA(cudaMemset(g->counter, 0, sizeof(uint32_t)));
  if (CB_ATTN_PASS_HAS_BWD(x->pass) ? cb_ra_ring_bwd_setup(in, x, &g->bwd, why, n)
                                    : cb_ra_setup_pass(x, in, NULL, 0, why, n))
    return -1;
  in->mem_bytes = x->mem + g->pm.bytes + (g->bwd ? cb_ra_ring_bwd_peer_bytes(g->bwd) : 0);
  /* No SM moves data (the copy engine does): the sms column is the attention kernel's grid.
   * --sms does not cap it: it caps communication kernels, and this ring has none. A block
   * kernel that does not say what grid it launches (cuDNN) is not reported (0). */
  in->sms = x->block->sms ? x->block->sms(x) : 0;
  snprintf(in->note, sizeof in->note, "%s; copy-engine transfers overlapped", cb_attn_layout_name(x->layout));
  return 0;
}

static void ring_fwd(cb_inst_t *in, cudaStream_t s) {
  ring_t *g = in->priv;
  cb_ra_t *x = &g->x;
  /* me: this rank's allocation; next, prev: the ring's neighbours' (ranks of this node);
   * me_rank, prev_rank: world ranks, for a timeout's message */
  const int P = x->P, me = g->pm.me, next = cb_ra_ring_local(x, x->r + 1), prev = cb_ra_ring_local(x, x->r - 1);
  const int me_rank = in->world->mpi.rank, prev_rank = cb_ra_ring_rank(x, x->r - 1);
  const int next_rank = cb_ra_ring_rank(x, x->r + 1);
  const uint64_t tmo = in->world->spin_timeout_ns;
  unsigned int *ctl = in->world->ctl_dev;
  cudaStream_t c = x->comm;
  cb_ring_iter_advance(g->counter, s);
  CB_CUDA(cudaEventRecord(x->fork, s));
  CB_CUDA(cudaStreamWaitEvent(c, x->fork, 0));
  for (int i = 0; i < P; i++) {
    const int cur = i % 2, nxt = (i + 1) % 2;
    const void *block = i == 0 ? x->kv : slot_of(g, me, cur);
    if (i + 1 < P) {
      /* the block for step i+1 of next: this step's block */
      if (i >= 1)
        cb_ring_flag_wait(flag_of(g, me, FLAG_ARRIVED, cur), g->counter, cb_ra_slot_fills(P, cur), cb_ra_fill_index(i),
                          tmo, ctl, me_rank, prev_rank, i, c);
      cb_ring_flag_wait(flag_of(g, me, FLAG_FREED, nxt), g->counter, cb_ra_slot_fills(P, nxt),
                        cb_ra_fill_index(i + 1) - 1, tmo, ctl, me_rank, next_rank, i + 1, c);
      CB_CUDA(cudaMemcpyAsync(slot_of(g, next, nxt), block, x->kv_bytes, cudaMemcpyDefault, c));
      cb_ring_flag_set(flag_of(g, next, FLAG_ARRIVED, nxt), g->counter, cb_ra_slot_fills(P, nxt),
                       cb_ra_fill_index(i + 1), c);
      CB_CUDA(cudaEventRecord(x->step_a[i], c));
    }
    if (i >= 1)
      cb_ring_flag_wait(flag_of(g, me, FLAG_ARRIVED, cur), g->counter, cb_ra_slot_fills(P, cur), cb_ra_fill_index(i),
                        tmo, ctl, me_rank, prev_rank, i, s);
    cb_ra_attend(x, block, cb_ra_src_pos(x, (x->r + P - i) % P), i == 0, i == P - 1, s);
    if (i >= 1) {
      if (i + 1 < P) CB_CUDA(cudaStreamWaitEvent(s, x->step_a[i], 0)); /* forwarded too */
      cb_ring_flag_set(flag_of(g, prev, FLAG_FREED, cur), g->counter, cb_ra_slot_fills(P, cur), cb_ra_fill_index(i), s);
    }
  }
  CB_CUDA(cudaEventRecord(x->join, c));
  CB_CUDA(cudaStreamWaitEvent(s, x->join, 0));
}

/* Parts alone: the P attention launches (on whatever the slots hold), and the P-1 block copies
 * to next (no compute reads the slots meanwhile: every rank is in this measurement, behind a
 * barrier, and the next forward refills the slots before reading them). */
static void ring_compute_only(cb_inst_t *in, cudaStream_t s) {
  ring_t *g = in->priv;
  cb_ra_t *x = &g->x;
  for (int i = 0; i < x->P; i++)
    cb_ra_attend(x, i == 0 ? x->kv : slot_of(g, g->pm.me, i % 2), cb_ra_src_pos(x, (x->r + x->P - i) % x->P), i == 0,
                 i == x->P - 1, s);
}

static void ring_comm_only(cb_inst_t *in, cudaStream_t s) {
  ring_t *g = in->priv;
  cb_ra_t *x = &g->x;
  const int next = cb_ra_ring_local(x, x->r + 1);
  for (int i = 0; i + 1 < x->P; i++)
    CB_CUDA(cudaMemcpyAsync(slot_of(g, next, (i + 1) % 2), i == 0 ? x->kv : slot_of(g, g->pm.me, i % 2), x->kv_bytes,
                            cudaMemcpyDefault, s));
}

static void ring_teardown(cb_inst_t *in) {
  ring_t *g = in->priv;
  cb_ra_ring_bwd_free(g->bwd);
  cb_peer_free(&g->pm);
  CB_CUDA(cudaFree(g->counter));
}

const cb_ra_scheme_t cb_ra_scheme_ring = {
    .state_size = sizeof(ring_t),
    .supported = ring_supported,
    .setup = ring_setup,
    .teardown = ring_teardown,
    .forward = ring_fwd,
    .backward = ring_bwd,
    .fwd_compute = ring_compute_only,
    .fwd_comm = ring_comm_only,
    .bwd_compute = ring_bwd_compute,
    .bwd_comm = ring_bwd_comm,
};
