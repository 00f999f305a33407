/* Implementation of moe_common.h. */
#include "moe_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_limits.h"
#include "error_gpu.h"
#include "moe_trace.h"

const char *const cb_moe_phase_names[3] = {"layout", "dispatch", "combine"};

int cb_moe_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  if (w->mpi.nranks > CB_MAX_RANKS) {
    snprintf(why, n, "not supported: moe runs on up to %d ranks", CB_MAX_RANKS);
    return 0;
  }
  return cb_moe_config_check(cb_moe_cfg(p), w->mpi.nranks, p->dtype, why, n) == 0;
}

void *cb_moe_alloc(cb_moe_state_t *st, size_t bytes, char *why, size_t n) {
  void *p = NULL;
  if (bytes == 0) bytes = 16;
  if (CB_TRY_CUDA(cudaMalloc(&p, bytes), why, n)) return NULL;
  st->dev_bytes += bytes;
  return p;
}

/* Expected receive counts, per-expert selections, bytes and imbalance, from every rank's
 * routing (host; the same function the CPU tests check). */
static void expectations(cb_inst_t *in, cb_moe_state_t *st) {
  const cb_moe_config_t *c = cb_moe_cfg(&in->p);
  int n = st->n, r = st->r, E = c->experts;
  double disp = 0, disp_remote = 0;
  for (int s = 0; s < n; s++)
    for (int t = 0; t < st->all[s].ntokens; t++)
      for (int d = 0; d < n; d++) {
        if (!cb_moe_token_goes_to(&st->all[s], t, E, n, d)) continue;
        disp += 1;
        if (d != s) disp_remote += 1;
        if (d == r) st->exp_recv[s]++;
      }
  for (int s = 0; s < n; s++)
    for (int t = 0; t < st->all[s].ntokens; t++)
      for (int k = 0; k < st->topk; k++) {
        int id = st->all[s].ids[(size_t)t * st->topk + k];
        if (id >= 0 && id / st->experts_per_rank == r) st->exp_expert[id % st->experts_per_rank]++;
      }
  /* payload per (token, destination): the row without padding (fp8: values and scales) */
  double payload = st->fp8 ? st->hidden + 4.0 * (st->hidden / 128) : 2.0 * st->hidden;
  st->layout_bytes = 4.0 * n;
  st->disp_bytes = disp * payload / n;
  st->disp_remote = disp_remote * payload / n;
  st->comb_bytes = disp * 2.0 * st->hidden / n;
  st->comb_remote = disp_remote * 2.0 * st->hidden / n;
  double rank_imb = 0, expert_imb = 0;
  cb_moe_imbalance(st->all, n, E, &rank_imb, &expert_imb);
  in->metric[CB_MOE_IMBALANCE] = rank_imb;
  snprintf(in->note, sizeof in->note, "expert imbalance %.2f; %d tokens on this rank", expert_imb, st->ntokens);
}

cb_moe_state_t *cb_moe_state_new(cb_inst_t *in, int custom) {
  const cb_world_t *w = in->world;
  const cb_moe_config_t *c = cb_moe_cfg(&in->p);
  cb_moe_state_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  in->priv = st;
  st->custom = custom;
  st->n = w->mpi.nranks;
  st->r = w->mpi.rank;
  st->topk = c->topk;
  st->hidden = c->hidden;
  st->experts_per_rank = c->experts / st->n;
  st->fp8 = in->p.dtype == CB_FP8E4M3;
  st->row_bytes = st->fp8 ? CB_ALIGN_UP((size_t)c->hidden + 4 * (size_t)(c->hidden / 128), 16) : 2 * (size_t)c->hidden;
  st->meta_bytes = CB_ALIGN_UP(8 + 8 * (size_t)c->topk, 16);
  st->comb_row_bytes = 2 * (size_t)c->hidden;
  st->exp_expert = calloc((size_t)st->experts_per_rank, sizeof(int));
  if (!st->exp_expert) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  st->cap = 1;
  for (int s = 0; s < st->n; s++) {
    int T = cb_moe_tokens_for_rank(c, cb_moe_tokens(&in->p), s, st->n);
    if (T > st->cap) st->cap = T;
    if (cb_moe_route(c, in->p.seed, s, st->n, T, &st->all[s]))
      CB_DIE(CB_EXIT_RUNTIME,
             "routing rank %d failed: out of host memory, or fewer than --topk experts with non-zero "
             "probability",
             s);
  }
  st->ntokens = st->all[st->r].ntokens;
  expectations(in, st);
  return st;
}

