/* ringattn `ulysses`: Ulysses (and, with --ulysses U < P, the hybrid) with the all-to-all inside
 * each group over peer memory: the pipeline of ringattn_a2a.h, its transfers as copy-engine 2D
 * copies (attn_a2a.h: one per tensor and peer, or one per batch slab) that push every block
 * straight into the receiving member's tensor, with flags; the ring across the groups over peer
 * memory too (`ring`) on one node, over NCCL across nodes. No SM moves data.
 *
 * Peer allocation of every rank, the same layout everywhere (256-byte aligned parts):
 *   [ IQ | IKV | IDOUT | OUT | LSE | DQ | DKV x kv_replicas | flags ]
 *   IQ, IKV, IDOUT  the inner state's q, K|V, dout: where the forward's and backward's inward
 *                   blocks land (the shard -> inner phases)
 *   OUT, LSE, DQ, DKV  the shard state's out, lse, dq and dK|dV (one block per replica of a K/V
 *                   head): where the outward blocks land
 *   flags           uint32, 256 B apart: arrived[phase][from member], raised by the sender in the
 *                   receiver's memory once its blocks of that phase landed
 * Flag values count passes (attn_util.h with one raise per pass: value = the pass's counter,
 * forwards for FWD_IN, FWD_OUT and LSE_OUT, backwards for BWD_IN and BWD_OUT), so graph replays
 * stay in step. No flag says a buffer is free again: a member pushes into a peer's inner tensors
 * in pass t + 1 only after its own pass t ended, which waited for every member's outward blocks,
 * each pushed after that member's inner pass t had read its inner tensors. */
#include <stdio.h>
#include <stdlib.h>

#include "attn_util.h"
#include "cb_limits.h"
#include "error_gpu.h"
#include "peer.h"
#include "ringattn_a2a.h"

enum { B_IQ, B_IKV, B_IDOUT, B_OUT, B_LSE, B_DQ, B_DKV, B_FLAGS, NB };

typedef struct peer_form {
  cb_peer_mem_t pm;
  size_t off[NB];
  uint32_t *counter; /* [0]: forwards, [1]: backwards so far (device memory of this rank) */
} peer_form_t;

static uint32_t *flag(const cb_ra_uly_t *u, int local, int ph, int from) {
  const peer_form_t *f = u->form;
  return (uint32_t *)((char *)f->pm.ptrs[local] + f->off[B_FLAGS] + (size_t)(ph * u->U + from) * CB_RA_FLAG_STRIDE);
}

static char *part(const peer_form_t *f, int b) { return (char *)f->pm.ptrs[f->pm.me] + f->off[b]; }

static int peer_setup(cb_ra_uly_t *u, cb_inst_t *in, float **home, char *why, size_t n) {
  const cb_ra_t *x = &u->x, *i = u->inner;
  const int bwd = CB_ATTN_PASS_HAS_BWD(x->pass);
  peer_form_t *f = calloc(1, sizeof *f);
  if (!f) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  u->form = f;
  const size_t bytes[NB] = {
      [B_IQ] = i->q_elems * i->elem,
      [B_IKV] = i->kv_bytes,
      [B_IDOUT] = bwd ? i->q_elems * i->elem : 0,
      [B_OUT] = x->q_elems * x->elem,
      [B_LSE] = x->lse_elems * sizeof(float),
      [B_DQ] = bwd ? x->q_elems * sizeof(float) : 0,
      [B_DKV] = bwd ? (size_t)u->split.kv_replicas * x->bwd.dkv_bytes : 0,
      [B_FLAGS] = (size_t)CB_RA_UL_NPHASES * (size_t)u->U * CB_RA_FLAG_STRIDE,
  };
  size_t total = 0;
  for (int b = 0; b < NB; b++) {
    f->off[b] = total;
    total += CB_ALIGN_UP(bytes[b], CB_RA_FLAG_STRIDE);
  }
  if (cb_ra_alloc(&u->x, (void **)&f->counter, 2 * sizeof(uint32_t), why, n) ||
      cb_peer_alloc(in->world, total, &f->pm, why, n))
    return -1;
  CB_CUDA(cudaMemset(f->counter, 0, 2 * sizeof(uint32_t)));
  u->x.mem += f->pm.bytes;
  *home = bwd ? (float *)part(f, B_DKV) : NULL;
  return 0;
}

