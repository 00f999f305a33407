/* The generic correctness check (collective.h) and the default byte accounting: fresh seeded
 * inputs (the op's pattern, kernels/pattern.cuh), outputs poisoned (0xFF bytes, NaN in every
 * floating dtype; 0x80 bytes for the integers, a value no right answer takes: pattern.cuh), so
 * an unwritten element always fails, one run of every phase, device-side verification
 * (kernels/check.cu). */
#include <stdio.h>

#include "buffers.h"
#include "collective.h"
#include "error_gpu.h"
#include "pattern.cuh"

long long cb_check_generic(cb_inst_t *in, cudaStream_t s, uint64_t seed, int iter) {
  const cb_params_t *p = &in->p;
  int rank = in->world->mpi.rank, n = in->world->mpi.nranks;
  size_t es = cb_dtype_size(p->dtype);
  cb_layout_t layout = cb_family_layout(p->family);
  int op = p->op == CB_OP_NONE ? CB_SUM : p->op;
  /* the rooted families' root (family.h rooted); reduce and gather define only its output */
  int root = cb_family_info(p->family)->rooted ? p->variant : 0;
  size_t nverify = cb_layout_root_only(layout) && rank != root ? 0 : in->recv_elems;

  CB_CUDA(cudaMemsetAsync(in->recv, cb_pattern_poison_byte(p->dtype), in->recv_elems * es, s));
  cb_fill_pattern_op(p->dtype, op, in->send, in->send_elems, seed, rank, n, iter, 0, s);
  for (int ph = 0; ph < in->algo->nphases; ph++) in->algo->run(in, ph, s);

  cb_verify_result_t *d_res = NULL, res;
  CB_CUDA(cudaMalloc((void **)&d_res, sizeof *d_res));
  cb_verify(layout, p->dtype, op, in->recv, nverify, p->count, rank, n, root, seed, iter, d_res, s);
  CB_CUDA(cudaMemcpyAsync(&res, d_res, sizeof res, cudaMemcpyDeviceToHost, s));
  cb_wait_stream(s); /* polled: a lost peer ends as a timeout (exit 4) */
  CB_CUDA(cudaFree(d_res));
  in->digest = res.digest;
  if (res.wrong) {
    size_t i = (size_t)res.first_bad;
    double got = cb_read_element(p->dtype, in->recv, i);
    double want = cb_expected_host(layout, p->dtype, op, i, p->count, rank, n, root, seed, iter);
    CB_WARN("%s %s %s %s %llu B %s: %llu of %zu elements wrong; first at element %zu: got %g, expected %g",
            cb_family_name(p->family), in->algo->name, cb_dtype_name(p->dtype), cb_redop_name(p->op),
            (unsigned long long)p->bytes, p->inplace ? "in-place" : "out-of-place", res.wrong, in->recv_elems, i, got,
            want);
  }
  return (long long)res.wrong;
}

void cb_bytes_default(const cb_inst_t *in, int phase, cb_bytes_t *out) {
  out->algbw_bytes = cb_family_algbw_bytes(in->p.family, in->p.bytes, in->world->mpi.nranks);
  out->busbw_factor = cb_busbw_factor(in->p.family, in->world->mpi.nranks);
  out->remote_bytes = 0.0;
}