int cb_moe_alloc_common(cb_inst_t *in, cb_moe_state_t *st, char *why, size_t n) {
  const cb_moe_config_t *c = cb_moe_cfg(&in->p);
  int N = st->n, T = st->ntokens, K = st->topk, cap = st->cap;
  size_t TK = (size_t)(T > 0 ? T : 1) * K, nck = (size_t)N * cap * K;
  if (!(st->x = cb_moe_alloc(st, (size_t)T * c->hidden * 2, why, n)) ||
      !(st->out = cb_moe_alloc(st, (size_t)T * c->hidden * 2, why, n)) ||
      !(st->ids = cb_moe_alloc(st, TK * 4, why, n)) || !(st->weights = cb_moe_alloc(st, TK * 4, why, n)) ||
      !(st->all_ids = cb_moe_alloc(st, nck * 4, why, n)) || !(st->all_w = cb_moe_alloc(st, nck * 4, why, n)) ||
      !(st->all_ntokens = cb_moe_alloc(st, (size_t)N * 4, why, n)) ||
      !(st->send_count = cb_moe_alloc(st, (size_t)N * 4, why, n)) ||
      !(st->send_idx = cb_moe_alloc(st, (size_t)N * cap * 4, why, n)) ||
      !(st->send_pos = cb_moe_alloc(st, (size_t)(T > 0 ? T : 1) * N * 4, why, n)) ||
      !(st->recv_count = cb_moe_alloc(st, (size_t)N * 4, why, n)) ||
      !(st->expert_count = cb_moe_alloc(st, (size_t)st->experts_per_rank * 4, why, n)) ||
      !(st->expert_rows = cb_moe_alloc(st, (size_t)st->experts_per_rank * N * cap * 4, why, n)) ||
      !(st->epochs = cb_moe_alloc(st, CB_MOE_EPOCH_WORDS * 4, why, n)) ||
      !(st->d_wrong = cb_moe_alloc(st, sizeof(unsigned long long), why, n)))
    return -1;
  CB_CUDA(cudaMallocHost((void **)&st->h_counts, 2 * CB_MAX_RANKS * sizeof(int32_t)));
  CB_CUDA(cudaMemset(st->epochs, 0, CB_MOE_EPOCH_WORDS * 4));
  if (T > 0) {
    CB_CUDA(cudaMemcpy(st->ids, st->all[st->r].ids, TK * 4, cudaMemcpyHostToDevice));
    CB_CUDA(cudaMemcpy(st->weights, st->all[st->r].weights, TK * 4, cudaMemcpyHostToDevice));
  }
  int32_t nt[CB_MAX_RANKS];
  for (int s = 0; s < N; s++) {
    nt[s] = st->all[s].ntokens;
    if (nt[s] > 0) {
      CB_CUDA(
          cudaMemcpy(st->all_ids + (size_t)s * cap * K, st->all[s].ids, (size_t)nt[s] * K * 4, cudaMemcpyHostToDevice));
      CB_CUDA(cudaMemcpy(st->all_w + (size_t)s * cap * K, st->all[s].weights, (size_t)nt[s] * K * 4,
                         cudaMemcpyHostToDevice));
    }
  }
  CB_CUDA(cudaMemcpy(st->all_ntokens, nt, (size_t)N * 4, cudaMemcpyHostToDevice));
  return cb_moe_trace_setup(in->world->knobs.moe_trace, st, why, n);
}

void cb_moe_dev_init(cb_inst_t *in, cb_moe_state_t *st) {
  const cb_world_t *w = in->world;
  cb_moe_dev_t *d = &st->dev;
  d->rank = st->r;
  d->nranks = st->n;
  d->ntokens = st->ntokens;
  d->cap = st->cap;
  d->hidden = st->hidden;
  d->topk = st->topk;
  d->experts_per_rank = st->experts_per_rank;
  d->fp8 = st->fp8;
  d->custom = st->custom;
  d->row_bytes = st->row_bytes;
  d->meta_bytes = st->meta_bytes;
  d->comb_row_bytes = st->comb_row_bytes;
  d->ids = st->ids;
  d->weights = st->weights;
  d->x = st->x;
  d->out = st->out;
  d->send_count = st->send_count;
  d->send_idx = st->send_idx;
  d->send_pos = st->send_pos;
  d->recv_count = st->recv_count;
  d->expert_count = st->expert_count;
  d->expert_rows = st->expert_rows;
  d->epoch_layout = st->epochs;
  d->epoch_dispatch = st->epochs + CB_MOE_MAX_PUSH_BLOCKS;
  d->epoch_combine = st->epochs + 2 * CB_MOE_MAX_PUSH_BLOCKS;
  d->expert_zeroed = st->epochs + 3 * CB_MOE_MAX_PUSH_BLOCKS;
  d->work = st->epochs + 3 * CB_MOE_MAX_PUSH_BLOCKS + 1;
  d->push_blocks = w->grid_sms < CB_MOE_MAX_PUSH_BLOCKS ? w->grid_sms : CB_MOE_MAX_PUSH_BLOCKS;
  d->timeout_ns = w->spin_timeout_ns;
  d->ctl = w->ctl_dev;
  d->trace = st->trace;
  cb_moe_fill_tokens(d, in->p.seed, 1000, w->stream);
  CB_CUDA(cudaStreamSynchronize(w->stream));
}

