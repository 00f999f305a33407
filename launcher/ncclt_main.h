/* The nccl-tests drop-in (docs/nccl-tests.md): collbench started under an nccl-tests binary's
 * name (build/nccl-tests/all_reduce_perf, a link to collbench) reads nccl-tests' command line
 * (ncclt_args.h), starts G ranks itself for -g G outside mpirun, and prints nccl-tests' table
 * (ncclt_table.h) instead of collbench's; the run between (MPI, the world, the bench engine,
 * the watchdog, the checks, --csv/--json) is collbench's own, in launcher/main.c. */
#ifndef CB_NCCLT_MAIN_H
#define CB_NCCLT_MAIN_H

#include "bench.h"
#include "meta.h"
#include "ncclt_args.h"
#include "ncclt_table.h"
#include "report.h"

typedef struct cb_ncclt {
  cb_ncclt_opts_t opts;
  cb_ncclt_table_t table; /* rank 0 */
} cb_ncclt_t;

/* 1 when argv0's basename ends in "_perf": main hands the run to the drop-in. */
int cb_ncclt_named(const char *argv0);

/* Before MPI: argv (nccl-tests') becomes collbench's in argc and argv (pointing into d) and -1
 * is returned; or the exit code: 0 after -h, 2 after one line on stderr (bad input, -g > 1
 * under mpirun). -g G > 1 outside mpirun replaces this process with mpirun -np G running the
 * same binary with -g 1 (returns only when that cannot start: 3). */
int cb_ncclt_begin(cb_ncclt_t *d, int *argc, char ***argv);

/* Rank 0: nccl-tests' header (from the run's metadata) and the first table's heading into out,
 * and the report's rows routed into the table. */
void cb_ncclt_start(cb_ncclt_t *d, const cb_meta_t *m, const cb_bench_t *b, cb_report_t *r, cb_strbuf_t *out);

/* Rank 0: the footers on stdout; returns the exit code for collbench's code: 7 for a wrong
 * value or a bandwidth below NCCL_TESTS_MIN_BW x 0.9 (nccl-tests' testNumResults), else code. */
int cb_ncclt_finish(cb_ncclt_t *d, int code);

#endif
