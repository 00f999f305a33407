/* ringattn `ring`'s backward pass (ringattn_ring_bwd.h): K/V rotate over peer memory on the copy
 * engine as in the forward (ringattn_ring.c), and the fp32 dK/dV partial sums of each block
 * travel behind it, one rank per step, until the last transfer takes them home
 * (ringattn_bwd_plan.h). The host never waits; every wait is a flag kernel (graph-capturable).
 *
 * Schedule of rank r, step i (cur = i % 2, nxt = (i + 1) % 2, blocks as ringattn_ring.c):
 *   comm stream                                  compute stream
 *   K/V: as the forward (wait arrived, wait      wait K/V arrived[cur] (i >= 1)
 *        freed, copy to next.kv[nxt], raise)     part = 0; dq, part += pair(block)      (1)
 *                                                release K/V slot cur (i >= 1, once forwarded)
 *                                                wait d_arrived[cur]; d[cur] += part    (2)
 *   wait (2); wait d_freed[nxt];
 *   copy d[cur] (step 0: acc0) -> next.d[nxt],
 *     or, at i = P - 1, -> next.home; raise next's d_arrived[nxt] (home_arrived);
 *   raise prev.d_freed[cur] (i >= 1)
 * At the end the compute stream waits home_arrived: dkv holds this rank's complete dK/dV.
 * The sums of step i travel while step i + 1 computes (1 runs before the wait of 2), so only
 * the last transfer is exposed. Step 0's sums go out from acc0, a buffer no fill touches.
 *
 * Peer allocation of every rank: [ kv 0 | kv 1 | d 0 | d 1 | home | flags ]: kv slots as the
 * forward's (one K/V block), d slots and home one fp32 dK|dV block each, flags (uint32, 256 B
 * apart) kv_arrived[2], kv_freed[2], d_arrived[2], d_freed[2], home_arrived; values counted per
 * backward from this allocation's own counter (attn_util.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_bwd_util.h"
#include "attn_util.h"
#include "cb_limits.h"
#include "error_gpu.h"
#include "peer.h"
#include "ringattn_block_kernel.h"
#include "ringattn_bwd.h"
#include "ringattn_bwd_plan.h"
#include "ringattn_pass.h"
#include "ringattn_ring_bwd.h"

enum { KV_ARRIVED = 0, KV_FREED = 2, D_ARRIVED = 4, D_FREED = 6, HOME_ARRIVED = 8, NFLAGS = 9 };

struct cb_ra_ring_bwd {
  cb_peer_mem_t pm;
  size_t kv_slot, d_slot, d_off, home_off, flags_off;
  uint32_t *counter; /* backwards so far (device memory of this rank) */
  float *acc0;       /* step 0's sums (own block) */
  cudaEvent_t kv_sent[CB_RA_MAX_STEPS], summed[CB_RA_MAX_STEPS];
};

static uint32_t *flag(const struct cb_ra_ring_bwd *g, int rank, int which) {
  return (uint32_t *)((char *)g->pm.ptrs[rank] + g->flags_off + (size_t)which * CB_RA_FLAG_STRIDE);
}
static void *kv_slot(const struct cb_ra_ring_bwd *g, int rank, int s) {
  return (char *)g->pm.ptrs[rank] + (size_t)s * g->kv_slot;
}
static float *d_slot(const struct cb_ra_ring_bwd *g, int rank, int s) {
  return (float *)((char *)g->pm.ptrs[rank] + g->d_off + (size_t)s * g->d_slot);
}
static float *home(const struct cb_ra_ring_bwd *g, int rank) {
  return (float *)((char *)g->pm.ptrs[rank] + g->home_off);
}

int cb_ra_ring_bwd_setup(cb_inst_t *in, cb_ra_t *x, struct cb_ra_ring_bwd **out, char *why, size_t n) {
  struct cb_ra_ring_bwd *g = calloc(1, sizeof *g);
  if (!g) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  g->kv_slot = CB_ALIGN_UP(x->kv_bytes, CB_RA_FLAG_STRIDE);
  g->d_slot = CB_ALIGN_UP(x->bwd.dkv_bytes, CB_RA_FLAG_STRIDE);
  g->d_off = 2 * g->kv_slot;
  g->home_off = g->d_off + 2 * g->d_slot;
  g->flags_off = g->home_off + g->d_slot;
  if (cb_peer_alloc(in->world, g->flags_off + NFLAGS * CB_RA_FLAG_STRIDE, &g->pm, why, n)) {
    free(g);
    return -1;
  }
  *out = g; /* freed by cb_ra_ring_bwd_free from here on, whatever fails next */
  for (int i = 0; i < CB_RA_MAX_STEPS; i++) {
    CB_CUDA(cudaEventCreateWithFlags(&g->kv_sent[i], cudaEventDisableTiming));
    CB_CUDA(cudaEventCreateWithFlags(&g->summed[i], cudaEventDisableTiming));
  }
  if (cb_ra_alloc(x, (void **)&g->counter, sizeof(uint32_t), why, n) ||
      cb_ra_alloc(x, (void **)&g->acc0, g->d_slot, why, n))
    return -1;
  CB_CUDA(cudaMemset(g->counter, 0, sizeof(uint32_t)));
  return cb_ra_setup_pass(x, in, home(g, g->pm.me), 1, why, n);
}

