/* Host-callable launchers of the custom all-reduce kernels (kernels/allreduce_oneshot.cu,
 * allreduce_oneshot_ll.cu, allreduce_twoshot.cu, allreduce_twoshot_pull.cu,
 * allreduce_twoshot_ce.cu): their launch arguments, scratch sizes and grid rules. Each rank's
 * peer allocation (collectives/peer_kernel.h) is laid out identically on every rank:
 *
 *   [ data: send | recv (buffers.h) ][ scratch ][ signal pad (CB_SIGNAL_PAD_BYTES) ]
 *                                    ^scratch_off ^pad_off
 *
 * so a kernel reaches any peer's recv, scratch or pad as base[q] + offset. */
#ifndef CB_ALLREDUCE_H
#define CB_ALLREDUCE_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "cb_limits.h"
#include "grid.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_ar_launch {
  void *base[CB_MAX_RANKS];                     /* every rank's allocation, mapped here (local rank order) */
  const void *in;                               /* this rank's input (local) */
  void *out;                                    /* this rank's output (local; = base[rank] + out_off) */
  size_t in_off, out_off, scratch_off, pad_off; /* in_off: this call's input, the same on every rank */
  uint32_t *epoch; /* per-block barrier epochs, device memory of this rank (CB_SIGNAL_MAX_BLOCKS words) */
  size_t count;    /* elements */
  size_t chunk;    /* twoshot_ce: elements per chunk of a shard (a multiple of 16 bytes) */
  int rank, nranks, dtype, op;
  int blocks, threads;
  uint64_t timeout_ns; /* device spin timeout */
  unsigned int *ctl;   /* host-mapped control words (signal_pad.h CB_CTL_*) */
} cb_ar_launch_t;

/* Scratch bytes each algorithm needs per rank (twoshot_ce stages like twoshot; twoshot_pull
 * stages nothing). */
size_t cb_ar_oneshot_scratch(size_t count, int dtype, int nranks);
size_t cb_ar_twoshot_scratch(size_t count, int dtype, int nranks);
size_t cb_ar_oneshot_ll_scratch(size_t count, int dtype, int nranks);

/* Grid for a size; the same on every rank (depends only on count, dtype, nranks and the grid
 * limits, which the world agrees on across ranks). twoshot_pull and twoshot_ce use twoshot's
 * rule with their own default cap. */
void cb_ar_oneshot_grid(size_t count, int dtype, int nranks, const cb_grid_limits_t *g, int *blocks, int *threads);
void cb_ar_twoshot_grid(size_t count, int dtype, int nranks, const cb_grid_limits_t *g, int *blocks, int *threads);
void cb_ar_oneshot_ll_grid(size_t count, int dtype, int nranks, const cb_grid_limits_t *g, int *blocks, int *threads);

void cb_ar_oneshot_launch(const cb_ar_launch_t *a, cudaStream_t s);
void cb_ar_twoshot_launch(const cb_ar_launch_t *a, cudaStream_t s);
void cb_ar_oneshot_ll_launch(const cb_ar_launch_t *a, cudaStream_t s);
void cb_ar_twoshot_pull_launch(const cb_ar_launch_t *a, cudaStream_t s);
/* twoshot's halves alone (hier): reduce-scatter into my output's shard (barrier slot 0), and
 * all-gather of my output's shard into every peer's output (barrier slot 1); each half needs
 * its own epoch array. */
void cb_ar_twoshot_rs_launch(const cb_ar_launch_t *a, cudaStream_t s);
void cb_ar_twoshot_ag_launch(const cb_ar_launch_t *a, cudaStream_t s);
/* twoshot_ce: the reducing kernel only (the copies and flags are queued by the host side), and
 * the address of ready flag (chunk, src) in a pad. */
void cb_ar_twoshot_ce_launch(const cb_ar_launch_t *a, cudaStream_t s);
uint32_t *cb_ar_twoshot_ce_ready_flag(void *pad, int chunk, int src);

#ifdef __cplusplus
}
#endif
#endif
