/* The Ulysses pipeline both forms share (ringattn_a2a.h). */
#include "ringattn_a2a.h"

#include <stdio.h>
#include <string.h>

#include "attn_bwd_util.h"
#include "attn_layout.h"
#include "attn_variant.h"
#include "cb_limits.h"
#include "error_gpu.h"
#include "ringattn_bwd.h"
#include "ringattn_pair.h"
#include "ringattn_pass.h"

extern const cb_ra_scheme_t cb_ra_scheme_single, cb_ra_scheme_ring, cb_ra_scheme_nccl_ring;

int cb_ra_uly_rank(const cb_ra_uly_t *u, int m) { return u->g * u->U + m; }

int cb_ra_uly_local_rank(const cb_ra_uly_t *u, int m) {
  const cb_world_t *w = u->x.w;
  return cb_ra_uly_rank(u, m) - (w->mpi.rank - w->mpi.local_rank);
}

void cb_ra_uly_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                      void *ctx) {
  CB_CUDA(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, cudaMemcpyDefault, (cudaStream_t)ctx));
}

/* A tensor [batch][rows][heads][head_dim] (rows_major) or [batch][heads][rows], unit bytes per head of a row. */
static cb_ra_uly_tensor_t tensor(const cb_ra_uly_t *u, int rows_major, int kv, int out, size_t unit, const void *src,
                                 void *dst) {
  const cb_attn_config_t *c = u->x.cfg;
  cb_ra_uly_tensor_t e;
  memset(&e, 0, sizeof e);
  e.t.rows_major = rows_major;
  e.t.batch = (size_t)c->batch;
  e.t.L = (size_t)u->x.rows;
  e.t.U = u->U;
  e.t.shard_heads = kv ? c->kv_heads : c->heads;
  e.t.inner_heads = kv ? u->split.kv_heads : u->split.q_heads;
  e.t.unit = unit;
  e.kv = kv;
  e.out = out;
  e.src = src;
  e.dst = dst;
  return e;
}

int cb_ra_uly_tensors(const cb_ra_uly_t *u, int ph, cb_ra_uly_tensor_t *t) {
  const cb_ra_t *x = &u->x, *in = u->inner;
  const size_t D = (size_t)x->cfg->head_dim, e = x->elem, f = sizeof(float);
  if (CB_RA_UL_PHASE_IS_BWD(ph) && !CB_ATTN_PASS_HAS_BWD(x->pass)) return 0;
  switch (ph) {
  case CB_RA_UL_FWD_IN:
    t[0] = tensor(u, 1, 0, 0, D * e, x->q, in->q);
    t[1] = tensor(u, 1, 1, 0, D * e, x->kv, in->kv);
    t[2] = tensor(u, 1, 1, 0, D * e, (const char *)x->kv + x->kv_elems * e, (char *)in->kv + in->kv_elems * e);
    return 3;
  case CB_RA_UL_FWD_OUT: t[0] = tensor(u, 1, 0, 1, D * e, in->out, x->out); return 1;
  case CB_RA_UL_BWD_IN: t[0] = tensor(u, 1, 0, 0, D * e, x->bwd.dout, in->bwd.dout); return 1;
  case CB_RA_UL_BWD_OUT:
    t[0] = tensor(u, 1, 0, 1, D * f, in->bwd.dq, x->bwd.dq);
    t[1] = tensor(u, 1, 1, 1, D * f, in->bwd.dkv, x->bwd.dkv);
    t[2] = tensor(u, 1, 1, 1, D * f, in->bwd.dkv + in->kv_elems, x->bwd.dkv + x->kv_elems);
    t[1].rep_bytes = t[2].rep_bytes = u->split.kv_replicas > 1 ? x->bwd.dkv_bytes : 0;
    return 3;
  default: /* CB_RA_UL_LSE_OUT */ t[0] = tensor(u, 0, 0, 1, f, in->lse, x->lse); return 1;
  }
}

static int head0(const cb_ra_uly_t *u, int kv, int m) {
  return kv ? cb_attn_kv_head0(&u->split, m) : cb_attn_q_head0(&u->split, m);
}

cb_attn_copy_t cb_ra_uly_copy(const cb_ra_uly_t *u, const cb_ra_uly_tensor_t *e, int from, int to, size_t *rep_off) {
  *rep_off = e->rep_bytes ? (size_t)cb_attn_kv_replica(&u->split, from) * e->rep_bytes : 0;
  /* in: from's rows, to's heads, into to's inner rows of from; out: to's rows, from's heads */
  return e->out ? cb_attn_copy_reverse(cb_attn_a2a_block(&e->t, to, head0(u, e->kv, from)))
                : cb_attn_a2a_block(&e->t, from, head0(u, e->kv, to));
}

