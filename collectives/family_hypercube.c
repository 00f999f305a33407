/* The hypercube family (family.h), as nccl-tests 2.19's hypercube_perf measures it
 * (src/hypercube.cu): an all-gather done as log2(n) rounds of pairwise exchanges, in round k
 * rank r swapping with r ^ 2^k the 2^k chunks it holds, so it needs a power-of-two rank count.
 *
 * Its arithmetic is nccl-tests': the per-rank chunk c as gather's (rooted.h cb_rooted_chunk), the
 * size column n x c x elem, the count column c, algbw = (n-1) x c x elem / time (the bytes each
 * rank receives: algbw_received) and busbw = algbw. It has no root and no op. */
#include <stdio.h>

#include "check_layout.h"
#include "family.h"
#include "rooted.h"

static int check_ranks(const void *config, int nranks, const cb_dtype_t *dtypes, int ndtypes, char *why, size_t n) {
  if (nranks & (nranks - 1)) {
    snprintf(why, n, "hypercube exchanges with rank ^ 2^k each round: it needs a power-of-two rank count (%d ranks)",
             nranks);
    return -1;
  }
  return 0;
}

static int plan(cb_params_t *p, int nranks, const char *mode, char *what, size_t nwhat, char *why, size_t nwhy) {
  int rc = cb_chunked_plan(p, nranks, why, nwhy);
  snprintf(what, nwhat, "hypercube %s %llu B %s %s", cb_dtype_name(p->dtype), (unsigned long long)p->bytes,
           p->inplace ? "in-place" : "out-of-place", mode);
  return rc;
}

/* the receive buffer holds every rank's chunk in rank order: an all-gather's layout */
const cb_family_info_t cb_family_hypercube = {.name = "hypercube",
                                              .default_dtype = CB_FLOAT,
                                              .nvtx_letter = 'B',
                                              .has_inplace = 1,
                                              .check_ranks = check_ranks,
                                              .plan = plan,
                                              .busbw_num = 1.0,
                                              .busbw_den_adj = 1.0,
                                              .algbw_received = 1,
                                              .layout = CB_LAYOUT_ALLGATHER,
                                              .recv_all = 1};
