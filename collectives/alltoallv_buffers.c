/* Implementation of alltoallv_algo.h: the counts, the buffer layout and the check shared by both
 * alltoallv algorithms. The check compares on the host: alltoallv moves bytes and computes
 * nothing, so the result is bit-exact and one memcmp per element says right or wrong. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alltoallv_algo.h"
#include "cb_limits.h"
#include "check.h"
#include "error_gpu.h"

int cb_a2av_inst_counts(const cb_inst_t *in, cb_a2av_counts_t *k, char *why, size_t n) {
  return cb_a2av_counts_make(cb_a2av_cfg(&in->p), in->p.point, cb_dtype_size(in->p.dtype), in->world->mpi.nranks,
                             in->p.seed, k, why, n);
}

cb_a2av_layout_t cb_a2av_layout(const cb_a2av_counts_t *k) {
  cb_a2av_layout_t l;
  l.send_bytes = (size_t)k->max_send;
  l.recv_bytes = (size_t)k->max_recv;
  l.recv_off = CB_ALIGN_UP(l.send_bytes, 256);
  l.total_bytes = l.recv_off + CB_ALIGN_UP(l.recv_bytes, 256);
  if (l.total_bytes == 0) l.total_bytes = 256;
  return l;
}

void cb_a2av_set_buffers(cb_inst_t *in, void *base, const cb_a2av_layout_t *l) {
  size_t es = cb_dtype_size(in->p.dtype);
  in->send = base;
  in->recv = (char *)base + l->recv_off;
  in->send_elems = l->send_bytes / es;
  in->recv_elems = l->recv_bytes / es;
}

long long cb_a2av_check(cb_inst_t *in, cudaStream_t s, uint64_t seed, int iter) {
  const cb_a2av_counts_t *k = in->priv; /* the first member of every alltoallv algorithm's state */
  const cb_params_t *p = &in->p;
  int r = in->world->mpi.rank, n = in->world->mpi.nranks;
  size_t es = cb_dtype_size(p->dtype), rb = in->recv_elems * es;

  CB_CUDA(cudaMemsetAsync(in->recv, 0xFF, rb, s));
  cb_fill_pattern(p->dtype, in->send, (size_t)cb_a2av_send_total(k, r) / es, seed, r, n, iter, 0, s);
  for (int ph = 0; ph < in->algo->nphases; ph++) in->algo->run(in, ph, s);

  /* what must arrive, made by the same fill kernel into a scratch buffer */
  char *want_d = NULL;
  char *got = malloc(rb ? rb : 1), *want = malloc(rb ? rb : 1);
  if (!got || !want) CB_DIE(CB_EXIT_RUNTIME, "alltoallv check: out of host memory (%zu B)", 2 * rb);
  if (rb) {
    CB_CUDA(cudaMalloc((void **)&want_d, rb));
    CB_CUDA(cudaMemsetAsync(want_d, 0xFF, rb, s));
    for (int i = 0; i < n; i++) {
      size_t cell = (size_t)cb_a2av_cell(k, i, r);
      if (cell == 0) continue;
      cb_fill_pattern(p->dtype, want_d + cb_a2av_recv_offset(k, i, r), cell / es, seed, i, n, iter,
                      cb_a2av_send_offset(k, i, r) / es, s);
    }
    CB_CUDA(cudaMemcpyAsync(got, in->recv, rb, cudaMemcpyDeviceToHost, s));
    CB_CUDA(cudaMemcpyAsync(want, want_d, rb, cudaMemcpyDeviceToHost, s));
  }
  cb_wait_stream(s); /* polled: a lost peer ends as a timeout (exit 4) */
  if (want_d) CB_CUDA(cudaFree(want_d));
  long long wrong = 0;
  size_t first = 0;
  for (size_t e = 0; e < in->recv_elems; e++)
    if (memcmp(got + e * es, want + e * es, es) != 0 && wrong++ == 0) first = e;
  in->digest = 0;
  if (wrong) {
    /* the source whose block holds the first wrong element */
    int src = -1;
    for (int i = 0; i < n && src < 0; i++) {
      uint64_t o = cb_a2av_recv_offset(k, i, r);
      if (first * es >= o && first * es < o + cb_a2av_cell(k, i, r)) src = i;
    }
    char from[48];
    if (src >= 0) snprintf(from, sizeof from, "in the block from rank %d", src);
    else snprintf(from, sizeof from, "past the received blocks");
    CB_WARN("alltoallv %s %s %s %llu B: %lld of %zu elements wrong; first at element %zu, %s", in->algo->name,
            cb_dtype_name(p->dtype), cb_a2av_cfg(p)->text, (unsigned long long)p->bytes, wrong, in->recv_elems, first,
            from);
  }
  free(got);
  free(want);
  return wrong;
}
