/* The family registry (family.h): one line per family, in the order --help and the family list
 * name them, and the arithmetic every family's describer shares (nccl-tests' bus-bandwidth
 * factors and count columns). */
#include "family.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

extern const cb_family_info_t cb_family_allreduce, cb_family_allgather, cb_family_reducescatter, cb_family_alltoall,
    cb_family_sendrecv, cb_family_moe, cb_family_ringattn, cb_family_alltoallv;

static const cb_family_info_t *const families[CB_NFAMILIES] = {
    [CB_ALLREDUCE] = &cb_family_allreduce,         [CB_ALLGATHER] = &cb_family_allgather,
    [CB_REDUCESCATTER] = &cb_family_reducescatter, [CB_ALLTOALL] = &cb_family_alltoall,
    [CB_SENDRECV] = &cb_family_sendrecv,           [CB_MOE] = &cb_family_moe,
    [CB_RINGATTN] = &cb_family_ringattn,           [CB_ALLTOALLV] = &cb_family_alltoallv,
};

const cb_family_info_t *cb_family_info(cb_family_t f) { return (unsigned)f < CB_NFAMILIES ? families[f] : NULL; }

const char *cb_family_name(cb_family_t f) { return (unsigned)f < CB_NFAMILIES ? families[f]->name : "?"; }

int cb_family_parse(const char *s, cb_family_t *out) {
  for (int f = 0; f < CB_NFAMILIES; f++)
    if (strcasecmp(s, families[f]->name) == 0) {
      *out = (cb_family_t)f;
      return 0;
    }
  return -1;
}

const char *cb_family_accepted(const char *sep, char *buf, size_t n) {
  size_t off = 0;
  buf[0] = 0;
  for (int f = 0; f < CB_NFAMILIES && off < n; f++)
    off += (size_t)snprintf(buf + off, n - off, "%s%s", f ? sep : "", families[f]->name);
  return buf;
}

/* busbw factors, from nccl-tests' doc/PERFORMANCE.md:
 *   allreduce: each rank sends and receives 2(n-1)/n of the buffer in a ring;
 *   allgather, reducescatter, alltoall: (n-1)/n of the total buffer crosses links;
 *   sendrecv: the whole buffer crosses one link. */
double cb_busbw_factor(cb_family_t f, int nranks) {
  const cb_family_info_t *fi = cb_family_info(f);
  if (!fi || nranks < 1) return 0.0;
  /* busbw_den_adj = 1 turns (n-1)/n into n/n = 1 (sendrecv, moe). */
  return fi->busbw_num * ((double)nranks - 1.0 + fi->busbw_den_adj) / (double)nranks;
}

int cb_family_count(cb_family_t f, size_t bytes, size_t elem_size, int nranks, size_t *elements, size_t *count,
                    char *why, size_t n) {
  const cb_family_info_t *fi = cb_family_info(f);
  if (!fi || elem_size == 0 || nranks < 1) {
    snprintf(why, n, "invalid family, element size or rank count");
    return -1;
  }
  if (bytes > CB_MAX_BUFFER_BYTES) {
    snprintf(why, n, "%zu B is larger than the %llu B (1 TiB) per-rank buffer collbench can allocate", bytes,
             CB_MAX_BUFFER_BYTES);
    return -1;
  }
  if (bytes % elem_size) {
    snprintf(why, n, "%zu B is not a whole number of %zu-byte elements", bytes, elem_size);
    return -1;
  }
  size_t elems = bytes / elem_size;
  if (fi->count_per_rank && elems % (size_t)nranks) {
    snprintf(why, n, "%zu elements do not divide among %d ranks", elems, nranks);
    return -1;
  }
  *elements = elems;
  *count = fi->count_per_rank ? elems / (size_t)nranks : elems;
  return 0;
}
