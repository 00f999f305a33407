/* Implementation of overlap.h. */
#include "overlap.h"

#include <stdio.h>
#include <stdlib.h>

#include "busy.h"
#include "error_gpu.h"

#define CB_OVERLAP_RUNS 3
#define CB_BUSY_CALIBRATION_STEPS 4096LL
#define CB_BUSY_MIN_US 50.0 /* the kernel lasts at least this long, however short the round trips */

static double elapsed_us(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0.0f;
  CB_CUDA(cudaEventElapsedTime(&ms, a, b));
  return 1000.0 * ms;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median3(double *v) {
  qsort(v, CB_OVERLAP_RUNS, sizeof *v, cmp_double);
  return v[CB_OVERLAP_RUNS / 2];
}

/* The compute kernel alone on stream s2: its time in us. */
static double busy_alone(int blocks, long long steps, int smem, float *sink, cudaStream_t s2, cudaEvent_t *ev) {
  CB_CUDA(cudaEventRecord(ev[0], s2));
  cb_busy_launch(blocks, steps, smem, sink, s2);
  CB_CUDA(cudaEventRecord(ev[1], s2));
  cb_wait_stream(s2);
  return elapsed_us(ev[0], ev[1]);
}

int cb_overlap_measure(int sm_count, int comm_sms, double comm_alone_us, int iters, cudaStream_t s,
                       void (*launch)(void *ctx, cudaStream_t s), void *ctx, cb_overlap_t *out, char *why, size_t n) {
  const int blocks = sm_count - comm_sms;
  if (comm_sms < 0 || blocks < 1) {
    snprintf(why, n, "no SM left for the compute kernel: the algorithm takes %d of the GPU's %d", comm_sms, sm_count);
    return -1;
  }
  const int smem = cb_busy_setup();
  float *sink = NULL;
  CB_CUDA(cudaMalloc((void **)&sink, cb_busy_sink_floats(blocks) * sizeof(float)));
  cudaStream_t s2;
  CB_CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t ev[4];
  for (int i = 0; i < 4; i++) CB_CUDA(cudaEventCreate(&ev[i]));

  /* calibration: steps for about iters round trips' time, in two passes (the short first launch
   * carries its start-up in its time and came out ~15 % short) */
  double target = comm_alone_us * iters;
  if (target < CB_BUSY_MIN_US) target = CB_BUSY_MIN_US;
  long long steps = CB_BUSY_CALIBRATION_STEPS;
  for (int pass = 0; pass < 2; pass++) {
    double t = busy_alone(blocks, steps, smem, sink, s2, ev);
    double next = (double)steps * target / (t > 0.0 ? t : 1.0);
    steps = next < 1.0 ? 1 : next > 1e15 ? (long long)1e15 : (long long)next;
  }
  double alone[CB_OVERLAP_RUNS], comm_alone[CB_OVERLAP_RUNS], comm[CB_OVERLAP_RUNS], busy[CB_OVERLAP_RUNS];
  for (int r = 0; r < CB_OVERLAP_RUNS; r++) alone[r] = busy_alone(blocks, steps, smem, sink, s2, ev);
  /* the round trips alone, timed as below (one event before the launches, one after: the
   * graph launch's own latency is in both) */
  for (int r = 0; r < CB_OVERLAP_RUNS; r++) {
    CB_CUDA(cudaEventRecord(ev[0], s));
    launch(ctx, s);
    CB_CUDA(cudaEventRecord(ev[2], s));
    cb_wait_stream(s);
    comm_alone[r] = elapsed_us(ev[0], ev[2]) / iters;
  }

  for (int r = 0; r < CB_OVERLAP_RUNS; r++) {
    /* both from one start: the kernel first (it takes its SMs), the round trips right after */
    CB_CUDA(cudaEventRecord(ev[0], s));
    CB_CUDA(cudaStreamWaitEvent(s2, ev[0], 0));
    cb_busy_launch(blocks, steps, smem, sink, s2);
    CB_CUDA(cudaEventRecord(ev[1], s2));
    launch(ctx, s);
    CB_CUDA(cudaEventRecord(ev[2], s));
    cb_wait_stream(s);
    cb_wait_stream(s2);
    busy[r] = elapsed_us(ev[0], ev[1]);
    comm[r] = elapsed_us(ev[0], ev[2]) / iters;
  }
  out->busy_sms = blocks;
  out->compute_alone_us = median3(alone);
  out->compute_loaded_us = median3(busy);
  out->comm_loaded_us = median3(comm);
  out->comm_alone_us = median3(comm_alone);

  for (int i = 0; i < 4; i++) CB_CUDA(cudaEventDestroy(ev[i]));
  CB_CUDA(cudaStreamDestroy(s2));
  CB_CUDA(cudaFree(sink));
  return 0;
}
