/* Implementation of overlap.h. */
#include "overlap.h"

#include <math.h>
#include <stdio.h>

#include "busy.h"
#include "error_gpu.h"
#include "stats.h"

#define CB_BUSY_CALIBRATION_STEPS 4096LL
#define CB_BUSY_MIN_US 50.0     /* the kernel lasts at least this long, however short the round trips */
#define CB_BUSY_MAX_US 500000.0 /* and at most this long (well inside the watchdog's -T) */
#define CB_CHECK_BUSY_US 2000.0 /* the kernel beside the check: its host steps come first */
/* the stream waits this long (plus 20 us per round trip) while the host queues a run's launches */
#define CB_GATE_NS 100000LL
#define CB_GATE_NS_PER_ITER 20000LL

enum { RUN_BUSY = 1, RUN_COMM = 2 };

typedef struct run_env {
  const cb_overlap_ops_t *ops;
  cudaStream_t s, s2;
  cudaEvent_t ev[3];
  int blocks, smem, iters;
  float *sink;
} run_env_t;

static double elapsed_us(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0.0f;
  CB_CUDA(cudaEventElapsedTime(&ms, a, b));
  return 1000.0 * ms;
}

static double median(double *v) { return cb_percentile(v, CB_OVERLAP_RUNS, 50.0); }

/* One timed run of the compute kernel (steps), the round trips, or both, from one start. */
static void one_run(const run_env_t *e, int what, long long steps, double *busy_us, double *comm_us) {
  e->ops->lineup(e->ops->ctx, e->s);
  cb_busy_gate(CB_GATE_NS + CB_GATE_NS_PER_ITER * e->iters, e->s);
  CB_CUDA(cudaEventRecord(e->ev[0], e->s));
  if (what & RUN_BUSY) {
    CB_CUDA(cudaStreamWaitEvent(e->s2, e->ev[0], 0));
    cb_busy_launch(e->blocks, steps, e->smem, e->sink, e->s2);
    CB_CUDA(cudaEventRecord(e->ev[1], e->s2));
  }
  if (what & RUN_COMM) {
    e->ops->launch(e->ops->ctx, e->s);
    CB_CUDA(cudaEventRecord(e->ev[2], e->s));
  }
  cb_wait_stream(e->s);
  cb_wait_stream(e->s2);
  if (busy_us) *busy_us = elapsed_us(e->ev[0], e->ev[1]);
  if (comm_us) *comm_us = elapsed_us(e->ev[0], e->ev[2]) / e->iters;
}

/* Steps for a kernel of about target_us, from one that took t_us with `steps`. */
static long long steps_for(long long steps, double t_us, double target_us) {
  if (!(t_us > 0.0) || !isfinite(t_us)) t_us = 1.0;
  double next = (double)steps * target_us / t_us;
  return next < 1.0 ? 1 : (long long)next;
}

int cb_overlap_measure(int sm_count, int comm_sms, double comm_alone_us, int iters, cudaStream_t s,
                       const cb_overlap_ops_t *ops, cb_overlap_t *out, char *why, size_t n) {
  run_env_t e = {.ops = ops, .s = s, .blocks = sm_count - comm_sms, .iters = iters > 0 ? iters : 1};
  if (comm_sms < 0 || e.blocks < 1) {
    snprintf(why, n, "no SM left for the compute kernel: the algorithm takes %d of the GPU's %d", comm_sms, sm_count);
    return -1;
  }
  e.smem = cb_busy_setup();
  CB_CUDA(cudaMalloc((void **)&e.sink, cb_busy_sink_floats(e.blocks) * sizeof(float)));
  CB_CUDA(cudaStreamCreateWithFlags(&e.s2, cudaStreamNonBlocking));
  for (int i = 0; i < 3; i++) CB_CUDA(cudaEventCreate(&e.ev[i]));

  /* calibration, two passes (a short first launch carries its start-up in its time) */
  double target = comm_alone_us * e.iters;
  if (!isfinite(target) || target < CB_BUSY_MIN_US) target = CB_BUSY_MIN_US;
  if (target > CB_BUSY_MAX_US) target = CB_BUSY_MAX_US;
  long long steps = CB_BUSY_CALIBRATION_STEPS;
  double t = 0.0;
  for (int pass = 0; pass < 2; pass++) {
    one_run(&e, RUN_BUSY, steps, &t, NULL);
    steps = steps_for(steps, t, target);
  }
  double busy_alone[CB_OVERLAP_RUNS], comm_alone[CB_OVERLAP_RUNS], busy[CB_OVERLAP_RUNS], comm[CB_OVERLAP_RUNS];
  for (int r = 0; r < CB_OVERLAP_RUNS; r++) { /* alternating, so drift hits all three alike */
    one_run(&e, RUN_BUSY, steps, &busy_alone[r], NULL);
    one_run(&e, RUN_COMM, steps, NULL, &comm_alone[r]);
    one_run(&e, RUN_BUSY | RUN_COMM, steps, &busy[r], &comm[r]);
  }
  out->busy_sms = e.blocks;
  out->compute_alone_us = median(busy_alone);
  out->compute_loaded_us = median(busy);
  out->comm_alone_us = median(comm_alone);
  out->comm_loaded_us = median(comm);

  /* a check with the SMs taken: the compute kernel first, long enough to cover the check's
   * host steps (fill, poison, barrier) and its launches */
  out->wrong = -1;
  if (ops->check) {
    double check_us = target > CB_CHECK_BUSY_US ? target : CB_CHECK_BUSY_US;
    ops->lineup(ops->ctx, s);
    CB_CUDA(cudaEventRecord(e.ev[0], s));
    CB_CUDA(cudaStreamWaitEvent(e.s2, e.ev[0], 0));
    cb_busy_launch(e.blocks, steps_for(steps, out->compute_alone_us, check_us), e.smem, e.sink, e.s2);
    out->wrong = ops->check(ops->ctx, s);
    cb_wait_stream(e.s2);
  }

  for (int i = 0; i < 3; i++) CB_CUDA(cudaEventDestroy(e.ev[i]));
  CB_CUDA(cudaStreamDestroy(e.s2));
  CB_CUDA(cudaFree(e.sink));
  return 0;
}
