/* Custom all-reduce "hier": the multi-node form. NVLink inside a node, the network between
 * nodes, the way production systems split it (K ranks per node, N nodes, S bytes per rank):
 *
 *   1. intra-node reduce-scatter over peer memory (twoshot's first half): local rank l ends
 *      with shard l (S/K bytes) reduced over its node, in rank order;
 *   2. inter-node all-reduce of shard l among the N ranks with local rank l (the "rail",
 *      world.rail, one NCCL communicator per local rank): 2(N-1)/N · S/K bytes per rank on
 *      the network, a K-th of what a flat ring over all K·N ranks would put on each NIC;
 *   3. intra-node all-gather over peer memory (twoshot's second half).
 *
 * Pipelined in chunks (allreduce_plan.h: about 32 MiB each, at most 16): the NVLink kernels
 * run on the caller's stream, NCCL on a second stream, joined by events, so the reduce-scatter
 * of chunk c+1 and the all-gather of chunk c-1 run while chunk c is on the network:
 *
 *   stream s:    RS0 RS1 [wait AR0] AG0 RS2 [wait AR1] AG1 ... [wait AR(m-1)] AG(m-1)
 *   stream net:      [wait RS0] AR0 [wait RS1] AR1 ...
 *
 * The fork/join is made of events only, so the whole call captures into a CUDA graph.
 *
 * Bit-identical results on every rank: step 1 reduces in a fixed rank order (reduce.cuh), so
 * shard l of node j has one value; NCCL's all-reduce of the rail leaves the same bits on every
 * rank of the rail (ring: each element is reduced once, by one rank, and then copied; tree:
 * reduced on the way up, broadcast on the way down); step 3 copies those bits. Every rank thus
 * holds, for each shard l, the bits rail l produced. The check compares digests across ranks.
 *
 * Hazards (what the barriers twoshot drops between its halves must be replaced by):
 * - scratch: chunk c has its own scratch region, so reduce-scatters of different chunks never
 *   share slots; a peer's reduce-scatter of the next call reaches my scratch only after that
 *   peer left the all-gather barrier of this call's last chunk, which I enter only after all
 *   my reduce-scatters finished (same stream).
 * - outputs: a peer pushes into my output chunk c (shard q, not mine) only after the
 *   reduce-scatter barrier of chunk c, i.e. after I pushed that part of my input (in place
 *   works), and never into shard l, which NCCL is updating in place.
 * - flags: the two halves use separate barrier slots (0, 1) and separate epoch arrays.
 * With one rank per node (K = 1) steps 1 and 3 are empty: NCCL on the rail alone (the rail is
 * then the whole world). On one node hier reports "not supported" (twoshot is that case). */
#include <stdio.h>
#include <stdlib.h>

#include "allreduce_peer.h"
#include "allreduce_plan.h"
#include "buffers.h"
#include "cb_limits.h"
#include "error_gpu.h"
#include "nccl_common.h"
#include "signal_pad.h"

typedef struct hier_state {
  cb_peer_mem_t pm;
  uint32_t *epochs;              /* [reduce-scatter half | all-gather half], CB_SIGNAL_MAX_BLOCKS each */
  cb_ar_launch_t *rs, *ag;       /* per chunk */
  size_t *shard_off, *shard_len; /* per chunk: my rail's shard, elements from the output start */
  int chunks, K, N;
  size_t esize;
  cudaStream_t net;
  cudaEvent_t ev_fork, ev_rs, ev_ar;
} hier_state_t;

static int supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return cb_hier_supported(w, "twoshot", why, n) && cb_nccl_supported(w, p, why, n);
}

static void teardown(cb_inst_t *in) {
  hier_state_t *st = in->priv;
  if (!st) return;
  if (st->net) CB_CUDA(cudaStreamDestroy(st->net));
  if (st->ev_fork) CB_CUDA(cudaEventDestroy(st->ev_fork));
  if (st->ev_rs) CB_CUDA(cudaEventDestroy(st->ev_rs));
  if (st->ev_ar) CB_CUDA(cudaEventDestroy(st->ev_ar));
  cb_peer_free_epochs(&st->pm, &st->epochs);
  free(st->rs);
  free(st->ag);
  free(st->shard_off);
  free(st->shard_len);
  free(st);
  in->priv = NULL;
}

