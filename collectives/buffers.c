/* Implementation of buffers.h. */
#include "buffers.h"

#include "cb_limits.h"

cb_layout_t cb_family_layout(cb_family_t f) {
  switch (f) {
  case CB_ALLGATHER: return CB_LAYOUT_ALLGATHER;
  case CB_REDUCESCATTER: return CB_LAYOUT_REDUCESCATTER;
  case CB_ALLTOALL: return CB_LAYOUT_ALLTOALL;
  case CB_SENDRECV: return CB_LAYOUT_SENDRECV;
  default: return CB_LAYOUT_ALLREDUCE;
  }
}

void cb_plan_buffers(const cb_params_t *p, int nranks, int rank, cb_buffer_plan_t *o) {
  size_t c = p->count, es = cb_dtype_size(p->dtype), n = (size_t)nranks;
  switch (p->family) {
  case CB_ALLGATHER: o->send_elems = c; o->recv_elems = n * c; break;
  case CB_REDUCESCATTER: o->send_elems = n * c; o->recv_elems = c; break;
  case CB_ALLTOALL: o->send_elems = n * c; o->recv_elems = n * c; break;
  default: o->send_elems = c; o->recv_elems = c; break;
  }
  size_t sb = o->send_elems * es, rb = o->recv_elems * es;
  if (p->inplace) {
    o->send_off = o->recv_off = 0;
    if (p->family == CB_ALLGATHER) o->send_off = (size_t)rank * c * es;
    if (p->family == CB_REDUCESCATTER) o->recv_off = (size_t)rank * c * es;
    o->total_bytes = CB_ALIGN_UP(sb > rb ? sb : rb, 256);
  } else {
    o->send_off = 0;
    o->recv_off = CB_ALIGN_UP(sb, 256);
    o->total_bytes = o->recv_off + CB_ALIGN_UP(rb, 256);
  }
  if (o->total_bytes == 0) o->total_bytes = 256;
}

void cb_inst_set_buffers(cb_inst_t *in, void *base, const cb_buffer_plan_t *plan) {
  in->send = (char *)base + plan->send_off;
  in->recv = (char *)base + plan->recv_off;
  in->send_elems = plan->send_elems;
  in->recv_elems = plan->recv_elems;
}