size_t cb_ra_uly_phase_bytes(const cb_ra_uly_t *u, int ph) {
  const cb_ra_t *x = &u->x;
  const size_t BLD = (size_t)x->cfg->batch * (size_t)x->rows * (size_t)x->cfg->head_dim, e = x->elem, f = sizeof(float);
  const size_t hu = (size_t)u->split.q_heads, qkv = hu + 2 * (size_t)u->split.kv_heads;
  if (CB_RA_UL_PHASE_IS_BWD(ph) && !CB_ATTN_PASS_HAS_BWD(x->pass)) return 0;
  switch (ph) {
  case CB_RA_UL_FWD_IN: return BLD * qkv * e;
  case CB_RA_UL_FWD_OUT:
  case CB_RA_UL_BWD_IN: return BLD * hu * e;
  case CB_RA_UL_BWD_OUT: return BLD * qkv * f;
  default: return BLD / (size_t)x->cfg->head_dim * hu * f; /* CB_RA_UL_LSE_OUT */
  }
}

/* Peer memory in every group: one node, or nodes of equal size holding whole groups with their
 * ranks in order (rank = node x ranks per node + rank in the node). */
static int groups_in_nodes(const cb_world_t *w, int U, char *why, size_t n) {
  const cb_mpi_world_t *m = &w->mpi;
  if (!w->peer_ok) {
    snprintf(why, n, "not supported: %s", w->peer_why);
    return 0;
  }
  if (m->local_nranks > CB_MAX_RANKS) {
    snprintf(why, n, "not supported: %d ranks in a node (peer memory connects up to %d GPUs)", m->local_nranks,
             CB_MAX_RANKS);
    return 0;
  }
  if (m->nnodes > 1 && (m->min_local_nranks != m->max_local_nranks || m->local_nranks % U ||
                        m->rank != m->node * m->local_nranks + m->local_rank)) {
    snprintf(why, n,
             "not supported: a group of U=%d ranks spans nodes (the peer all-to-all works inside one node: "
             "nodes of equal size, a multiple of U, ranks in node order)",
             U);
    return 0;
  }
  return 1;
}

int cb_ra_uly_supported(const cb_world_t *w, const cb_params_t *p, int peer, char *why, size_t n) {
  const int P = w->mpi.nranks, U = cb_attn_ulysses(p, P);
  cb_attn_heads_split_t s;
  if (P % U) {
    snprintf(why, n, "not supported: --ulysses %d does not divide %d ranks", U, P);
    return 0;
  }
  if (cb_attn_heads_split(cb_attn_cfg(p)->heads, cb_attn_cfg(p)->kv_heads, U, &s, why, n)) return 0;
  return !peer || groups_in_nodes(w, U, why, n);
}

/* The inner pair: this member's heads over its group's rows, the ring across the groups. */
static int make_inner(cb_ra_uly_t *u, cb_inst_t *in, char *why, size_t n) {
  const cb_world_t *w = in->world;
  u->inner_cfg = *u->x.cfg;
  u->inner_cfg.heads = u->split.q_heads;
  u->inner_cfg.kv_heads = u->split.kv_heads;
  u->inner_in = *in;
  u->inner_in.p.config = &u->inner_cfg;
  u->inner_in.priv = NULL;
  u->inner_in.note[0] = 0;
  u->inner_in.mem_bytes = 0;
  u->inner_in.sms = 0;
  u->inner_scheme = u->R == 1                             ? &cb_ra_scheme_single
                    : u->move->peer && w->mpi.nnodes == 1 ? &cb_ra_scheme_ring
                                                          : &cb_ra_scheme_nccl_ring;
  const cb_ra_part_t part = {.P = u->R, .r = u->g, .stride = u->U, .first = u->me, .U = 1, .layout = u->x.layout};
  if (cb_ra_pair_make(u->inner_scheme, u->x.block, &u->inner_in, &part, why, n)) return -1;
  u->inner = u->inner_in.priv;
  return 0;
}

static void note(const cb_ra_uly_t *u, cb_inst_t *in) {
  char kv[96];
  if (u->split.kv_replicas > 1)
    snprintf(kv, sizeof kv, "1 kv head per rank, replicated on %d (kv-heads < U)", u->split.kv_replicas);
  else snprintf(kv, sizeof kv, "%d kv heads per rank", u->split.kv_heads);
  const char *ring = u->R == 1 ? "" : u->inner_scheme == &cb_ra_scheme_ring ? ", peer ring" : ", NCCL ring";
  snprintf(in->note, sizeof in->note, "U=%d x R=%d%s; %d heads, %s; %s; %s", u->U, u->R, ring, u->split.q_heads, kv,
           u->R == 1 ? "natural order" : cb_attn_layout_name(u->x.layout), u->move->what);
}

