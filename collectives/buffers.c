/* Implementation of buffers.h. */
#include "buffers.h"

#include <stdio.h>
#include <string.h>

#include "cb_limits.h"

cb_layout_t cb_family_layout(cb_family_t f) {
  const cb_family_info_t *fi = cb_family_info(f);
  return fi ? (cb_layout_t)fi->layout : CB_LAYOUT_ALLREDUCE;
}

/* a * b, or -1 when it overflows size_t */
static int mul(size_t a, size_t b, size_t *out) { return __builtin_mul_overflow(a, b, out) ? -1 : 0; }

int cb_plan_buffers(const cb_params_t *p, int nranks, int rank, cb_buffer_plan_t *o, char *why, size_t n_why) {
  return cb_plan_buffers_aligned(p, nranks, rank, 256, o, why, n_why);
}

int cb_plan_buffers_aligned(const cb_params_t *p, int nranks, int rank, size_t align, cb_buffer_plan_t *o, char *why,
                            size_t n_why) {
  const cb_family_info_t *fi = cb_family_info(p->family);
  size_t c = p->count, es = cb_dtype_size(p->dtype), n = (size_t)nranks;
  memset(o, 0, sizeof *o);
  int bad = mul(fi->send_all ? n : 1, c, &o->send_elems) || mul(fi->recv_all ? n : 1, c, &o->recv_elems);
  /* every product checked; with both buffers at most CB_MAX_BUFFER_BYTES the sums below
   * cannot overflow */
  size_t sb, rb, rank_off;
  if (bad || mul(o->send_elems, es, &sb) || mul(o->recv_elems, es, &rb) || mul((size_t)rank, c, &rank_off) ||
      mul(rank_off, es, &rank_off) || sb > CB_MAX_BUFFER_BYTES || rb > CB_MAX_BUFFER_BYTES) {
    snprintf(why, n_why, "%llu B x %d ranks: the buffers would pass the 1 TiB collbench can allocate",
             (unsigned long long)p->bytes, nranks);
    return -1;
  }
  if (p->inplace) {
    /* the smaller buffer at rank x count inside the larger (allgather: send = recv + rank * count) */
    o->send_off = o->send_elems < o->recv_elems ? rank_off : 0;
    o->recv_off = o->recv_elems < o->send_elems ? rank_off : 0;
    o->total_bytes = CB_ALIGN_UP(sb > rb ? sb : rb, align);
  } else {
    o->send_off = 0;
    o->recv_off = CB_ALIGN_UP(sb, align);
    o->total_bytes = o->recv_off + CB_ALIGN_UP(rb, align);
  }
  if (o->total_bytes == 0) o->total_bytes = align;
  return 0;
}

void cb_inst_set_buffers(cb_inst_t *in, void *base, const cb_buffer_plan_t *plan) {
  in->send = (char *)base + plan->send_off;
  in->recv = (char *)base + plan->recv_off;
  in->send_elems = plan->send_elems;
  in->recv_elems = plan->recv_elems;
}
