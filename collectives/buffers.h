/* Buffer layout of the classic families, shared by NCCL baselines and custom algorithms so the
 * generic check finds inputs and outputs in the same places (nccl-tests' layout):
 *
 *   family         send elems   recv elems   in-place
 *   allreduce      c            c            send = recv
 *   allgather      c            n*c          send = recv + rank*c
 *   reducescatter  n*c          c            recv = send + rank*c
 *   alltoall       n*c          n*c          (no in-place)
 *   sendrecv       c            c            (no in-place)
 *   broadcast      c            c            send = recv
 *   reduce         c            c            send = recv
 *   gather         c            n*c          send = recv + rank*c (the root's: recv + root*c, as NCCL)
 *   scatter        n*c          c            recv = send + rank*c
 *   hypercube      c            n*c          send = recv + rank*c
 *
 * One allocation holds both: [send | pad to 256 B | recv] out-of-place, the larger of the two
 * in place. Offsets are in bytes and 256-byte aligned, so 16-byte vector kernels can use them. */
#ifndef CB_BUFFERS_H
#define CB_BUFFERS_H

#include <stddef.h>

#include "check.h"
#include "collective.h"

typedef struct cb_buffer_plan {
  size_t send_elems, recv_elems;
  size_t send_off, recv_off; /* bytes from the allocation's start */
  size_t total_bytes;
} cb_buffer_plan_t;

/* Plans the allocation; returns -1 with why when a size product overflows or a buffer would
 * pass CB_MAX_BUFFER_BYTES (cb_family_count rejects such sizes first; this is the last guard
 * before cudaMalloc). */
int cb_plan_buffers(const cb_params_t *p, int nranks, int rank, cb_buffer_plan_t *out, char *why, size_t n);
/* The same with the recv offset and the total rounded to `align` bytes (a power of two >= 256)
 * instead of 256: NCCL's window registration wants 4096. */
int cb_plan_buffers_aligned(const cb_params_t *p, int nranks, int rank, size_t align, cb_buffer_plan_t *out, char *why,
                            size_t n);
cb_layout_t cb_family_layout(cb_family_t f);

/* Points in->send / in->recv into base per the plan and records the element counts. */
void cb_inst_set_buffers(cb_inst_t *in, void *base, const cb_buffer_plan_t *plan);

#endif
