/* collbench moe --overlap: an algorithm's round trips beside a compute-bound kernel
 * (kernels/busy.h) on the SMs it leaves free, the number that says whether a communication
 * path that takes fewer SMs actually helps a training step (issue 14). On every rank:
 *   1. the compute kernel sized to last about as long as `iters` round trips alone (two
 *      calibration passes);
 *   2. three times, alternating: the compute kernel alone, the `iters` round trips alone, and
 *      both started together (the kernel on a second stream, the round trips on the bench
 *      stream). Each of these runs first lines the GPUs up (ops->lineup), then holds the stream
 *      in a short wait kernel while the host queues every launch, then starts the clock (one
 *      event); each part is timed from that start to its own end, so launch latency and the
 *      other stream's start cost count alike alone and together;
 *   3. one correctness check of the algorithm while the compute kernel runs beside it (unless
 *      ops->check is NULL: -c 0).
 * The slowdowns are the medians together over the medians alone. The compute kernel is FMA
 * chains in registers: it takes SMs, not memory bandwidth, so a real GEMM beside the same
 * traffic would slow the communication at least as much (a lower bound on interference). */
#ifndef CB_OVERLAP_H
#define CB_OVERLAP_H

#include <cuda_runtime.h>
#include <stddef.h>

#define CB_OVERLAP_RUNS 3

typedef struct cb_overlap {
  int busy_sms;             /* SMs the compute kernel took */
  double comm_alone_us;     /* one round trip alone (median of the runs) */
  double comm_loaded_us;    /* one round trip beside the kernel (median of the runs) */
  double compute_alone_us;  /* the compute kernel alone (median) */
  double compute_loaded_us; /* the same kernel beside the round trips (median) */
  long long wrong;          /* wrong elements of the check beside the kernel (this rank; -1: none run) */
} cb_overlap_t;

typedef struct cb_overlap_ops {
  void *ctx;
  void (*lineup)(void *ctx, cudaStream_t s);     /* collective: line the GPUs up on s */
  void (*launch)(void *ctx, cudaStream_t s);     /* `iters` round trips on s, no host wait */
  long long (*check)(void *ctx, cudaStream_t s); /* one correctness check on s, waited for: wrong elements
                                                  * (NULL: none) */
} cb_overlap_ops_t;

/* comm_sms: the SMs the algorithm's kernels occupy (0: none, the copy engine), sm_count: the
 * GPU's; comm_alone_us (the row's round trip) only sizes the compute kernel. Every rank calls
 * it with the same iters (the round trips and ops->lineup are collective). Returns 0, or -1
 * with why when no SM is left for the compute kernel (the caller agrees on that across ranks
 * first, so no rank returns early alone). */
int cb_overlap_measure(int sm_count, int comm_sms, double comm_alone_us, int iters, cudaStream_t s,
                       const cb_overlap_ops_t *ops, cb_overlap_t *out, char *why, size_t n);

#endif
