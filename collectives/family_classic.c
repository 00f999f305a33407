/* The describers of the five nccl-tests collectives (family.h): one shape, parameterized by what
 * nccl-tests' doc/PERFORMANCE.md says of each (whether it reduces, has an in-place form, counts
 * per rank, its bus-bandwidth factor). They sweep bytes with -b/-e/-f/-i/--sizes, default to
 * float, have no options or columns of their own and print the classic table. */
#include <stdio.h>

#include "check_layout.h"
#include "family.h"
#include "params.h"

/* The point in bytes; the count column as nccl-tests computes it (cb_family_count). */
static int plan(cb_params_t *p, int nranks, const char *mode, char *what, size_t nwhat, char *why, size_t nwhy) {
  p->bytes = p->point;
  snprintf(what, nwhat, "%s %s %s %llu B %s %s", cb_family_name(p->family), cb_dtype_name(p->dtype),
           cb_redop_name(p->op), (unsigned long long)p->bytes, p->inplace ? "in-place" : "out-of-place", mode);
  return cb_family_count(p->family, p->bytes, cb_dtype_size(p->dtype), nranks, &p->elements, &p->count, why, nwhy);
}

/* What every classic family shares: bytes swept with the size options, float by default, the
 * point planned as above, the classic table (no columns or table of their own). */
#define CB_CLASSIC .default_dtype = CB_FLOAT, .nvtx_letter = 'B', .plan = plan

/* busbw = busbw_num x (n - 1 + busbw_den_adj) / n: allreduce 2(n-1)/n; allgather, reducescatter,
 * alltoall (n-1)/n; sendrecv 1. Buffers as nccl-tests lays them out: allgather receives,
 * reducescatter sends, alltoall does both for every rank (n x count). allreduce's results are
 * bit-identical on every rank (fixed reduction order, kernels/reduce.cuh): the engine compares
 * their digests. */
const cb_family_info_t cb_family_allreduce = {.name = "allreduce",
                                              CB_CLASSIC,
                                              .reduces = 1,
                                              .has_inplace = 1,
                                              .identical_outputs = 1,
                                              .busbw_num = 2.0,
                                              .layout = CB_LAYOUT_ALLREDUCE};
const cb_family_info_t cb_family_allgather = {.name = "allgather",
                                              CB_CLASSIC,
                                              .has_inplace = 1,
                                              .count_per_rank = 1,
                                              .busbw_num = 1.0,
                                              .layout = CB_LAYOUT_ALLGATHER,
                                              .recv_all = 1};
const cb_family_info_t cb_family_reducescatter = {.name = "reducescatter",
                                                  CB_CLASSIC,
                                                  .reduces = 1,
                                                  .has_inplace = 1,
                                                  .count_per_rank = 1,
                                                  .busbw_num = 1.0,
                                                  .layout = CB_LAYOUT_REDUCESCATTER,
                                                  .send_all = 1};
const cb_family_info_t cb_family_alltoall = {.name = "alltoall",
                                             CB_CLASSIC,
                                             .count_per_rank = 1,
                                             .busbw_num = 1.0,
                                             .layout = CB_LAYOUT_ALLTOALL,
                                             .send_all = 1,
                                             .recv_all = 1};
const cb_family_info_t cb_family_sendrecv = {
    .name = "sendrecv", CB_CLASSIC, .busbw_num = 1.0, .busbw_den_adj = 1.0, .layout = CB_LAYOUT_SENDRECV};
