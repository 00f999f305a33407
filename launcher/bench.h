/* The bench engine: for every cycle (-N), sweep point, dtype, op, placement, family variant and mode, runs the selected
 * algorithms side by side (set up together, interleaved A B A B in rounds so drift hits all
 * alike), times them with CUDA events around each round (per iteration with --timing iter,
 * and always for multi-phase algorithms; eager launches, or the rounds captured in CUDA
 * graphs), checks them on fresh seeded data, aggregates across ranks and reports rows. */
#ifndef CB_BENCH_H
#define CB_BENCH_H

#include "args.h"
#include "avg_busbw.h"
#include "collective.h"
#include "report.h"
#include "watchdog.h"

typedef struct cb_bench {
  const cb_world_t *w;
  const cb_args_t *a;
  cb_report_t *rep; /* rank 0; NULL on other ranks */
  cb_watchdog_t *wd;
  const cb_algo_t *algos[CB_MAX_ALGOS];
  int nalgos;
  void *sync_buf;              /* 4 bytes the engine all-reduces to line GPUs up before a timed round */
  int warmed;                  /* the run's first group has had its untimed lead-in round (bench_round.c) */
  cb_avg_busbw_t avg;          /* rank 0: # Avg bus bandwidth per algorithm */
  struct cb_ncclt_json *ncclt; /* rank 0 with -J: nccl-tests' JSON (report_ncclt_json.h); else NULL */
  /* results, valid on every rank */
  long long wrong_total;
  int rows, rows_skipped, validate_failures;
} cb_bench_t;

void cb_bench_run(cb_bench_t *b);

/* Splits iters into interleaving rounds: the largest of 4, 3, 2, 1 that divides iters. */
int cb_bench_rounds(int iters);

#endif
