/* The describers of the five nccl-tests collectives (family.h): one shape, parameterized by what
 * nccl-tests' doc/PERFORMANCE.md says of each (whether it reduces, has an in-place form, counts
 * per rank, its bus-bandwidth factor). They sweep bytes with -b/-e/-f/-i/--sizes, default to
 * float, have no options or columns of their own and print the classic table. */
#include <stdio.h>

#include "family.h"
#include "params.h"

/* The point in bytes; the count column as nccl-tests computes it (cb_family_count). */
static int plan(cb_params_t *p, int nranks, const char *mode, char *what, size_t nwhat, char *why, size_t nwhy) {
  p->bytes = p->point;
  snprintf(what, nwhat, "%s %s %s %llu B %s %s", cb_family_name(p->family), cb_dtype_name(p->dtype),
           cb_redop_name(p->op), (unsigned long long)p->bytes, p->inplace ? "in-place" : "out-of-place", mode);
  return cb_family_count(p->family, p->bytes, cb_dtype_size(p->dtype), nranks, &p->elements, &p->count, why, nwhy);
}

/* allreduce's results are bit-identical on every rank (fixed reduction order, kernels/reduce.cuh):
 * the engine compares their digests */
#define CLASSIC(ident, fname, reduce, inplace, per_rank, num, den_adj, identical) \
  const cb_family_info_t ident = {.name = fname,                                  \
                                  .reduces = reduce,                              \
                                  .has_inplace = inplace,                         \
                                  .default_dtype = CB_FLOAT,                      \
                                  .nvtx_letter = 'B',                             \
                                  .plan = plan,                                   \
                                  .identical_outputs = identical,                 \
                                  .count_per_rank = per_rank,                     \
                                  .busbw_num = num,                               \
                                  .busbw_den_adj = den_adj}

/* busbw = num x (n - 1 + den_adj) / n: allreduce 2(n-1)/n; allgather, reducescatter, alltoall
 * (n-1)/n; sendrecv 1 */
CLASSIC(cb_family_allreduce, "allreduce", 1, 1, 0, 2.0, 0.0, 1);
CLASSIC(cb_family_allgather, "allgather", 0, 1, 1, 1.0, 0.0, 0);
CLASSIC(cb_family_reducescatter, "reducescatter", 1, 1, 1, 1.0, 0.0, 0);
CLASSIC(cb_family_alltoall, "alltoall", 0, 0, 1, 1.0, 0.0, 0);
CLASSIC(cb_family_sendrecv, "sendrecv", 0, 0, 0, 1.0, 1.0, 0);