void cb_moe_teardown(cb_inst_t *in) {
  cb_moe_state_t *st = in->priv;
  if (!st) return;
  cb_moe_trace_dump(in, st);
  void *bufs[] = {st->x,           st->out,        st->ids,       st->weights,   st->all_ids,    st->all_w,
                  st->all_ntokens, st->send_count, st->send_idx,  st->send_pos,  st->recv_count, st->expert_count,
                  st->expert_rows, st->epochs,     st->d_wrong,   st->send_rows, st->send_meta,  st->recv_rows,
                  st->recv_meta,   st->comb_send,  st->comb_recv, st->trace};
  /* st->send_rows .. comb_recv are the NCCL path's local buffers (NULL on the custom path,
   * whose row buffers live in the peer allocation) */
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    if (bufs[i]) CB_CUDA(cudaFree(bufs[i]));
  if (st->h_counts) CB_CUDA(cudaFreeHost(st->h_counts));
  if (st->custom) cb_peer_free(&st->pm);
  for (int s = 0; s < st->n; s++) cb_moe_routing_free(&st->all[s]);
  free(st->exp_expert);
  free(st);
  in->priv = NULL;
}

/* Poison what the phases write, so anything left unwritten fails. */
static void poison(cb_moe_state_t *st, cudaStream_t s) {
  const cb_moe_dev_t *d = &st->dev;
  size_t rows = (size_t)st->n * st->cap;
  CB_CUDA(cudaMemsetAsync(st->out, 0xFF, (size_t)st->ntokens * st->hidden * 2, s));
  CB_CUDA(cudaMemsetAsync(d->recv_rows, 0xFF, rows * st->row_bytes, s));
  CB_CUDA(cudaMemsetAsync(d->recv_meta, 0xFF, rows * st->meta_bytes, s));
  CB_CUDA(cudaMemsetAsync(d->comb_src, 0xFF, rows * st->comb_row_bytes, s));
  CB_CUDA(cudaMemsetAsync(st->expert_rows, 0xFF, (size_t)st->experts_per_rank * rows * 4, s));
}

long long cb_moe_check(cb_inst_t *in, cudaStream_t s, uint64_t seed, int iter) {
  cb_moe_state_t *st = in->priv;
  const cb_world_t *w = in->world;
  cb_moe_fill_tokens(&st->dev, seed, iter, s);
  poison(st, s);
  cb_wait_stream(s);
  /* no peer may push into this rank's buffers before its poison has landed */
  cb_mpi_barrier(w->mpi.comm);
  for (int ph = 0; ph < in->algo->nphases; ph++) in->algo->run(in, ph, s);
  CB_CUDA(cudaMemsetAsync(st->d_wrong, 0, sizeof *st->d_wrong, s));
  cb_moe_check_received(&st->dev, st->all_ids, st->all_w, st->all_ntokens, seed, iter, st->d_wrong, s);
  cb_moe_check_output(&st->dev, seed, iter, st->d_wrong, s);
  unsigned long long dev_wrong = 0;
  int32_t recv[CB_MAX_RANKS];
  int *experts = malloc(sizeof(int) * (size_t)st->experts_per_rank);
  if (!experts) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  CB_CUDA(cudaMemcpyAsync(&dev_wrong, st->d_wrong, sizeof dev_wrong, cudaMemcpyDeviceToHost, s));
  CB_CUDA(cudaMemcpyAsync(recv, st->recv_count, (size_t)st->n * 4, cudaMemcpyDeviceToHost, s));
  CB_CUDA(cudaMemcpyAsync(experts, st->expert_count, (size_t)st->experts_per_rank * 4, cudaMemcpyDeviceToHost, s));
  cb_wait_stream(s); /* polled: a lost peer ends as a timeout (exit 4) */
  long long wrong = (long long)dev_wrong;
  for (int q = 0; q < st->n; q++)
    if (recv[q] != st->exp_recv[q]) {
      CB_WARN("moe %s: received %d rows from rank %d, expected %d", in->algo->name, recv[q], q, st->exp_recv[q]);
      wrong += 1;
    }
  for (int e = 0; e < st->experts_per_rank; e++)
    if (experts[e] != st->exp_expert[e]) {
      if (wrong < 20)
        CB_WARN("moe %s: local expert %d lists %d rows, expected %d", in->algo->name, e, experts[e], st->exp_expert[e]);
      wrong += 1;
    }
  if (dev_wrong) CB_WARN("moe %s: %llu wrong rows or output elements", in->algo->name, dev_wrong);
  free(experts);
  return wrong;
}

void cb_moe_bytes(const cb_inst_t *in, int phase, cb_bytes_t *out) {
  const cb_moe_state_t *st = in->priv;
  out->busbw_factor = 1.0;
  switch (phase) {
  case 0:
    out->algbw_bytes = st->layout_bytes;
    out->remote_bytes = st->layout_bytes * (st->n - 1) / st->n;
    break;
  case 1:
    out->algbw_bytes = st->disp_bytes;
    out->remote_bytes = st->disp_remote;
    break;
  case 2:
    out->algbw_bytes = st->comb_bytes;
    out->remote_bytes = st->comb_remote;
    break;
  default: out->algbw_bytes = st->disp_bytes + st->comb_bytes; out->remote_bytes = st->disp_remote + st->comb_remote;
  }
}
