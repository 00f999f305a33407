/* MoE "hier": the multi-node dispatch/combine (issue 13), DeepEP's internode idea on NCCL rails.
 * N nodes of K ranks; me = (node, local rank l).
 *
 *   layout    the flat per-rank layout (cb_moe_layout), then per other node j the tokens that
 *             go to at least one of its ranks (node lists); every rank's counts (per rank, per
 *             node) are allgathered over NCCL and copied to the host, which waits for them: the
 *             rail transfers need their sizes on the host (as the `nccl` path; graph_ok = 0).
 *   dispatch  a token for node j crosses the network once, as one node row (the row plus its
 *             routing and its place in the source's list for each rank of node j), to my rail
 *             peer there (local rank l of node j, world.rail). Rows for the ranks of my own node
 *             go straight into their receive regions over peer memory. The rail peer forwards
 *             each node row over NVLink to the ranks of its node that host the token's experts.
 *             Rows land where the flat path puts them (packed by source in token order), so
 *             recv_count, the rows, their metadata and the per-expert lists are exactly the
 *             `nccl` path's and the shared check (cb_moe_check) applies unchanged.
 *   combine   every rank weights its rows (identity experts, cb_moe_combine_push) into its
 *             combine region; the rail peer sums, per node row it received, the combine rows of
 *             its node's ranks and sends one partial per (token, node) back over the rail; the
 *             source adds its own node's combine rows (peer reads) and the partials.
 *
 * Network rows per rank: one per (token, other node it reaches) each way, instead of one per
 * (token, rank it reaches) on other nodes: with DeepSeek-V3's top-8 of 256 experts on 2 × 2
 * ranks a token reaches almost every rank, so the network carries ~1.8 times fewer rows.
 * Buffers and kernels: kernels/moe_hier.h; bytes: moe_hier_plan.h (the note gives both
 * paths' network bytes per rank). Not rank-order deterministic (partials are summed per node
 * first); the check's bf16 tolerance covers the extra rounding of each node partial. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_limits.h"
#include "error_gpu.h"
#include "moe_common.h"
#include "moe_hier.h"
#include "moe_hier_plan.h"
#include "signal_pad.h"

typedef struct moe_hier {
  cb_peer_mem_t pm;
  cb_moe_hier_dev_t h;
  cb_moe_hier_map_t map;
  int32_t *table;       /* pinned [n][cw]: the allgathered counts, on the host after layout */
  int *exp_node_counts; /* [n][N] host reference */
  cb_moe_hier_bytes_t bytes;
  size_t stage_bytes, comb_stage_bytes; /* each of net_send/net_recv, comb_send/comb_recv */
} moe_hier_t;

static int supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  if (!cb_moe_supported(w, p, why, n) || !cb_hier_supported(w, "peer", why, n)) return 0;
  /* its first kernel is the flat layout, one block per rank */
  if (w->grid_sms < w->mpi.nranks) {
    snprintf(why, n, "skipped: moe hier's layout kernel runs one block per rank (%d); the SM cap is %d", w->mpi.nranks,
             w->grid_sms);
    return 0;
  }
  return 1;
}

static void teardown(cb_inst_t *in) {
  cb_moe_state_t *st = in->priv;
  if (!st) return;
  moe_hier_t *x = st->ext;
  if (x) {
    cb_moe_hier_dev_t *h = &x->h;
    void *bufs[] = {(void *)h->counts, h->my_counts, h->node_idx,  h->node_pos,     h->net_send,
                    h->net_recv,       h->comb_send, h->comb_recv, h->barrier_epoch};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
      if (bufs[i]) CB_CUDA(cudaFree(bufs[i]));
    if (x->table) CB_CUDA(cudaFreeHost(x->table));
    cb_peer_free(&x->pm);
    free(x->exp_node_counts);
    free(x);
    st->ext = NULL;
  }
  cb_moe_teardown(in);
}