int cb_ra_uly_setup(cb_inst_t *in, const cb_ra_uly_move_t *move, char *why, size_t n) {
  cb_ra_uly_t *u = in->priv;
  cb_ra_t *x = &u->x;
  const int P = in->world->mpi.nranks;
  u->move = move;
  u->U = x->U;
  u->R = P / u->U;
  u->g = x->r / u->U;
  u->me = x->r % u->U;
  if (cb_attn_heads_split(x->cfg->heads, x->cfg->kv_heads, u->U, &u->split, why, n)) return -1;
  float *home = NULL;
  /* every rank reaches the agreement: a setup that failed on one rank must not leave the others
   * in the forward below, waiting for it */
  int rc = make_inner(u, in, why, n) || move->setup(u, in, &home, why, n) || cb_ra_setup_pass(x, in, home, 0, why, n);
  if (!cb_mpi_agree(in->world->mpi.comm, rc == 0, why, n)) return -1;
  const size_t inner_mem = u->inner->mem;
  if (move->share) move->share(u);
  if (x->pass == CB_ATTN_PASS_BWD) { /* the timed backwards start from this forward's out and lse */
    cb_ra_uly_fwd(in, in->world->stream);
    cb_wait_stream(in->world->stream);
  }
  in->mem_bytes = x->mem + u->inner_in.mem_bytes - (inner_mem - u->inner->mem); /* (less what share() gave back) */
  in->p.bytes = cb_attn_ulysses_bytes(x->cfg, x->S, P, u->U, x->elem, x->pass);
  in->sms = u->R > 1 ? u->inner_in.sms : x->block->sms ? x->block->sms(u->inner) : 0;
  note(u, in);
  return 0;
}

void cb_ra_uly_teardown(cb_inst_t *in) {
  cb_ra_uly_t *u = in->priv;
  if (u->inner_in.priv) cb_ra_pair_free(&u->inner_in);
  u->inner = NULL;
  if (u->move && u->move->teardown) u->move->teardown(u);
}

/* The replicas' dK|dV sums of the K/V heads held by several members, onto the first's. */
static void add_replicas(const cb_ra_uly_t *u, cudaStream_t s) {
  const cb_ra_t *x = &u->x;
  for (int j = 1; j < u->split.kv_replicas; j++)
    cb_attn_f32_add(x->bwd.dkv, x->bwd.dkv + (size_t)j * x->bwd.dkv_elems, x->bwd.dkv_elems, s);
}

void cb_ra_uly_fwd(cb_inst_t *in, cudaStream_t s) {
  cb_ra_uly_t *u = in->priv;
  if (u->move->begin) u->move->begin(u, 0, s);
  u->move->exchange(u, in->world, CB_RA_UL_FWD_IN, 1, s);
  u->inner_scheme->forward(&u->inner_in, s);
  u->move->exchange(u, in->world, CB_RA_UL_FWD_OUT, 1, s);
}

void cb_ra_uly_bwd(cb_inst_t *in, cudaStream_t s) {
  cb_ra_uly_t *u = in->priv;
  if (u->move->begin) u->move->begin(u, 1, s);
  u->move->exchange(u, in->world, CB_RA_UL_BWD_IN, 1, s);
  u->inner_scheme->backward(&u->inner_in, s);
  u->move->exchange(u, in->world, CB_RA_UL_BWD_OUT, 1, s);
  add_replicas(u, s);
}

void cb_ra_uly_save_prepare(cb_inst_t *in, cudaStream_t s) {
  cb_ra_uly_t *u = in->priv;
  u->move->exchange(u, in->world, CB_RA_UL_LSE_OUT, 1, s);
  cb_wait_stream(s);
}

/* ---- parts alone (cb_ra_measure) ---------------------------------------------------------- */

void cb_ra_uly_fwd_compute(cb_inst_t *in, cudaStream_t s) {
  cb_ra_uly_t *u = in->priv;
  (u->R > 1 ? u->inner_scheme->fwd_compute : u->inner_scheme->forward)(&u->inner_in, s);
}

void cb_ra_uly_bwd_compute(cb_inst_t *in, cudaStream_t s) {
  cb_ra_uly_t *u = in->priv;
  (u->R > 1 ? u->inner_scheme->bwd_compute : u->inner_scheme->backward)(&u->inner_in, s);
  add_replicas(u, s);
}

void cb_ra_uly_fwd_comm(cb_inst_t *in, cudaStream_t s) {
  cb_ra_uly_t *u = in->priv;
  u->move->exchange(u, in->world, CB_RA_UL_FWD_IN, 0, s);
  if (u->R > 1) u->inner_scheme->fwd_comm(&u->inner_in, s);
  u->move->exchange(u, in->world, CB_RA_UL_FWD_OUT, 0, s);
}

void cb_ra_uly_bwd_comm(cb_inst_t *in, cudaStream_t s) {
  cb_ra_uly_t *u = in->priv;
  u->move->exchange(u, in->world, CB_RA_UL_BWD_IN, 0, s);
  if (u->R > 1) u->inner_scheme->bwd_comm(&u->inner_in, s);
  u->move->exchange(u, in->world, CB_RA_UL_BWD_OUT, 0, s);
}

void cb_ra_uly_local(cb_inst_t *in, cudaStream_t s) {
  cb_ra_uly_t *u = in->priv;
  cb_ra_pass_local(&u->inner_in, s);
}
