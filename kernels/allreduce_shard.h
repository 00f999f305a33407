/* How the two-shot all-reduces (twoshot, twoshot_pull, twoshot_ce) cut a message, written once
 * for the kernels and the host code that queues copies or sizes scratch: a count-element
 * message is cut into nranks shards of L elements, L = ceil(count / nranks) rounded up to whole
 * 16-byte vectors, and rank q owns shard q = elements [q·L, q·L + len_q) where len_q is what is
 * left of the message there (the last shards may be short or empty). twoshot_ce cuts each
 * shard again into chunks the same way. */
#ifndef CB_ALLREDUCE_SHARD_H
#define CB_ALLREDUCE_SHARD_H

#include <stddef.h>

#include "hostdev.h"

/* L: elements per shard, a multiple of 16 / elem_bytes. */
CB_HD size_t cb_ar_shard_elems(size_t count, size_t elem_bytes, int nranks) {
  size_t N = 16 / elem_bytes, per = (count + (size_t)nranks - 1) / (size_t)nranks;
  return (per + N - 1) / N * N;
}

/* Elements of piece i when `total` elements are cut into pieces of `piece`: piece, or the
 * ragged rest, or 0 past the end. */
CB_HD size_t cb_piece_len(size_t total, size_t piece, size_t i) {
  size_t start = i * piece, len = total > start ? total - start : 0;
  return len < piece ? len : piece;
}

#endif