/* The world's rank map, gathered from every rank (collective over the world). */
static int gather_map(const cb_world_t *w, cb_moe_hier_map_t *m, char *why, size_t n) {
  const cb_mpi_world_t *mw = &w->mpi;
  int mine[2] = {mw->node, mw->local_rank}, all[2 * CB_MAX_RANKS];
  MPI_Request req;
  CB_MPI(MPI_Iallgather(mine, 2, MPI_INT, all, 2, MPI_INT, mw->comm, &req));
  cb_mpi_wait(&req);
  memset(m, 0, sizeof *m);
  m->n = mw->nranks;
  m->nnodes = mw->nnodes;
  m->K = mw->local_nranks;
  for (int g = 0; g < m->n; g++) {
    m->node_of[g] = all[2 * g];
    m->local_of[g] = all[2 * g + 1];
  }
  char e[200];
  if (cb_moe_hier_map_finish(m, e, sizeof e)) {
    snprintf(why, n, "rank map: %s", e);
    return -1;
  }
  return 0;
}

static int alloc_local(cb_moe_state_t *st, moe_hier_t *x, char *why, size_t n) {
  cb_moe_hier_dev_t *h = &x->h;
  int N = x->map.nnodes, T = st->ntokens > 0 ? st->ntokens : 1;
  size_t cw = (size_t)h->cw;
  x->stage_bytes = (size_t)N * st->cap * h->nrow_bytes;
  x->comb_stage_bytes = (size_t)N * st->cap * st->comb_row_bytes;
  if (!(h->counts = cb_moe_alloc(st, (size_t)st->n * cw * 4, why, n)) ||
      !(h->my_counts = cb_moe_alloc(st, cw * 4, why, n)) ||
      !(h->node_idx = cb_moe_alloc(st, (size_t)N * st->cap * 4, why, n)) ||
      !(h->node_pos = cb_moe_alloc(st, (size_t)T * N * 4, why, n)) ||
      !(h->net_send = cb_moe_alloc(st, x->stage_bytes, why, n)) ||
      !(h->net_recv = cb_moe_alloc(st, x->stage_bytes, why, n)) ||
      !(h->comb_send = cb_moe_alloc(st, x->comb_stage_bytes, why, n)) ||
      !(h->comb_recv = cb_moe_alloc(st, x->comb_stage_bytes, why, n)) ||
      !(h->barrier_epoch = cb_moe_alloc(st, 2 * sizeof(uint32_t), why, n)))
    return -1;
  CB_CUDA(cudaMemset(h->barrier_epoch, 0, 2 * sizeof(uint32_t)));
  CB_CUDA(cudaMallocHost((void **)&x->table, (size_t)st->n * cw * sizeof(int32_t)));
  return 0;
}

static int setup(cb_inst_t *in, char *why, size_t n) {
  const cb_world_t *w = in->world;
  cb_moe_state_t *st = cb_moe_state_new(in, 0);
  moe_hier_t *x = calloc(1, sizeof *x);
  if (!x) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  st->ext = x;
  cb_moe_hier_dev_t *h = &x->h;
  /* every rank reaches the two collectives (map, peer allocation), even after a local failure */
  int rc = gather_map(w, &x->map, why, n);
  int N = x->map.nnodes, K = x->map.K;
  h->node = w->mpi.node;
  h->nnodes = N;
  h->local = w->mpi.local_rank;
  h->K = K;
  h->cw = st->n + N;
  h->nrow_bytes = st->row_bytes + CB_ALIGN_UP(4 * (2 + 2 * (size_t)st->topk + (size_t)K), 16);
  memcpy(h->node_of, x->map.node_of, sizeof h->node_of);
  memcpy(h->rank_at, x->map.rank_at, sizeof h->rank_at);
  if (!rc) rc = cb_moe_alloc_common(in, st, why, n);
  if (!rc) rc = alloc_local(st, x, why, n);
  size_t rows = (size_t)st->n * st->cap;
  size_t meta_off = CB_ALIGN_UP(rows * st->row_bytes, 256);
  size_t comb_off = meta_off + CB_ALIGN_UP(rows * st->meta_bytes, 256);
  size_t pad_off = comb_off + CB_ALIGN_UP(rows * st->comb_row_bytes, 256);
  size_t total = pad_off + CB_SIGNAL_PAD_BYTES;
  char why2[256] = "";
  int prc = cb_peer_alloc(w, total, &x->pm, why2, sizeof why2);
  if (rc || prc) {
    if (!rc) snprintf(why, n, "%s", why2);
    teardown(in);
    return -1;
  }
  cb_moe_dev_init(in, st);
  for (int q = 0; q < K; q++) {
    char *b = x->pm.ptrs[q];
    h->recv_rows[q] = b;
    h->recv_meta[q] = b + meta_off;
    h->comb[q] = b + comb_off;
    h->pads[q] = b + pad_off;
  }
  cb_moe_dev_t *d = &st->dev;
  d->recv_rows = h->recv_rows[h->local];
  d->recv_meta = h->recv_meta[h->local];
  d->comb_src = h->comb[h->local]; /* what the check poisons; the final sum reads it in place */
  x->exp_node_counts = malloc(sizeof(int) * (size_t)st->n * N);
  if (!x->exp_node_counts) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  double payload = st->fp8 ? st->hidden + 4.0 * (st->hidden / 128) : 2.0 * st->hidden;
  cb_moe_hier_plan(st->all, cb_moe_cfg(&in->p)->experts, &x->map, payload, 2.0 * st->hidden, x->exp_node_counts,
                   &x->bytes);
  const cb_moe_hier_bytes_t *b = &x->bytes;
  size_t used = strlen(in->note);
  snprintf(in->note + used, sizeof in->note - used,
           "; %d x %d ranks; per rank network %.3g MB (flat %.3g), NVLink %.3g MB (flat %.3g)", N, K,
           (b->net_disp + b->net_comb) / 1e6, (b->flat_net_disp + b->flat_net_comb) / 1e6,
           (b->nvlink_disp + b->nvlink_comb) / 1e6, (b->flat_nvlink_disp + b->flat_nvlink_comb) / 1e6);
  /* the largest grid: push_blocks (pack, forward, sums); the layouts' nranks and nnodes blocks
   * are no more (supported() checks the cap) */
  in->sms = cb_grid_sms(d->push_blocks > st->n ? d->push_blocks : st->n, in->world->sm_count);
  in->mem_bytes = st->dev_bytes + total;
  return 0;
}

