/* Custom all-to-all "peer": pushes each block into its peer's receive buffer over peer memory
 * (kernels/alltoall.cu): LL protocol up to CB_A2A_LL_MAX_BYTES per rank, direct pushes between
 * two barriers above. One node of up to CB_MAX_RANKS (8) GPUs with peer access. */
#include <stdio.h>
#include <stdlib.h>

#include "alltoall.h"
#include "error_gpu.h"
#include "peer_kernel.h"

/* Per-rank message size up to which LL beats two barriers (2 x H200 sweep, docs/decisions/alltoall.md). */
#define CB_A2A_LL_MAX_BYTES (256ull << 10)

typedef struct a2a_state {
  cb_peer_kernel_mem_t mem;
  cb_a2a_launch_t launch;
} a2a_state_t;

static int setup(cb_inst_t *in, char *why, size_t n) {
  const cb_world_t *w = in->world;
  size_t B = in->p.count * cb_dtype_size(in->p.dtype);
  int ll = in->p.bytes <= CB_A2A_LL_MAX_BYTES;
  a2a_state_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  cb_peer_kernel_mem_t *k = &st->mem;
  if (cb_peer_kernel_setup(in, ll ? cb_a2a_ll_scratch(B, w->mpi.nranks) : 0, k, why, n)) {
    free(st);
    return -1;
  }
  cb_a2a_launch_t *L = &st->launch;
  for (int q = 0; q < k->pm.n; q++) L->base[q] = k->pm.ptrs[q];
  L->send = in->send;
  L->recv_off = k->plan.recv_off;
  L->ll_off = k->staging_off;
  L->pad_off = k->pad_off;
  L->epoch = k->epoch;
  L->block_bytes = B;
  L->rank = w->mpi.rank;
  L->nranks = w->mpi.nranks;
  L->ll = ll;
  L->nnodes = 1;
  L->timeout_ns = w->spin_timeout_ns;
  L->ctl = w->ctl_dev;
  cb_grid_limits_t g = cb_peer_grid_limits(w, 256);
  cb_a2a_grid(B, w->mpi.nranks, ll, &g, &L->blocks, &L->threads);
  in->priv = st;
  snprintf(in->note, sizeof in->note, "%s, %d blocks", ll ? "LL" : "push", L->blocks);
  in->sms = cb_grid_sms(L->blocks, w->sm_count);
  return 0;
}

static void run(cb_inst_t *in, int phase, cudaStream_t s) {
  a2a_state_t *st = in->priv;
  if (st->launch.block_bytes == 0) return;
  cb_a2a_launch(&st->launch, s);
}

static void teardown(cb_inst_t *in) {
  a2a_state_t *st = in->priv;
  if (!st) return;
  cb_peer_kernel_teardown(&st->mem);
  free(st);
  in->priv = NULL;
}

const cb_algo_t cb_algo_alltoall_peer = {
    .name = "peer",
    .family = CB_ALLTOALL,
    .summary = "pushes into peers' receive buffers: LL protocol for small sizes, two barriers for large",
    .dtypes = CB_ALL_DTYPES,
    .ops = CB_ALL_OPS,
    .nphases = 1,
    .graph_ok = 1,
    .supported = cb_peer_supported_params,
    .setup = setup,
    .run = run,
    .teardown = teardown,
};
