/* Implementation of ncclt_names.h: the table of nccl-tests 2.19.6's binaries (src/Makefile). */
#include "ncclt_names.h"

#include <stdio.h>
#include <string.h>

const cb_ncclt_binary_t cb_ncclt_binaries[] = {
    {"all_reduce_perf", "allreduce", CB_NCCLT_REDOP_OP, 0, NULL},
    {"all_gather_perf", "allgather", CB_NCCLT_REDOP_NONE, 0, NULL},
    {"broadcast_perf", "broadcast", CB_NCCLT_REDOP_NONE, 1, NULL},
    {"reduce_scatter_perf", "reducescatter", CB_NCCLT_REDOP_OP, 0, NULL},
    {"reduce_perf", "reduce", CB_NCCLT_REDOP_OP, 1, NULL},
    {"alltoall_perf", "alltoall", CB_NCCLT_REDOP_NONE, 0, NULL},
    {"scatter_perf", "scatter", CB_NCCLT_REDOP_NONE, 1, NULL},
    {"gather_perf", "gather", CB_NCCLT_REDOP_NONE, 1, NULL},
    {"sendrecv_perf", "sendrecv", CB_NCCLT_REDOP_GIVEN, 0, NULL},
    {"hypercube_perf", "hypercube", CB_NCCLT_REDOP_EMPTY, 0, NULL},
    {"alltoallv_perf", "alltoallv", CB_NCCLT_REDOP_NONE, 0, "--counts"},
    {NULL, NULL, CB_NCCLT_REDOP_NONE, 0, NULL},
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