/* Node rows to and from every other node over my rail: send_rows[j] rows of `row` bytes from
 * sbuf region j, recv_rows[j] into rbuf region j (regions of cap rows). */
static void rail_exchange(const cb_inst_t *in, const moe_hier_t *x, const char *sbuf, const int *send_rows, char *rbuf,
                          const int *recv_rows, size_t row, cudaStream_t s) {
  const cb_moe_state_t *st = in->priv;
  size_t region = (size_t)st->cap * row;
  CB_NCCL(ncclGroupStart());
  for (int j = 0; j < x->h.nnodes; j++) {
    if (j == x->h.node) continue;
    CB_NCCL(ncclSend(sbuf + j * region, (size_t)send_rows[j] * row, ncclUint8, j, in->world->rail, s));
    CB_NCCL(ncclRecv(rbuf + j * region, (size_t)recv_rows[j] * row, ncclUint8, j, in->world->rail, s));
  }
  CB_NCCL(ncclGroupEnd());
}

static void run(cb_inst_t *in, int phase, cudaStream_t s) {
  cb_moe_state_t *st = in->priv;
  moe_hier_t *x = st->ext;
  cb_moe_hier_dev_t *h = &x->h;
  cb_moe_dev_t *d = &st->dev;
  int n = st->n, N = h->nnodes, cw = h->cw;
  /* node rows out (to node j) and in (from node j), from the table of the last layout */
  int out_rows[CB_MAX_RANKS], in_rows[CB_MAX_RANKS];
  for (int j = 0; j < N; j++) {
    out_rows[j] = x->table[(size_t)st->r * cw + n + j];
    in_rows[j] = x->table[(size_t)h->rank_at[j * h->K + h->local] * cw + n + h->node];
  }
  switch (phase) {
  case 0:
    cb_moe_layout(d, s);
    h->m = *d;
    cb_moe_hier_layout(h, s);
    CB_NCCL(ncclAllGather(h->my_counts, (void *)h->counts, (size_t)cw, ncclInt32, in->world->nccl, s));
    cb_moe_hier_recv_counts(h, s);
    CB_CUDA(cudaMemcpyAsync(x->table, h->counts, (size_t)n * cw * 4, cudaMemcpyDeviceToHost, s));
    cb_wait_stream(s); /* the host needs the sizes: what graphs cannot hold */
    break;
  case 1:
    h->m = *d;
    cb_moe_hier_pack(h, s);
    rail_exchange(in, x, h->net_send, out_rows, h->net_recv, in_rows, h->nrow_bytes, s);
    cb_moe_hier_forward(h, s);
    cb_moe_hier_node_barrier(h, 0, s);
    cb_moe_expert_layout(d, s);
    break;
  default: {
    /* combine rows into my combine region, packed like my receive region */
    int pre = 0;
    for (int q = 0; q < n; q++) {
      d->comb_dst[q] = h->comb[h->local] + (size_t)pre * st->comb_row_bytes;
      pre += x->table[(size_t)q * cw + st->r];
    }
    cb_moe_combine_push(d, s);
    h->m = *d;
    cb_moe_hier_node_barrier(h, 1, s);
    cb_moe_hier_node_reduce(h, s);
    rail_exchange(in, x, h->comb_send, in_rows, h->comb_recv, out_rows, st->comb_row_bytes, s);
    cb_moe_hier_final_reduce(h, s);
  }
  }
}

