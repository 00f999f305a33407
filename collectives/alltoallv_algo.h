/* What both alltoallv algorithms (nccl_alltoallv.c, alltoallv_peer.c) share on the CUDA side
 * (alltoallv_buffers.c): the counts of the instance's point, the buffer layout, and the check.
 *
 * Every rank's allocation is laid out the same (the peer kernel writes into its peers'):
 *   [ send: the largest per-rank send total | pad to 256 B | recv: the largest receive total ]
 * A rank's send buffer holds its blocks in destination order, its receive buffer the blocks
 * it receives in source order (nccl-tests' layout); past its own totals the buffers are unused.
 * The algorithms' private state starts with a cb_a2av_counts_t (the check reads it there). */
#ifndef CB_ALLTOALLV_ALGO_H
#define CB_ALLTOALLV_ALGO_H

#include "alltoallv_family.h"
#include "collective.h"

typedef struct cb_a2av_layout {
  size_t send_bytes, recv_off, recv_bytes, total_bytes;
} cb_a2av_layout_t;

/* The counts at in's point on in's world. 0, or -1 with why. */
int cb_a2av_inst_counts(const cb_inst_t *in, cb_a2av_counts_t *k, char *why, size_t n);
/* The layout above for counts k (total rounded to 256 B, at least 256). */
cb_a2av_layout_t cb_a2av_layout(const cb_a2av_counts_t *k);
/* Points in->send / in->recv into base per the layout. */
void cb_a2av_set_buffers(cb_inst_t *in, void *base, const cb_a2av_layout_t *l);
/* The check (collective.h check()): seeded inputs as nccl-tests' (rank r's send buffer is
 * pattern(seed, r, iter, 0..)), the receive buffer poisoned, every phase run, then every byte of
 * the receive buffer compared with what it must hold: source i's block at its offset holds
 * pattern(seed, i, iter, offset of my block in i's send buffer ..), the rest still poison.
 * The counts are the first member of in->priv. */
long long cb_a2av_check(cb_inst_t *in, cudaStream_t s, uint64_t seed, int iter);

#endif
