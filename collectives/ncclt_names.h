/* The nccl-tests 2.19 binaries collbench's drop-in answers to (build/nccl-tests/<name>_perf,
 * links to collbench; launcher/ncclt_main.h): each one's collbench family, by NAME (the drop-in
 * looks it up with cb_family_parse, so a family added later works once it is in the build), and
 * how nccl-tests fills its table's redop and root columns for it. Here, beside the family
 * registry, because launcher/ names no family. One table: test cpu_ncclt_names checks the
 * CMake rule's links (launcher/CMakeLists.txt) against it. */
#ifndef CB_NCCLT_NAMES_H
#define CB_NCCLT_NAMES_H

#include <stddef.h>

/* What nccl-tests prints in the redop column of a binary. */
typedef enum cb_ncclt_redop {
  CB_NCCLT_REDOP_OP,    /* the reduction of the row (all_reduce, reduce_scatter, reduce) */
  CB_NCCLT_REDOP_NONE,  /* "none" (all_gather, alltoall, broadcast, gather, scatter, alltoallv) */
  CB_NCCLT_REDOP_GIVEN, /* the -o name though nothing is reduced (sendrecv: "sum" by default) */
  CB_NCCLT_REDOP_EMPTY, /* an empty field (hypercube) */
} cb_ncclt_redop_t;

typedef struct cb_ncclt_binary {
  const char *name;   /* "all_reduce_perf" */
  const char *family; /* collbench's family name: "allreduce" */
  cb_ncclt_redop_t redop;
  int rooted; /* takes -r: the root column shows the root (else -1) */
  /* the family's option for nccl-tests' NCCL_TESTS_ALLTOALLV_* count modes (MATRIX_FILE=F ->
   * "OPTION matrix:F", SPREAD=S -> "OPTION spread:S"); NULL: the binary ignores them */
  const char *counts_option;
} cb_ncclt_binary_t;

/* The binaries, NULL-name terminated, in nccl-tests' Makefile order. */
extern const cb_ncclt_binary_t cb_ncclt_binaries[];

/* The basename of path when it ends in "_perf" (a drop-in name, known or not), else NULL. */
const char *cb_ncclt_perf_name(const char *path);

/* The binary called name (a basename), or NULL. */
const cb_ncclt_binary_t *cb_ncclt_binary(const char *name);

/* The names joined by ", " into buf; returns buf. */
const char *cb_ncclt_binary_list(char *buf, size_t n);

#endif
