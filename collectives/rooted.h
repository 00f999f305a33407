/* What the rooted families (broadcast, reduce, gather, scatter: family_rooted.c) and hypercube
 * (family_hypercube.c) share with their algorithms: the root option's configuration, where an
 * algorithm finds the root of a sweep point, and nccl-tests' per-rank chunk of the families whose
 * buffers hold one chunk per rank.
 *
 * The root travels as the group's variant (family.h nvariants): -r R runs variant R alone, and
 * nccl-tests' -r -1 ("every root in turn", src/broadcast.cu RunTest) runs variants 0..n-1, so
 * the engine loops over roots without knowing what a root is. */
#ifndef CB_ROOTED_H
#define CB_ROOTED_H

#include <stddef.h>

#include "params.h"
#include "row.h"

/* The most ranks -r -1 walks (the variants the engine loops over at each point); more ranks than
 * this with -r -1 is a usage error (check_ranks), one root at a time works at any count. */
#define CB_ROOTS_MAX 4096

typedef struct cb_rooted_config {
  int root; /* -r: 0..CB_ROOTS_MAX-1, or -1 for every root in turn (default 0) */
} cb_rooted_config_t;

/* The root rank of p (a rooted family's sweep point). */
static inline int cb_rooted_root(const cb_params_t *p) { return p->variant; }

/* nccl-tests' chunk for gather, scatter and hypercube (their GetCollByteCount): the elements of a
 * size split over nranks, rounded down to a multiple of 16 bytes' worth of elements. */
size_t cb_rooted_chunk(size_t elements, size_t elem_size, int nranks);

/* The plan() of the families sized by one chunk per rank (gather, scatter, hypercube): the size
 * column is nranks x chunk x elem (nccl-tests' max(sendBytes, recvBytes)), the count column the
 * chunk. A size that is not a whole number of elements is refused, as every family does, and so
 * is a chunk that rounds to 0 elements (nccl-tests prints a row of an empty call there). */
int cb_chunked_plan(cb_params_t *p, int nranks, char *why, size_t nwhy);

/* Their table on stdout: the classic one with the root after the op (rooted_table.c). */
extern const cb_table_t cb_rooted_table;

#endif
