/* The Ulysses all-to-all's host arithmetic (attn_a2a.h). */
#include "attn_a2a.h"

#include <stdio.h>

int cb_attn_heads_split(int H, int KV, int U, cb_attn_heads_split_t *s, char *why, size_t n) {
  if (U < 1 || H < 1 || KV < 1 || H % KV) {
    snprintf(why, n, "not supported: %d heads, %d kv-heads over %d ranks", H, KV, U);
    return -1;
  }
  if (H % U) {
    snprintf(why, n, "not supported: %d heads do not split over U=%d ranks (Ulysses gives each rank H/U heads)", H, U);
    return -1;
  }
  s->U = U;
  s->q_heads = H / U;
  if (KV % U == 0) {
    s->kv_heads = KV / U;
    s->kv_replicas = 1;
  } else if (U % KV == 0) {
    s->kv_heads = 1;
    s->kv_replicas = U / KV;
  } else {
    snprintf(why, n,
             "not supported: %d kv-heads neither split over U=%d ranks nor replicate onto them (U a multiple of "
             "kv-heads)",
             KV, U);
    return -1;
  }
  return 0;
}

int cb_attn_q_head0(const cb_attn_heads_split_t *s, int v) { return v * s->q_heads; }

int cb_attn_kv_head0(const cb_attn_heads_split_t *s, int v) {
  return s->kv_replicas > 1 ? v / s->kv_replicas : v * s->kv_heads;
}

int cb_attn_kv_replica(const cb_attn_heads_split_t *s, int v) { return v % s->kv_replicas; }

cb_attn_copy_t cb_attn_a2a_block(const cb_attn_a2a_tensor_t *t, int u, int head0) {
  const size_t L = t->L, Hs = (size_t)t->shard_heads, Hi = (size_t)t->inner_heads, U = (size_t)t->U, e = t->unit;
  cb_attn_copy_t c;
  c.batch = t->batch;
  if (t->rows_major) { /* [batch][rows][heads][unit]: a row is Hi heads */
    c.src = (size_t)head0 * e, c.width = Hi * e, c.rows = L, c.src_row = Hs * e, c.src_batch = L * Hs * e;
    c.dst = (size_t)u * L * Hi * e, c.dst_row = Hi * e, c.dst_batch = U * L * Hi * e;
  } else { /* [batch][heads][rows]: a row of the copy is one head's L rows */
    c.src = (size_t)head0 * L * e, c.width = L * e, c.rows = Hi, c.src_row = L * e, c.src_batch = Hs * L * e;
    c.dst = (size_t)u * L * e, c.dst_row = U * L * e, c.dst_batch = Hi * U * L * e;
  }
  return c;
}

cb_attn_copy_t cb_attn_copy_reverse(cb_attn_copy_t c) {
  cb_attn_copy_t r = c;
  r.src = c.dst, r.src_row = c.dst_row, r.src_batch = c.dst_batch;
  r.dst = c.src, r.dst_row = c.src_row, r.dst_batch = c.src_batch;
  return r;
}

cb_attn_copy_t cb_attn_copy_packed(cb_attn_copy_t c, int packed_dst) {
  if (packed_dst) c.dst = 0, c.dst_row = c.width, c.dst_batch = c.rows * c.width;
  else c.src = 0, c.src_row = c.width, c.src_batch = c.rows * c.width;
  return c;
}

size_t cb_attn_copy_bytes(const cb_attn_copy_t *c) { return c->batch * c->rows * c->width; }

int cb_attn_copy_run(const cb_attn_copy_t *c, void *dst_base, const void *src_base, cb_attn_copy2d_fn copy2d,
                     void *ctx) {
  if (!c->width || !c->rows || !c->batch) return 0;
  char *dst = (char *)dst_base + c->dst;
  const char *src = (const char *)src_base + c->src;
  const int rows_ok = c->src_row <= CB_ATTN_COPY_MAX_PITCH && c->dst_row <= CB_ATTN_COPY_MAX_PITCH;
  if (rows_ok && c->src_batch == c->rows * c->src_row && c->dst_batch == c->rows * c->dst_row) { /* slabs follow */
    copy2d(dst, c->dst_row, src, c->src_row, c->width, c->rows * c->batch, ctx);
    return 1;
  }
  if (c->src_row == c->width && c->dst_row == c->width && c->src_batch <= CB_ATTN_COPY_MAX_PITCH &&
      c->dst_batch <= CB_ATTN_COPY_MAX_PITCH) { /* each slab one run of bytes */
    copy2d(dst, c->dst_batch, src, c->src_batch, c->rows * c->width, c->batch, ctx);
    return 1;
  }
  if (rows_ok) {
    for (size_t b = 0; b < c->batch; b++)
      copy2d(dst + b * c->dst_batch, c->dst_row, src + b * c->src_batch, c->src_row, c->width, c->rows, ctx);
    return (int)c->batch;
  }
  for (size_t b = 0; b < c->batch; b++)
    for (size_t r = 0; r < c->rows; r++)
      copy2d(dst + b * c->dst_batch + r * c->dst_row, c->width, src + b * c->src_batch + r * c->src_row, c->width,
             c->width, 1, ctx);
  return (int)(c->batch * c->rows);
}

uint64_t cb_attn_ulysses_bytes(const cb_attn_config_t *c, uint64_t S, int P, int U, size_t elem, int pass) {
  cb_attn_heads_split_t h;
  char why[160];
  if (P <= 1 || U < 1 || P % U || cb_attn_heads_split(c->heads, c->kv_heads, U, &h, why, sizeof why)) return 0;
  const uint64_t L = S / (uint64_t)P, BLD = (uint64_t)c->batch * L * (uint64_t)c->head_dim, peers = (uint64_t)U - 1;
  const uint64_t qkv = (uint64_t)(h.q_heads + 2 * h.kv_heads), hu = (uint64_t)h.q_heads;
  const uint64_t fwd = peers * BLD * (qkv + hu) * elem, bwd = peers * BLD * (hu * elem + qkv * sizeof(float));
  cb_attn_config_t inner = *c;
  inner.heads = h.q_heads, inner.kv_heads = h.kv_heads;
  return (CB_ATTN_PASS_HAS_FWD(pass) ? fwd : 0) + (CB_ATTN_PASS_HAS_BWD(pass) ? bwd : 0) +
         cb_attn_pass_bytes(&inner, S, P / U, elem, pass);
}
