/* Host-callable launchers of the one-shot peer-memory rooted kernels (kernels/broadcast_peer.cu,
 * reduce_peer.cu). Each rank's peer allocation (collectives/peer_kernel.h) is laid out the same
 * on every rank:
 *
 *   [ data: send | recv (buffers.h) ][ signal pad (CB_SIGNAL_PAD_BYTES) ]
 *                                    ^pad_off
 *
 * with no staging: both kernels pull straight from the peers' send buffers, so a kernel reaches
 * rank q's input as base[q] + in_off. Both use two barriers per call (signal.cuh
 * cb_block_barrier, slots 0 and 1): the start one says every rank's input of this call is
 * written, the end one that nobody still reads an input its owner may overwrite next. */
#ifndef CB_ROOTED_ONESHOT_H
#define CB_ROOTED_ONESHOT_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "cb_limits.h"
#include "grid.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_rooted_launch {
  void *base[CB_MAX_RANKS]; /* every rank's allocation, mapped here (rank order: one node) */
  const void *in;           /* this rank's input (local; = base[rank] + in_off) */
  void *out;                /* this rank's output (local) */
  size_t in_off, pad_off;   /* the same on every rank */
  uint32_t *epoch;          /* per-block barrier epochs, this rank's device memory (CB_SIGNAL_MAX_BLOCKS words) */
  size_t count;             /* elements */
  int rank, nranks, root, dtype, op;
  int blocks, threads;
  uint64_t timeout_ns; /* device spin timeout */
  unsigned int *ctl;   /* host-mapped control words (signal_pad.h CB_CTL_*) */
} cb_rooted_launch_t;

/* The grid for count elements of dtype: one 16-byte vector per thread per block, capped by g;
 * the same on every rank. */
void cb_rooted_peer_grid(size_t count, int dtype, const cb_grid_limits_t *g, int *blocks, int *threads);

/* broadcast: every rank copies the root's input into its output (the root too, unless in place). */
void cb_broadcast_peer_launch(const cb_rooted_launch_t *a, cudaStream_t s);
/* reduce: the root reduces every rank's input, in rank order, into its output; the others only
 * take part in the barriers. */
void cb_reduce_peer_launch(const cb_rooted_launch_t *a, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
