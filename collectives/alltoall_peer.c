/* Custom all-to-all "peer": pushes each block into its peer's receive buffer over peer memory
 * (kernels/alltoall.cu): LL protocol up to CB_A2A_LL_MAX_BYTES per rank, direct pushes between
 * two barriers above. One node of up to CB_MAX_RANKS (8) GPUs with peer access. */
#include <stdio.h>
#include <stdlib.h>

#include "allreduce_peer.h"
#include "alltoall.h"
#include "buffers.h"
#include "cb_limits.h"
#include "error_gpu.h"
#include "peer.h"
#include "signal.h"

/* Per-rank message size up to which LL beats two barriers (2 x H200 sweep, results/). */
#define CB_A2A_LL_MAX_BYTES (256ull << 10)

typedef struct a2a_state {
  cb_peer_mem_t pm;
  uint32_t *epoch;
  cb_a2a_launch_t launch;
} a2a_state_t;

static int setup(cb_inst_t *in, char *why, size_t n) {
  const cb_world_t *w = in->world;
  cb_buffer_plan_t plan;
  cb_plan_buffers(&in->p, w->mpi.nranks, w->mpi.rank, &plan);
  size_t B = in->p.count * cb_dtype_size(in->p.dtype);
  int ll = in->p.bytes <= CB_A2A_LL_MAX_BYTES;
  size_t ll_off = CB_ALIGN_UP(plan.total_bytes, 256);
  size_t pad_off = ll_off + CB_ALIGN_UP(ll ? cb_a2a_ll_scratch(B, w->mpi.nranks) : 0, 256);
  size_t total = pad_off + CB_SIGNAL_PAD_BYTES;
  a2a_state_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  if (cb_peer_alloc(w, total, &st->pm, why, n)) {
    free(st);
    return -1;
  }
  CB_CUDA(cudaMalloc((void **)&st->epoch, CB_SIGNAL_MAX_BLOCKS * sizeof(uint32_t)));
  CB_CUDA(cudaMemset(st->epoch, 0, CB_SIGNAL_MAX_BLOCKS * sizeof(uint32_t)));
  cb_a2a_launch_t *L = &st->launch;
  for (int q = 0; q < st->pm.n; q++) L->base[q] = st->pm.ptrs[q];
  cb_inst_set_buffers(in, st->pm.ptrs[st->pm.me], &plan);
  L->send = in->send;
  L->recv_off = plan.recv_off;
  L->ll_off = ll_off;
  L->pad_off = pad_off;
  L->epoch = st->epoch;
  L->block_bytes = B;
  L->rank = w->mpi.rank;
  L->nranks = w->mpi.nranks;
  L->ll = ll;
  L->timeout_ns = w->spin_timeout_ns;
  cb_grid_limits_t g = cb_peer_grid_limits(w, 256);
  cb_a2a_grid(B, w->mpi.nranks, ll, &g, &L->blocks, &L->threads);
  in->priv = st;
  in->mem_bytes = total + CB_SIGNAL_MAX_BLOCKS * sizeof(uint32_t);
  snprintf(in->note, sizeof in->note, "%s, %d blocks", ll ? "LL" : "push", L->blocks);
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
  CB_CUDA(cudaFree(st->epoch));
  cb_peer_free(&st->pm);
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