size_t cb_ra_ring_bwd_peer_bytes(const struct cb_ra_ring_bwd *g) { return g->pm.bytes; }

void cb_ra_ring_bwd_free(struct cb_ra_ring_bwd *g) {
  if (!g) return;
  for (int i = 0; i < CB_RA_MAX_STEPS; i++) {
    if (g->kv_sent[i]) CB_CUDA(cudaEventDestroy(g->kv_sent[i]));
    if (g->summed[i]) CB_CUDA(cudaEventDestroy(g->summed[i]));
  }
  cb_peer_free(&g->pm);
  CB_CUDA(cudaFree(g->counter));
  CB_CUDA(cudaFree(g->acc0));
  free(g);
}

/* The K/V half of step i on the comm stream c: the block held for step i goes to next's slot for
 * step i + 1 (the forward's protocol, on this allocation's flags). */
static void send_kv(const cb_inst_t *in, const struct cb_ra_ring_bwd *g, const cb_ra_t *x, int i, const void *block,
                    cudaStream_t c) {
  const int P = x->P, me = g->pm.me, next = cb_ra_ring_local(x, x->r + 1), cur = i % 2, nxt = (i + 1) % 2;
  const int me_rank = in->world->mpi.rank;
  const uint64_t tmo = in->world->spin_timeout_ns;
  unsigned int *ctl = in->world->ctl_dev;
  if (i >= 1)
    cb_ring_flag_wait(flag(g, me, KV_ARRIVED + cur), g->counter, cb_ra_slot_fills(P, cur), cb_ra_fill_index(i), tmo,
                      ctl, me_rank, cb_ra_ring_rank(x, x->r - 1), i, c);
  cb_ring_flag_wait(flag(g, me, KV_FREED + nxt), g->counter, cb_ra_slot_fills(P, nxt), cb_ra_fill_index(i + 1) - 1, tmo,
                    ctl, me_rank, cb_ra_ring_rank(x, x->r + 1), i + 1, c);
  CB_CUDA(cudaMemcpyAsync(kv_slot(g, next, nxt), block, x->kv_bytes, cudaMemcpyDefault, c));
  cb_ring_flag_set(flag(g, next, KV_ARRIVED + nxt), g->counter, cb_ra_slot_fills(P, nxt), cb_ra_fill_index(i + 1), c);
}

/* The sums' half of step i on c, once they are complete: on to next, or home. */
static void send_sums(const cb_inst_t *in, const struct cb_ra_ring_bwd *g, const cb_ra_t *x, int i, cudaStream_t c) {
  const int P = x->P, me = g->pm.me, prev = cb_ra_ring_local(x, x->r - 1), cur = i % 2, nxt = (i + 1) % 2;
  const cb_ra_bwd_step_t st = cb_ra_bwd_step(P, x->r, i);
  const int to = cb_ra_ring_local(x, st.dkv_to); /* (the next rank: the sums' owner at the last step) */
  const float *src = i == 0 ? g->acc0 : d_slot(g, me, cur);
  if (st.dkv_home) {
    CB_CUDA(cudaMemcpyAsync(home(g, to), src, x->bwd.dkv_bytes, cudaMemcpyDefault, c));
    cb_ring_flag_set(flag(g, to, HOME_ARRIVED), g->counter, 1, 1, c);
  } else {
    cb_ring_flag_wait(flag(g, me, D_FREED + nxt), g->counter, cb_ra_slot_fills(P, nxt), cb_ra_fill_index(i + 1) - 1,
                      in->world->spin_timeout_ns, in->world->ctl_dev, in->world->mpi.rank,
                      cb_ra_ring_rank(x, st.dkv_to), i + 1, c);
    CB_CUDA(cudaMemcpyAsync(d_slot(g, to, nxt), src, x->bwd.dkv_bytes, cudaMemcpyDefault, c));
    cb_ring_flag_set(flag(g, to, D_ARRIVED + nxt), g->counter, cb_ra_slot_fills(P, nxt), cb_ra_fill_index(i + 1), c);
  }
  if (i >= 1)
    cb_ring_flag_set(flag(g, prev, D_FREED + cur), g->counter, cb_ra_slot_fills(P, cur), cb_ra_fill_index(i), c);
}

