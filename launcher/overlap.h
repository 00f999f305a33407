/* collbench moe --overlap: an algorithm's round trips beside a compute-bound kernel
 * (kernels/busy.h) on the SMs it leaves free, the number that says whether a communication
 * path that takes fewer SMs actually helps a training step (issue 14). On every rank:
 *   1. the compute kernel alone on (the GPU's SMs - the algorithm's), sized to last about as
 *      long as `iters` round trips alone (a calibration launch, then a median of 3);
 *   2. three times: the `iters` round trips alone, from an event before their launches to one
 *      after (so the launch latency counts as it does in 3);
 *   3. three times: both started together (the kernel on a second stream, the iterations on
 *      the bench stream, after one event), each timed from the common start to its own end.
 * The slowdowns are times together over times alone (medians of 3). The compute kernel is FMA chains in
 * registers: it takes SMs, not memory bandwidth, so a real GEMM beside the same traffic would
 * slow the communication at least as much (a lower bound on interference). */
#ifndef CB_OVERLAP_H
#define CB_OVERLAP_H

#include <cuda_runtime.h>
#include <stddef.h>

typedef struct cb_overlap {
  int busy_sms;             /* SMs the compute kernel took */
  double comm_alone_us;     /* one round trip alone, timed the same way (median of 3) */
  double comm_loaded_us;    /* one round trip beside the kernel (median of the 3 runs) */
  double compute_alone_us;  /* the compute kernel alone (median of 3) */
  double compute_loaded_us; /* the same kernel beside the round trips (median of the 3 runs) */
} cb_overlap_t;

/* launch(ctx, s) puts `iters` round trips on s (no host waits; graph or eager). comm_sms: the
 * SMs the algorithm's kernels occupy (0: none, the copy engine), sm_count: the GPU's; comm_alone_us: one round trip
 * alone. The caller lines the ranks up before (every rank calls with the same iters; the
 * round trips are collective); comm_alone_us (the row's round trip) only sizes the compute
 * kernel. Returns 0, or -1 with why when no SM is left for the kernel. */
int cb_overlap_measure(int sm_count, int comm_sms, double comm_alone_us, int iters, cudaStream_t s,
                       void (*launch)(void *ctx, cudaStream_t s), void *ctx, cb_overlap_t *out, char *why, size_t n);

#endif
