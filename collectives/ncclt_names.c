/* Implementation of ncclt_names.h: the table of nccl-tests 2.19.6's binaries (src/Makefile). */
#include "ncclt_names.h"

#include <stdio.h>
#include <string.h>

const cb_ncclt_binary_t cb_ncclt_binaries[] = {
    {"all_reduce_perf", "allreduce", CB_NCCLT_REDOP_OP, 0, 0},
    {"all_gather_perf", "allgather", CB_NCCLT_REDOP_NONE, 0, 0},
    {"broadcast_perf", "broadcast", CB_NCCLT_REDOP_NONE, 1, 0},
    {"reduce_scatter_perf", "reducescatter", CB_NCCLT_REDOP_OP, 0, 0},
    {"reduce_perf", "reduce", CB_NCCLT_REDOP_OP, 1, 0},
    {"alltoall_perf", "alltoall", CB_NCCLT_REDOP_NONE, 0, 0},
    {"scatter_perf", "scatter", CB_NCCLT_REDOP_NONE, 1, 0},
    {"gather_perf", "gather", CB_NCCLT_REDOP_NONE, 1, 0},
    {"sendrecv_perf", "sendrecv", CB_NCCLT_REDOP_GIVEN, 0, 0},
    {"hypercube_perf", "hypercube", CB_NCCLT_REDOP_EMPTY, 0, 0},
    {"alltoallv_perf", "alltoallv", CB_NCCLT_REDOP_NONE, 0, 1},
    {NULL, NULL, CB_NCCLT_REDOP_NONE, 0, 0},
};

const char *cb_ncclt_perf_name(const char *path) {
  if (!path) return NULL;
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  size_t len = strlen(base);
  return len > 5 && strcmp(base + len - 5, "_perf") == 0 ? base : NULL;
}

const cb_ncclt_binary_t *cb_ncclt_binary(const char *name) {
  for (const cb_ncclt_binary_t *b = cb_ncclt_binaries; b->name; b++)
    if (strcmp(b->name, name) == 0) return b;
  return NULL;
}

const char *cb_ncclt_binary_list(char *buf, size_t n) {
  size_t off = 0;
  buf[0] = 0;
  for (const cb_ncclt_binary_t *b = cb_ncclt_binaries; b->name && off < n; b++)
    off += (size_t)snprintf(buf + off, n - off, "%s%s", b == cb_ncclt_binaries ? "" : ", ", b->name);
  return buf;
}
