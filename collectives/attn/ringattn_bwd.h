/* The backward pass's shared pieces (issue 34): its buffers (ringattn_state.h's cb_ra_bwd_t),
 * the start every backward makes, and the block-pair schedules more than one scheme runs. The
 * pairs themselves go through the row's block kernel (ringattn_block_kernel.h); the schemes'
 * own schedules are theirs (ringattn_ring_bwd.c: peer memory on the copy engine;
 * ringattn_nccl_bwd.c: ncclSend/ncclRecv; nccl_allgather's and single's in their own files).
 * Every pass starts from zero (cb_ra_bwd_begin): the block kernels only add. */
#ifndef CB_RINGATTN_BWD_H
#define CB_RINGATTN_BWD_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "ringattn_state.h"

/* The backward buffers of x (home: a dkv the scheme provides, e.g. in peer memory; NULL:
 * allocated here; parts: also allocate `part`), dout filled from seed, and, for --pass bwd, the
 * untimed forward that gives out and lse (computed locally with collbench's kernel from the
 * whole sequence's K/V made from the same seed: no communication in setup). Then the block
 * kernel's backward state and its probe (bwd_init). Returns 0 or -1 with why. */
int cb_ra_bwd_init(cb_ra_t *x, const cb_inst_t *in, float *home, int parts, char *why, size_t n);
/* Frees the buffers cb_ra_bwd_init allocated (again: nothing). */
void cb_ra_bwd_free(cb_ra_t *x);

/* Start of every backward: the block kernel's start (collbench's delta), dq = 0. */
void cb_ra_bwd_begin(const cb_ra_t *x, cudaStream_t s);

/* The local backward alone on one S/P block with contiguous positions (the bwd part of
 * ring_over_single's denominator). */
void cb_ra_bwd_local(cb_inst_t *in, cudaStream_t s);

/* The ring forms' compute alone (their measure()): the backward's start, then for every step i
 * the sums cleared (step 0: acc0, later: part), the pair against kv_slot[i % 2] (step 0: the
 * own block) and, from step 1, d[i % 2] += part; on whatever the slots hold. */
void cb_ra_bwd_ring_compute(const cb_ra_t *x, void *const kv_slot[2], float *acc0, float *const d[2], cudaStream_t s);

/* The single rank's backward (`single` and P = 1): one pair, straight into the home dkv. */
void cb_ra_bwd_single(cb_inst_t *in, cudaStream_t s);

#endif
