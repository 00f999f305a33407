/* -J FILE: the results in nccl-tests' own JSON schema (its -J output, version 3, as nccl-tests
 * 2.19's src/util.cu writes it), beside collbench's CSV and JSON, so that the tools written for
 * nccl-tests (its tools/analyze_perf_json.py) read a collbench run. Only rank 0 writes it, once
 * the run is over, through base/newfile.h.
 *
 * The mapping: nccl-tests prints one result per size (and type, op) with an out_of_place and an
 * in_place object; collbench compares several algorithms in one or two modes, so each result
 * here is one (size, dtype, op, mode, algorithm), its experiment_name "ALGO MODE", in the order
 * the rows finished; an untimed (skipped) side is null, as nccl-tests writes a side it did not
 * run. With -I 1 each side has nccl-tests' per-iteration object (min, max, avg, p50, p95, p99,
 * stdev, cv_pct, times_us: the slowest rank's time per iteration, and per_process_max_times_us:
 * every rank's). `average_bus_bandwidth` is nccl-tests' mean over every timed side in the file
 * (all algorithms); `per_algo` beside it holds collbench's line per algorithm. `env` holds only
 * the NCCL_* and CB_* variables (nccl-tests writes the whole environment, secrets included). */
#ifndef CB_REPORT_NCCLT_JSON_H
#define CB_REPORT_NCCLT_JSON_H

#include <stddef.h>

#include "args.h"
#include "avg_busbw.h"
#include "gate.h"
#include "row.h"
#include "strbuf.h"

/* One rank's line of nccl-tests' "devices" list. */
typedef struct cb_ncclt_device {
  int rank, pid, device;
  char host[256], busid[32], gpu[96];
} cb_ncclt_device_t;

/* What the file's head says about the run. */
typedef struct cb_ncclt_run {
  int argc;
  char **argv;
  const char *const *env; /* "NAME=value" (only NCCL_* and CB_* are written) */
  int nenv;
  int nccl_version; /* NCCL's version code (22803 for 2.28.3) */
  const cb_args_t *a;
  int ndevices;
  const cb_ncclt_device_t *devices;
} cb_ncclt_run_t;

struct cb_ncclt_json_result;

typedef struct cb_ncclt_json {
  char path[CB_PATH_MAX];
  cb_strbuf_t head; /* version .. config, each followed by ",\n" */
  struct cb_ncclt_json_result *res;
  int nres, cap;
  long long wrong; /* "out_of_bounds": wrong elements over every checked side */
  double bw_sum;   /* nccl-tests' average: every timed side's bus bandwidth */
  long bw_n;
} cb_ncclt_json_t;

/* Checks that path can be written (a folder or a device there is refused: -1 with why) and
 * notes the head (start time, arguments, environment, NCCL version, configuration). */
int cb_ncclt_json_open(cb_ncclt_json_t *j, const char *path, const cb_ncclt_run_t *run, char *why, size_t n);

/* One row (a round trip) of the run; per_rank_us: with -I 1, nranks x iters per-iteration
 * times, rank after rank (NULL otherwise). */
void cb_ncclt_json_row(cb_ncclt_json_t *j, const cb_row_t *r, const double *per_rank_us, int iters, int nranks);

/* The whole document as text (the results, the footer with the bar's verdict, end time). */
void cb_ncclt_json_text(const cb_ncclt_json_t *j, const cb_avg_busbw_t *avg, const cb_gate_t *g, cb_strbuf_t *out);

/* Writes the document to j->path (a new file renamed over it) and frees j. 0, or -1 with why. */
int cb_ncclt_json_close(cb_ncclt_json_t *j, const cb_avg_busbw_t *avg, const cb_gate_t *g, char *why, size_t n);

#endif