/* The shared check, plus every rank's node counts against the host reference. Staging
 * buffers are poisoned first so a row that is not sent cannot pass as an old one.
 *
 * Unlike the push paths, hier's node peers read this rank's combine region (node and final
 * sums pull it), so its poison must wait until every rank has finished its previous call: else
 * a peer still summing the previous check reads NaN (seen on the GPU as wrong outputs from the
 * second check iteration on, 2 x 2 only). Timed calls need no such wait: their first write to
 * the region comes after the layout's allgather, which every rank enters only after its last
 * read. */
static long long check(cb_inst_t *in, cudaStream_t s, uint64_t seed, int iter) {
  cb_moe_state_t *st = in->priv;
  moe_hier_t *x = st->ext;
  cb_moe_hier_dev_t *h = &x->h;
  cb_wait_stream(s);
  cb_mpi_barrier(in->world->mpi.comm);
  CB_CUDA(cudaMemsetAsync(h->net_send, 0xFF, x->stage_bytes, s));
  CB_CUDA(cudaMemsetAsync(h->net_recv, 0xFF, x->stage_bytes, s));
  CB_CUDA(cudaMemsetAsync(h->comb_send, 0xFF, x->comb_stage_bytes, s));
  CB_CUDA(cudaMemsetAsync(h->comb_recv, 0xFF, x->comb_stage_bytes, s));
  long long wrong = cb_moe_check(in, s, seed, iter); /* runs the phases; the table is on the host */
  int n = st->n, N = h->nnodes;
  for (int q = 0; q < n; q++)
    for (int j = 0; j < N; j++) {
      int got = x->table[(size_t)q * h->cw + n + j], want = x->exp_node_counts[q * N + j];
      if (got != want) {
        if (wrong < 20) CB_WARN("moe hier: rank %d sends %d node rows to node %d, expected %d", q, got, j, want);
        wrong += 1;
      }
    }
  return wrong;
}

static void bytes(const cb_inst_t *in, int phase, cb_bytes_t *out) {
  const cb_moe_state_t *st = in->priv;
  const cb_moe_hier_bytes_t *b = &((const moe_hier_t *)st->ext)->bytes;
  cb_moe_bytes(in, phase, out);
  out->link_bytes = 1;
  switch (phase) {
  case 0: out->net_bytes = out->nvlink_bytes = 0; break; /* counts only (not counted) */
  case 1:
    out->net_bytes = b->net_disp;
    out->nvlink_bytes = b->nvlink_disp;
    break;
  case 2:
    out->net_bytes = b->net_comb;
    out->nvlink_bytes = b->nvlink_comb;
    break;
  default: out->net_bytes = b->net_disp + b->net_comb; out->nvlink_bytes = b->nvlink_disp + b->nvlink_comb;
  }
}

const cb_algo_t cb_algo_moe_hier = {
    .name = "hier",
    .family = CB_MOE,
    .summary = "multi-node: one network row per (token, node) over the rails, NVLink forwarding inside the node, "
               "combine reduced per node first",
    .dtypes = CB_DT(CB_BF16) | CB_DT(CB_FP8E4M3),
    .nphases = 3,
    .phase_names = cb_moe_phase_names,
    .graph_ok = 0,
    .supported = supported,
    .setup = setup,
    .run = run,
    .check = check,
    .bytes = bytes,
    .teardown = teardown,
};
