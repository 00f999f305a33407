/* ringattn `nccl_ring`: the ring schedule of ringattn_ring.c with NCCL point-to-point instead of
 * peer memory: on a communication stream, step i sends the block held for step i to the next
 * rank and receives the block for step i+1 from the previous one (one ncclGroup), while the
 * compute stream attends step i. Events order the two streams:
 *   compute step i waits for the receive of step i (step_b[i]);
 *   the receive into slot (i+1)%2 waits for compute step i-1, the last reader of that slot
 *   (step_a[i-1]).
 * Two receive slots: the ring holds two K/V blocks beyond its own. Works across nodes (NCCL's
 * network transport), which is what the peer-memory ring cannot do. */
#include <stdio.h>

#include "attn_layout.h"
#include "error_gpu.h"
#include "ringattn_block_kernel.h"
#include "ringattn_nccl_bwd.h"
#include "ringattn_pass.h"
#include "ringattn_scheme.h"

typedef struct nring {
  cb_ra_t x; /* first: the row's shared state (ringattn_scheme.h) */
  void *slot[2];
  struct cb_ra_nccl_bwd *bwd; /* ringattn_nccl_bwd.c; NULL for --pass fwd */
} nring_t;

static void nring_bwd(cb_inst_t *in, cudaStream_t s) { cb_ra_nccl_bwd_run(in, ((nring_t *)in->priv)->bwd, s); }
static void nring_bwd_compute(cb_inst_t *in, cudaStream_t s) {
  cb_ra_nccl_bwd_compute(in, ((nring_t *)in->priv)->bwd, s);
}
static void nring_bwd_comm(cb_inst_t *in, cudaStream_t s) { cb_ra_nccl_bwd_comm(in, ((nring_t *)in->priv)->bwd, s); }

static void nring_teardown(cb_inst_t *in) {
  nring_t *g = in->priv;
  cb_ra_nccl_bwd_free(g->bwd);
  CB_CUDA(cudaFree(g->slot[0]));
  CB_CUDA(cudaFree(g->slot[1]));
}

static int nring_setup(cb_inst_t *in, char *why, size_t n) {
  nring_t *g = in->priv;
  cb_ra_t *x = &g->x;
  if (cb_ra_alloc(x, &g->slot[0], x->kv_bytes, why, n) || cb_ra_alloc(x, &g->slot[1], x->kv_bytes, why, n)) return -1;
  if (CB_ATTN_PASS_HAS_BWD(x->pass) ? cb_ra_nccl_bwd_setup(in, x, g->slot, &g->bwd, why, n)
                                    : cb_ra_setup_pass(x, in, NULL, 0, why, n))
    return -1;
  in->mem_bytes = x->mem;
  snprintf(in->note, sizeof in->note, "%s; ncclSend/ncclRecv on a second stream", cb_attn_layout_name(x->layout));
  return 0;
}

/* Step i's exchange on stream c: send `block` to next, receive slot (i+1)%2 from prev. */
static void exchange(const nring_t *g, const cb_world_t *w, int i, const void *block, cudaStream_t c) {
  const int r = g->x.r;
  CB_NCCL(ncclGroupStart());
  CB_NCCL(ncclSend(block, g->x.kv_bytes, ncclChar, cb_ra_ring_rank(&g->x, r + 1), w->nccl, c));
  CB_NCCL(ncclRecv(g->slot[(i + 1) % 2], g->x.kv_bytes, ncclChar, cb_ra_ring_rank(&g->x, r - 1), w->nccl, c));
  CB_NCCL(ncclGroupEnd());
}

static void nring_fwd(cb_inst_t *in, cudaStream_t s) {
  nring_t *g = in->priv;
  cb_ra_t *x = &g->x;
  const int P = x->P;
  cudaStream_t c = x->comm;
  CB_CUDA(cudaEventRecord(x->fork, s));
  CB_CUDA(cudaStreamWaitEvent(c, x->fork, 0));
  for (int i = 0; i < P; i++) {
    const void *block = i == 0 ? x->kv : g->slot[i % 2];
    if (i + 1 < P) {
      if (i >= 1) CB_CUDA(cudaStreamWaitEvent(c, x->step_a[i - 1], 0));
      exchange(g, in->world, i, block, c);
      CB_CUDA(cudaEventRecord(x->step_b[i + 1], c));
    }
    if (i >= 1) CB_CUDA(cudaStreamWaitEvent(s, x->step_b[i], 0));
    cb_ra_attend(x, block, cb_ra_src_pos(x, (x->r + P - i) % P), i == 0, i == P - 1, s);
    CB_CUDA(cudaEventRecord(x->step_a[i], s));
  }
  CB_CUDA(cudaEventRecord(x->join, c));
  CB_CUDA(cudaStreamWaitEvent(s, x->join, 0));
}

static void nring_compute_only(cb_inst_t *in, cudaStream_t s) {
  nring_t *g = in->priv;
  cb_ra_t *x = &g->x;
  for (int i = 0; i < x->P; i++)
    cb_ra_attend(x, i == 0 ? x->kv : g->slot[i % 2], cb_ra_src_pos(x, (x->r + x->P - i) % x->P), i == 0, i == x->P - 1,
                 s);
}

static void nring_comm_only(cb_inst_t *in, cudaStream_t s) {
  nring_t *g = in->priv;
  for (int i = 0; i + 1 < g->x.P; i++) exchange(g, in->world, i, i == 0 ? g->x.kv : g->slot[i % 2], s);
}

const cb_ra_scheme_t cb_ra_scheme_nccl_ring = {
    .state_size = sizeof(nring_t),
    .setup = nring_setup,
    .teardown = nring_teardown,
    .forward = nring_fwd,
    .backward = nring_bwd,
    .fwd_compute = nring_compute_only,
    .fwd_comm = nring_comm_only,
    .bwd_compute = nring_bwd_compute,
    .bwd_comm = nring_bwd_comm,
};