/* Every buffer a block lands in, into the peer allocation (the shard's dK|dV are there already:
 * the pass's home). */
static void peer_share(cb_ra_uly_t *u) {
  const peer_form_t *f = u->form;
  cb_ra_t *x = &u->x, *i = u->inner;
  cb_ra_share(i, &i->q, i->q_elems * i->elem, part(f, B_IQ));
  cb_ra_share(i, &i->kv, i->kv_bytes, part(f, B_IKV));
  cb_ra_share(x, &x->out, x->q_elems * x->elem, part(f, B_OUT));
  cb_ra_share(x, (void **)&x->lse, x->lse_elems * sizeof(float), part(f, B_LSE));
  if (!CB_ATTN_PASS_HAS_BWD(x->pass)) return;
  cb_ra_share(i, &i->bwd.dout, i->q_elems * i->elem, part(f, B_IDOUT));
  cb_ra_share(x, (void **)&x->bwd.dq, x->q_elems * sizeof(float), part(f, B_DQ));
}

static void peer_teardown(cb_ra_uly_t *u) {
  peer_form_t *f = u->form;
  if (!f) return;
  cb_peer_free(&f->pm);
  CB_CUDA(cudaFree(f->counter));
  free(f);
  u->form = NULL;
}

static void peer_begin(cb_ra_uly_t *u, int bwd, cudaStream_t s) {
  cb_ring_iter_advance(((peer_form_t *)u->form)->counter + bwd, s);
}

static void peer_exchange(cb_ra_uly_t *u, const cb_world_t *w, int ph, int sync, cudaStream_t s) {
  const peer_form_t *f = u->form;
  cb_ra_uly_tensor_t t[CB_RA_UL_MAX_TENSORS];
  const int nt = cb_ra_uly_tensors(u, ph, t), U = u->U, me = u->me;
  const uint32_t *counter = f->counter + CB_RA_UL_PHASE_IS_BWD(ph);
  const char *mine = f->pm.ptrs[f->pm.me];
  if (!nt) return;
  for (int k = 0; k < U; k++) { /* this rank's own blocks first, then each peer's in turn */
    const int to = (me + k) % U, local = cb_ra_uly_local_rank(u, to);
    for (int e = 0; e < nt; e++) {
      size_t rep = 0;
      const cb_attn_copy_t c = cb_ra_uly_copy(u, &t[e], me, to, &rep);
      const size_t at = (size_t)(t[e].dst - mine); /* the landing tensor's place in every allocation */
      if (t[e].dst < mine || at >= f->pm.bytes)
        CB_DIE(CB_EXIT_RUNTIME, "ulysses: phase %d tensor %d does not land in peer memory", ph, e);
      cb_attn_copy_run(&c, (char *)f->pm.ptrs[local] + at + rep, t[e].src, cb_ra_uly_copy2d, s);
    }
    if (sync && k) cb_ring_flag_set(flag(u, local, ph, me), counter, 1, 1, s);
  }
  if (!sync) return;
  for (int k = 1; k < U; k++) {
    const int from = (me + U - k) % U;
    cb_ring_flag_wait(flag(u, f->pm.me, ph, from), counter, 1, 1, w->spin_timeout_ns, w->ctl_dev, w->mpi.rank,
                      cb_ra_uly_rank(u, from), ph, s);
  }
}

static const cb_ra_uly_move_t peer_move = {
    .what = "peer all-to-all on the copy engine",
    .peer = 1,
    .setup = peer_setup,
    .share = peer_share,
    .teardown = peer_teardown,
    .begin = peer_begin,
    .exchange = peer_exchange,
};

static int uly_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return cb_ra_uly_supported(w, p, 1, why, n);
}
static int uly_setup(cb_inst_t *in, char *why, size_t n) { return cb_ra_uly_setup(in, &peer_move, why, n); }

const cb_ra_scheme_t cb_ra_scheme_ulysses = CB_RA_ULYSSES_SCHEME(uly_supported, uly_setup);
