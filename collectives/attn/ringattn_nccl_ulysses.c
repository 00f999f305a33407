/* ringattn `nccl_ulysses`: Ulysses (and, with --ulysses U < P, the hybrid: TransformerEngine's
 * a2a+p2p) over NCCL: the pipeline of ringattn_a2a.h with each phase's all-to-all inside the
 * group as grouped ncclSend/ncclRecv (what ncclAlltoAll does, on a group of the world's ranks
 * without a communicator of its own): every block for a member packed into one contiguous chunk
 * by copy-engine 2D copies (attn_a2a.h), one send and one receive per peer, the chunks unpacked
 * into place; the ring across the groups over NCCL (`nccl_ring`). Works across nodes.
 *
 * Memory beyond the states: a send and a receive staging area, U chunks each (a chunk: the
 * largest phase's blocks for one member), and the shard's dK|dV landing blocks, one per replica
 * of a K/V head. */
#include <stdio.h>
#include <stdlib.h>

#include "error_gpu.h"
#include "ringattn_a2a.h"

typedef struct nccl_form {
  char *send, *recv; /* [U][chunk] */
  size_t chunk;
  float *home; /* the shard's dK|dV, kv_replicas blocks */
} nccl_form_t;

static int nccl_setup(cb_ra_uly_t *u, cb_inst_t *in, float **home, char *why, size_t n) {
  (void)in;
  cb_ra_t *x = &u->x;
  nccl_form_t *f = calloc(1, sizeof *f);
  if (!f) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  u->form = f;
  for (int ph = 0; ph < CB_RA_UL_NPHASES; ph++) {
    const size_t b = cb_ra_uly_phase_bytes(u, ph);
    f->chunk = b > f->chunk ? b : f->chunk;
  }
  const size_t stage = f->chunk * (size_t)u->U;
  if (cb_ra_alloc(x, (void **)&f->send, stage, why, n) || cb_ra_alloc(x, (void **)&f->recv, stage, why, n) ||
      (CB_ATTN_PASS_HAS_BWD(x->pass) &&
       cb_ra_alloc(x, (void **)&f->home, (size_t)u->split.kv_replicas * x->bwd.dkv_bytes, why, n)))
    return -1;
  *home = f->home;
  return 0;
}

static void nccl_teardown(cb_ra_uly_t *u) {
  nccl_form_t *f = u->form;
  if (!f) return;
  CB_CUDA(cudaFree(f->send));
  CB_CUDA(cudaFree(f->recv));
  CB_CUDA(cudaFree(f->home));
  free(f);
  u->form = NULL;
}

/* (sync has no meaning here: a receive completes in stream order) */
static void nccl_exchange(cb_ra_uly_t *u, const cb_world_t *w, int ph, int sync, cudaStream_t s) {
  (void)sync;
  const nccl_form_t *f = u->form;
  cb_ra_uly_tensor_t t[CB_RA_UL_MAX_TENSORS];
  const int nt = cb_ra_uly_tensors(u, ph, t), U = u->U, me = u->me;
  const size_t bytes = cb_ra_uly_phase_bytes(u, ph);
  size_t rep = 0;
  if (!nt) return;
  for (int e = 0; e < nt; e++) { /* this rank's own blocks: in place */
    const cb_attn_copy_t c = cb_ra_uly_copy(u, &t[e], me, me, &rep);
    cb_attn_copy_run(&c, t[e].dst + rep, t[e].src, cb_ra_uly_copy2d, s);
  }
  if (U == 1) return;
  for (int k = 1; k < U; k++) { /* pack: member to's blocks into its chunk */
    const int to = (me + k) % U;
    size_t at = (size_t)to * f->chunk;
    for (int e = 0; e < nt; e++) {
      const cb_attn_copy_t c = cb_attn_copy_packed(cb_ra_uly_copy(u, &t[e], me, to, &rep), 1);
      cb_attn_copy_run(&c, f->send + at, t[e].src, cb_ra_uly_copy2d, s);
      at += cb_attn_copy_bytes(&c);
    }
  }
  CB_NCCL(ncclGroupStart());
  for (int k = 1; k < U; k++) {
    const int to = (me + k) % U, from = (me + U - k) % U;
    CB_NCCL(ncclSend(f->send + (size_t)to * f->chunk, bytes, ncclChar, cb_ra_uly_rank(u, to), w->nccl, s));
    CB_NCCL(ncclRecv(f->recv + (size_t)from * f->chunk, bytes, ncclChar, cb_ra_uly_rank(u, from), w->nccl, s));
  }
  CB_NCCL(ncclGroupEnd());
  for (int k = 1; k < U; k++) { /* unpack: from's chunk into place */
    const int from = (me + U - k) % U;
    size_t at = (size_t)from * f->chunk;
    for (int e = 0; e < nt; e++) {
      const cb_attn_copy_t c = cb_attn_copy_packed(cb_ra_uly_copy(u, &t[e], from, me, &rep), 0);
      cb_attn_copy_run(&c, t[e].dst + rep, f->recv + at, cb_ra_uly_copy2d, s);
      at += cb_attn_copy_bytes(&c);
    }
  }
}

static const cb_ra_uly_move_t nccl_move = {
    .what = "grouped ncclSend/ncclRecv",
    .setup = nccl_setup,
    .teardown = nccl_teardown,
    .exchange = nccl_exchange,
};

static int nuly_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return cb_ra_uly_supported(w, p, 0, why, n);
}
static int nuly_setup(cb_inst_t *in, char *why, size_t n) { return cb_ra_uly_setup(in, &nccl_move, why, n); }

const cb_ra_scheme_t cb_ra_scheme_nccl_ulysses = CB_RA_ULYSSES_SCHEME(nuly_supported, nuly_setup);