static int setup(cb_inst_t *in, char *why, size_t n) {
  const cb_world_t *w = in->world;
  const cb_mpi_world_t *m = &w->mpi;
  cb_buffer_plan_t plan;
  if (cb_plan_buffers(&in->p, m->nranks, m->rank, &plan, why, n)) return -1;
  size_t esize = cb_dtype_size(in->p.dtype), C = 0;
  int chunks = 0;
  cb_ar_hier_plan(in->p.count, esize, w->knobs.ar_hier_chunks, &C, &chunks);
  size_t scratch_chunk = CB_ALIGN_UP(cb_ar_twoshot_scratch(C, in->p.dtype, m->local_nranks), 256);
  size_t scratch_off = CB_ALIGN_UP(plan.total_bytes, 256);
  size_t pad_off = scratch_off + (m->local_nranks > 1 ? scratch_chunk * (size_t)chunks : 0);
  size_t total = pad_off + CB_SIGNAL_PAD_BYTES;

  hier_state_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  in->priv = st;
  st->K = m->local_nranks;
  st->N = m->nnodes;
  st->esize = esize;
  st->chunks = chunks;
  if (cb_peer_alloc_epochs(w, total, 2 * CB_SIGNAL_MAX_BLOCKS, &st->pm, &st->epochs, why, n)) {
    in->priv = NULL;
    free(st);
    return -1;
  }
  CB_CUDA(cudaStreamCreateWithFlags(&st->net, cudaStreamNonBlocking));
  CB_CUDA(cudaEventCreateWithFlags(&st->ev_fork, cudaEventDisableTiming));
  CB_CUDA(cudaEventCreateWithFlags(&st->ev_rs, cudaEventDisableTiming));
  CB_CUDA(cudaEventCreateWithFlags(&st->ev_ar, cudaEventDisableTiming));
  cb_inst_set_buffers(in, st->pm.ptrs[st->pm.me], &plan);

  size_t nc = chunks > 0 ? (size_t)chunks : 1;
  st->rs = calloc(nc, sizeof *st->rs);
  st->ag = calloc(nc, sizeof *st->ag);
  st->shard_off = calloc(nc, sizeof *st->shard_off);
  st->shard_len = calloc(nc, sizeof *st->shard_len);
  if (!st->rs || !st->ag || !st->shard_off || !st->shard_len) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  cb_grid_limits_t g = cb_peer_grid_limits(w, 256);
  int blocks = 0;
  for (int c = 0; c < chunks; c++) {
    size_t start = (size_t)c * C, cnt = in->p.count - start < C ? in->p.count - start : C;
    cb_ar_launch_t *L = &st->rs[c];
    for (int q = 0; q < st->pm.n; q++) L->base[q] = st->pm.ptrs[q];
    L->in = (const char *)in->send + start * esize;
    L->out = (char *)in->recv + start * esize;
    L->in_off = plan.send_off + start * esize;
    L->out_off = plan.recv_off + start * esize;
    L->scratch_off = scratch_off + (size_t)c * scratch_chunk;
    L->pad_off = pad_off;
    L->epoch = st->epochs;
    L->count = cnt;
    L->rank = m->local_rank;
    L->nranks = m->local_nranks;
    L->dtype = in->p.dtype;
    L->op = in->p.op;
    L->timeout_ns = w->spin_timeout_ns;
    L->ctl = w->ctl_dev;
    cb_ar_twoshot_grid(cnt, in->p.dtype, m->local_nranks, &g, &L->blocks, &L->threads);
    if (L->blocks > blocks) blocks = L->blocks;
    st->ag[c] = *L;
    st->ag[c].epoch = st->epochs + CB_SIGNAL_MAX_BLOCKS;
    /* my shard of the chunk: twoshot's shard rule (whole 16-byte vectors, the last one short) */
    size_t Ls = cb_ar_shard_elems(cnt, esize, m->local_nranks), s0 = (size_t)m->local_rank * Ls;
    st->shard_off[c] = start + (s0 < cnt ? s0 : cnt);
    st->shard_len[c] = s0 < cnt ? (cnt - s0 < Ls ? cnt - s0 : Ls) : 0;
  }
  in->mem_bytes = total + 2 * CB_SIGNAL_MAX_BLOCKS * sizeof(uint32_t);
  double net = 2.0 * (st->N - 1) / st->N * (double)in->p.count * (double)esize / st->K;
  in->sms = cb_grid_sms(blocks, w->sm_count);
  snprintf(in->note, sizeof in->note, "%d x %d ranks, %d chunk%s, %d blocks, network %.3g MB per rank", st->N, st->K,
           chunks, chunks == 1 ? "" : "s", blocks, net / 1e6);
  return 0;
}

