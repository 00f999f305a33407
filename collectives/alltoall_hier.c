/* Custom all-to-all "hier": the multi-node form (N nodes of K ranks, B bytes per block, world
 * rank g = node * K + local rank).
 *
 *   1. NVLink (kernels/alltoall.cu, the push kernel with nnodes > 1): blocks for my own node go
 *      straight into the peers' receive buffers; the block for (node j, local rank q) goes into
 *      local rank q's rail staging, slot j * K + my local rank. Afterwards local rank q holds,
 *      for each other node j, the K blocks its node sends to (j, q), contiguous.
 *   2. Network (NCCL grouped send/recv on the rail, world.rail): local rank q sends those K·B
 *      bytes to (j, q), the same local rank of node j, and receives K·B bytes from (j, q) straight
 *      into its receive buffer at blocks j·K .. j·K + K-1, which is where they belong: the
 *      sender already sorted them by destination, so nothing is scattered on arrival.
 *
 * Each node pair exchanges one aggregated message per rail instead of K² small ones, and every
 * message stays on its rail (same-local-rank GPUs share a NIC position on rail-optimized
 * clusters; NCCL's PXN does the same trick inside NCCL). Network bytes per rank: (N-1)·K·B,
 * the same as any all-to-all; NVLink bytes per rank: (K-1)/K of the buffer, once.
 *
 * Hazards: the push kernel's start barrier (a peer writes my staging or receive buffer only
 * after my previous call, NCCL sends included, finished on my stream) and end barrier (my
 * staging is complete before NCCL sends it). With K = 1 the staging is the send buffer itself
 * (slot j = block j) and the kernel is replaced by one local copy of my own block. */
#include <stdio.h>
#include <stdlib.h>

#include "alltoall.h"
#include "buffers.h"
#include "cb_limits.h"
#include "error_gpu.h"
#include "peer.h"
#include "signal_pad.h"

typedef struct a2a_hier_state {
  cb_peer_mem_t pm;
  uint32_t *epoch;
  cb_a2a_launch_t launch;
  char *stage; /* local view of the rail staging (the send buffer when K = 1) */
  size_t B;
  int K, N, node;
} a2a_hier_state_t;

static int supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return cb_hier_supported(w, "peer", why, n);
}

static void teardown(cb_inst_t *in) {
  a2a_hier_state_t *st = in->priv;
  if (!st) return;
  cb_peer_free_epochs(&st->pm, &st->epoch);
  free(st);
  in->priv = NULL;
}

static int setup(cb_inst_t *in, char *why, size_t n) {
  const cb_world_t *w = in->world;
  const cb_mpi_world_t *m = &w->mpi;
  cb_buffer_plan_t plan;
  if (cb_plan_buffers(&in->p, m->nranks, m->rank, &plan, why, n)) return -1;
  size_t B = in->p.count * cb_dtype_size(in->p.dtype);
  int K = m->local_nranks;
  /* rail staging: one slot per world rank (slots of my own node stay unused) */
  size_t stage_off = CB_ALIGN_UP(plan.total_bytes, 256);
  size_t pad_off = stage_off + (K > 1 ? CB_ALIGN_UP((size_t)m->nranks * B, 256) : 0);
  size_t total = pad_off + CB_SIGNAL_PAD_BYTES;
  a2a_hier_state_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  if (cb_peer_alloc_epochs(w, total, CB_SIGNAL_MAX_BLOCKS, &st->pm, &st->epoch, why, n)) {
    free(st);
    return -1;
  }
  in->priv = st;
  cb_inst_set_buffers(in, st->pm.ptrs[st->pm.me], &plan);
  st->B = B;
  st->K = K;
  st->N = m->nnodes;
  st->node = m->node;
  st->stage = K > 1 ? (char *)st->pm.ptrs[st->pm.me] + stage_off : (char *)in->send;
  cb_a2a_launch_t *L = &st->launch;
  for (int q = 0; q < st->pm.n; q++) L->base[q] = st->pm.ptrs[q];
  L->send = in->send;
  L->recv_off = plan.recv_off;
  L->stage_off = stage_off;
  L->pad_off = pad_off;
  L->epoch = st->epoch;
  L->block_bytes = B;
  L->rank = m->local_rank;
  L->nranks = K;
  L->node = m->node;
  L->nnodes = m->nnodes;
  L->ll = 0;
  L->timeout_ns = w->spin_timeout_ns;
  L->ctl = w->ctl_dev;
  cb_grid_limits_t g = cb_peer_grid_limits(w, 256);
  cb_a2a_grid(B, m->nranks, 0, &g, &L->blocks, &L->threads);
  in->mem_bytes = total + CB_SIGNAL_MAX_BLOCKS * sizeof(uint32_t);
  in->sms = cb_grid_sms(L->blocks, w->sm_count);
  snprintf(in->note, sizeof in->note, "%d x %d ranks, %d blocks, network %.3g MB per rank", st->N, K, L->blocks,
           (double)(st->N - 1) * K * (double)B / 1e6);
  return 0;
}

static void run(cb_inst_t *in, int phase, cudaStream_t s) {
  a2a_hier_state_t *st = in->priv;
  if (st->B == 0) return;
  size_t KB = (size_t)st->K * st->B;
  if (st->K > 1) cb_a2a_launch(&st->launch, s);
  else
    CB_CUDA(cudaMemcpyAsync((char *)in->recv + (size_t)st->node * st->B,
                            (const char *)in->send + (size_t)st->node * st->B, st->B, cudaMemcpyDeviceToDevice, s));
  CB_NCCL(ncclGroupStart());
  for (int j = 0; j < st->N; j++) {
    if (j == st->node) continue;
    CB_NCCL(ncclSend(st->stage + (size_t)j * KB, KB, ncclUint8, j, in->world->rail, s));
    CB_NCCL(ncclRecv((char *)in->recv + (size_t)j * KB, KB, ncclUint8, j, in->world->rail, s));
  }
  CB_NCCL(ncclGroupEnd());
}

const cb_algo_t cb_algo_alltoall_hier = {
    .name = "hier",
    .family = CB_ALLTOALL,
    .summary = "multi-node: NVLink pushes sort blocks by rail, one NCCL send/recv per node pair and rail",
    .dtypes = CB_ALL_DTYPES,
    .ops = CB_ALL_OPS,
    .nphases = 1,
    .graph_ok = 1,
    .supported = supported,
    .setup = setup,
    .run = run,
    .teardown = teardown,
};