void cb_ra_ring_bwd_run(cb_inst_t *in, struct cb_ra_ring_bwd *g, cudaStream_t s) {
  cb_ra_t *x = in->priv;
  const int P = x->P, me = g->pm.me, prev = cb_ra_ring_local(x, x->r - 1);
  const int me_rank = in->world->mpi.rank, prev_rank = cb_ra_ring_rank(x, x->r - 1);
  const uint64_t tmo = in->world->spin_timeout_ns;
  unsigned int *ctl = in->world->ctl_dev;
  cudaStream_t c = x->comm;
  if (P == 1) {
    cb_ra_bwd_single(in, s);
    return;
  }
  cb_ra_bwd_begin(x, s);
  cb_ring_iter_advance(g->counter, s);
  CB_CUDA(cudaEventRecord(x->fork, s));
  CB_CUDA(cudaStreamWaitEvent(c, x->fork, 0));
  for (int i = 0; i < P; i++) {
    const int cur = i % 2;
    const cb_ra_bwd_step_t st = cb_ra_bwd_step(P, x->r, i);
    const void *block = i == 0 ? x->kv : kv_slot(g, me, cur);
    if (i + 1 < P) {
      send_kv(in, g, x, i, block, c);
      CB_CUDA(cudaEventRecord(g->kv_sent[i], c));
    }
    float *sums = i == 0 ? g->acc0 : x->bwd.part;
    if (i >= 1)
      cb_ring_flag_wait(flag(g, me, KV_ARRIVED + cur), g->counter, cb_ra_slot_fills(P, cur), cb_ra_fill_index(i), tmo,
                        ctl, me_rank, prev_rank, i, s);
    CB_CUDA(cudaMemsetAsync(sums, 0, x->bwd.dkv_bytes, s));
    cb_ra_bwd_attend(x, block, cb_ra_src_pos(x, st.kv_src), sums, s);
    if (i >= 1) {
      if (i + 1 < P) CB_CUDA(cudaStreamWaitEvent(s, g->kv_sent[i], 0)); /* forwarded too */
      cb_ring_flag_set(flag(g, prev, KV_FREED + cur), g->counter, cb_ra_slot_fills(P, cur), cb_ra_fill_index(i), s);
      cb_ring_flag_wait(flag(g, me, D_ARRIVED + cur), g->counter, cb_ra_slot_fills(P, cur), cb_ra_fill_index(i), tmo,
                        ctl, me_rank, prev_rank, i, s);
      cb_attn_f32_add(d_slot(g, me, cur), x->bwd.part, x->bwd.dkv_elems, s);
    }
    CB_CUDA(cudaEventRecord(g->summed[i], s));
    CB_CUDA(cudaStreamWaitEvent(c, g->summed[i], 0));
    send_sums(in, g, x, i, c);
  }
  cb_ring_flag_wait(flag(g, me, HOME_ARRIVED), g->counter, 1, 1, tmo, ctl, me_rank, prev_rank, P, s);
  CB_CUDA(cudaEventRecord(x->join, c));
  CB_CUDA(cudaStreamWaitEvent(s, x->join, 0));
}

/* Parts alone (every rank in the measurement, behind a barrier; the next backward refills every
 * slot before reading it): the pass's kernels on whatever the slots hold, and its copies. */
void cb_ra_ring_bwd_compute(cb_inst_t *in, struct cb_ra_ring_bwd *g, cudaStream_t s) {
  void *slots[2] = {kv_slot(g, g->pm.me, 0), kv_slot(g, g->pm.me, 1)};
  float *d[2] = {d_slot(g, g->pm.me, 0), d_slot(g, g->pm.me, 1)};
  cb_ra_bwd_ring_compute(in->priv, slots, g->acc0, d, s);
}

void cb_ra_ring_bwd_comm(cb_inst_t *in, struct cb_ra_ring_bwd *g, cudaStream_t s) {
  cb_ra_t *x = in->priv;
  const int me = g->pm.me, next = cb_ra_ring_local(x, x->r + 1);
  for (int i = 0; i < x->P; i++) {
    if (i + 1 < x->P)
      CB_CUDA(cudaMemcpyAsync(kv_slot(g, next, (i + 1) % 2), i == 0 ? x->kv : kv_slot(g, me, i % 2), x->kv_bytes,
                              cudaMemcpyDefault, s));
    void *to = i + 1 < x->P ? (void *)d_slot(g, next, (i + 1) % 2) : (void *)home(g, next);
    CB_CUDA(cudaMemcpyAsync(to, i == 0 ? g->acc0 : d_slot(g, me, i % 2), x->bwd.dkv_bytes, cudaMemcpyDefault, s));
  }
}