static void rail_allreduce(const cb_inst_t *in, void *buf_in, void *buf_out, size_t count, cudaStream_t s) {
  CB_NCCL(ncclAllReduce(buf_in, buf_out, count, cb_nccl_dtype(in->p.dtype), cb_nccl_op(in->p.op), in->world->rail, s));
}

static void run(cb_inst_t *in, int phase, cudaStream_t s) {
  hier_state_t *st = in->priv;
  if (st->chunks == 0) return;
  if (st->K == 1) { /* one rank per node: the rail is the world */
    rail_allreduce(in, in->send, in->recv, in->p.count, s);
    return;
  }
  CB_CUDA(cudaEventRecord(st->ev_fork, s));
  CB_CUDA(cudaStreamWaitEvent(st->net, st->ev_fork, 0));
  for (int c = 0; c < st->chunks; c++) {
    cb_ar_twoshot_rs_launch(&st->rs[c], s);
    CB_CUDA(cudaEventRecord(st->ev_rs, s));
    CB_CUDA(cudaStreamWaitEvent(st->net, st->ev_rs, 0));
    if (c > 0) { /* ev_ar still marks chunk c-1's network phase */
      CB_CUDA(cudaStreamWaitEvent(s, st->ev_ar, 0));
      cb_ar_twoshot_ag_launch(&st->ag[c - 1], s);
    }
    if (st->shard_len[c]) {
      char *p = (char *)in->recv + st->shard_off[c] * st->esize;
      rail_allreduce(in, p, p, st->shard_len[c], st->net);
    }
    CB_CUDA(cudaEventRecord(st->ev_ar, st->net));
  }
  CB_CUDA(cudaStreamWaitEvent(s, st->ev_ar, 0));
  cb_ar_twoshot_ag_launch(&st->ag[st->chunks - 1], s);
}

static void describe(const cb_world_t *w, char *buf, size_t n) {
  snprintf(buf, n,
           "%d nodes x %d ranks: NVLink reduce-scatter, NCCL all-reduce per rail, NVLink all-gather; "
           "chunks of %llu MiB (at most %d)",
           w->mpi.nnodes, w->mpi.max_local_nranks, (unsigned long long)(CB_AR_HIER_CHUNK_BYTES >> 20),
           CB_AR_HIER_MAX_CHUNKS);
}

const cb_algo_t cb_algo_allreduce_hier = {
    .name = "hier",
    .family = CB_ALLREDUCE,
    .summary =
        "multi-node: NVLink reduce-scatter, NCCL all-reduce among same-local-rank peers, NVLink all-gather, pipelined",
    .dtypes = CB_ALL_DTYPES,
    .ops = CB_ALL_OPS,
    .nphases = 1,
    .graph_ok = 1,
    .supported = supported,
    .setup = setup,
    .run = run,
    .teardown = teardown,
    .describe = describe,
};
