/* The nccl-tests drop-in's output (launcher/ncclt_table.c) from fixed rows, without a GPU:
 * `test_ncclt_table CASE` prints what the drop-in would print for the case on stdout, for
 * check_ncclt_format.py to hold against real nccl-tests output (tests/cpu/CMakeLists.txt), and
 * checks here what the text cannot show (the exit code, the pairing). Cases:
 *   allreduce  the rows of the anchor all_reduce-np2.txt (2 ranks, -b 8 -e 1M -f 8 -n 5 -w 2):
 *              the output must equal that file but for the version and algorithm lines
 *   iter       the rows of all_reduce-np2-iter.txt (-b 8 -e 64K -f 8 -n 10 -w 2 -I 1): nccl-tests'
 *              per-iteration columns; the output must equal that file the same way
 *   alltoall   a family without an in-place form: the in-place group reads N/A
 *   sendrecv   a binary whose redop column shows -o though it does not reduce
 *   multi      two algorithms interleaved as the engine reports them, a skipped row, a wrong
 *              value: two tables, exit 7
 *   minbw      NCCL_TESTS_MIN_BW above the average: "FAILED", exit 7; below it: "OK", exit 0
 *   names      the binary names (collectives/ncclt_names.c), one a line
 *   fail       nccl-tests' failure lines (launcher/ncclt_fail.c) for the NCCL failure of
 *              all_reduce-g1-all.txt and the exit-7 trace line of all_reduce-g1-minbw.txt, with
 *              those files' host, pid, file and line: the script finds each line in its file */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cb_testing.h"
#include "iter_stats.h"
#include "ncclt_fail.h"
#include "ncclt_table.h"

static const char *no_env(const char *name) {
  (void)name;
  return NULL;
}
static const char *g_minbw;
static const char *minbw_env(const char *name) { return strcmp(name, "NCCL_TESTS_MIN_BW") == 0 ? g_minbw : NULL; }

/* The anchor's numbers: size, count, then time, algbw, busbw out of place and in place. */
static const double kAllreduce[][8] = {
    {8, 2, 44.82, 0.00, 0.00, 44.60, 0.00, 0.00},          {64, 16, 34.31, 0.00, 0.00, 35.05, 0.00, 0.00},
    {512, 128, 68.10, 0.01, 0.01, 53.60, 0.01, 0.01},      {4096, 1024, 71.39, 0.06, 0.06, 52.65, 0.08, 0.08},
    {32768, 8192, 135.27, 0.24, 0.24, 108.86, 0.30, 0.30}, {262144, 65536, 340.52, 0.77, 0.77, 342.32, 0.77, 0.77},
};

/* The -I 1 anchor's numbers: size, count, then time, algbw, busbw, i_min, i_max, i_p99, i_cv%
 * out of place and the same in place. */
static const double kIter[][16] = {
    {8, 2, 30.07, 0.00, 0.00, 24.16, 62.82, 62.82, 35.21, 29.15, 0.00, 0.00, 24.74, 43.65, 43.65, 19.90},
    {64, 16, 31.69, 0.00, 0.00, 26.56, 64.93, 64.93, 35.48, 29.36, 0.00, 0.00, 26.50, 44.54, 44.54, 17.33},
    {512, 128, 34.78, 0.01, 0.01, 28.96, 43.58, 43.58, 10.75, 36.75, 0.01, 0.01, 31.30, 69.44, 69.44, 30.00},
    {4096, 1024, 42.40, 0.10, 0.10, 35.68, 72.03, 72.03, 25.06, 39.18, 0.10, 0.10, 33.44, 73.92, 73.92, 29.31},
    {32768, 8192, 92.01, 0.36, 0.36, 84.32, 112.19, 112.19, 7.93, 94.77, 0.35, 0.35, 83.71, 127.46, 127.46, 12.01},
};

static cb_row_t row(const char *algo, const double *v, int inplace, const char *op) {
  cb_row_t r;
  memset(&r, 0, sizeof r);
  r.algo = algo;
  r.dtype = "float";
  r.op = op;
  r.mode = "eager";
  r.bytes = (uint64_t)v[0];
  r.count = (uint64_t)v[1];
  r.inplace = inplace;
  r.timed = 1;
  r.time_us_mean = v[inplace ? 5 : 2];
  r.algbw_gbs = v[inplace ? 6 : 3];
  r.busbw_gbs = v[inplace ? 7 : 4];
  r.wrong = 0;
  return r;
}

static int g_pid = 4132; /* the anchor's first process id */

static int run(const char *binary, const char *const *args, int nargs, cb_ncclt_getenv_fn env, const char *const *algos,
               int nalgos, int inplace, void (*feed)(cb_ncclt_table_t *), cb_strbuf_t *out) {
  char *argv[32] = {(char *)binary};
  for (int i = 0; i < nargs; i++) argv[i + 1] = (char *)args[i];
  static cb_ncclt_opts_t o;
  char err[512];
  if (cb_ncclt_translate(nargs + 1, argv, env, &o, err, sizeof err) != CB_NCCLT_OK) {
    fprintf(stderr, "translate: %s\n", err);
    exit(2);
  }
  const cb_ncclt_rank_t ranks[] = {{0, g_pid, 0, "vnode0", "0000:00:06.0", "NVIDIA H200"},
                                   {1, g_pid + 1, 0, "vnode1", "0000:00:06.0", "NVIDIA H200"}};
  cb_ncclt_header_t h = {&o, "0.0.0", 22803, 22803, 2, ranks};
  cb_ncclt_header(&h, out);
  static cb_ncclt_table_t t;
  cb_ncclt_table_init(&t, &o, algos, nalgos, inplace, NULL, out);
  feed(&t);
  return cb_ncclt_table_end(&t, out);
}

static const char *const kArgs[] = {"-b", "8", "-e", "1M", "-f", "8", "-n", "5", "-w", "2"};
static const char *const kNccl[] = {"nccl"};

/* As the engine reports: every size's out-of-place rows, then its in-place rows. */
static void feed_allreduce(cb_ncclt_table_t *t) {
  for (size_t i = 0; i < sizeof kAllreduce / sizeof kAllreduce[0]; i++)
    for (int ip = 0; ip < 2; ip++) {
      cb_row_t r = row("nccl", kAllreduce[i], ip, "sum");
      cb_ncclt_table_row(t, &r);
    }
}

static void feed_iter(cb_ncclt_table_t *t) {
  for (size_t i = 0; i < sizeof kIter / sizeof kIter[0]; i++)
    for (int ip = 0; ip < 2; ip++) {
      const double *v = kIter[i], *g = v + 2 + 7 * ip;
      const double plain[8] = {v[0], v[1], v[2], v[3], v[4], v[9], v[10], v[11]};
      cb_row_t r = row("nccl", plain, ip, "sum");
      r.iter_min_us = g[3];
      r.iter_max_us = g[4];
      r.iter_p99_us = g[5];
      r.iter_cv_pct = g[6];
      cb_ncclt_table_row(t, &r);
    }
}

static void feed_none(cb_ncclt_table_t *t) {
  for (size_t i = 0; i < sizeof kAllreduce / sizeof kAllreduce[0]; i++) {
    cb_row_t r = row("nccl", kAllreduce[i], 0, "none");
    cb_ncclt_table_row(t, &r);
  }
}

static void feed_sendrecv(cb_ncclt_table_t *t) {
  for (size_t i = 0; i < sizeof kAllreduce / sizeof kAllreduce[0]; i++)
    for (int ip = 0; ip < 2; ip++) {
      cb_row_t r = row("nccl", kAllreduce[i], ip, "none");
      if (ip) r.wrong = -1; /* sendrecv in place: timed, not checked (N/A) */
      cb_ncclt_table_row(t, &r);
    }
}

/* Both algorithms' out-of-place rows, then both in-place (the engine's order); oneshot's
 * largest size is not supported, and its 4096 B in-place row has 3 wrong elements. */
static void feed_multi(cb_ncclt_table_t *t) {
  for (size_t i = 0; i < sizeof kAllreduce / sizeof kAllreduce[0]; i++)
    for (int ip = 0; ip < 2; ip++)
      for (int k = 0; k < 2; k++) {
        cb_row_t r = row(k ? "oneshot" : "nccl", kAllreduce[i], ip, "sum");
        if (k && i == 5) {
          r.timed = 0;
          snprintf(r.note, sizeof r.note, "not supported: larger than the one-shot limit");
        }
        if (k && i == 3 && ip) r.wrong = 3, r.wrong_ranks = 2; /* 3 values, on 2 ranks */
        if (k && i == 4 && !ip) r.wrong = 1, r.wrong_ranks = 1;
        cb_ncclt_table_row(t, &r);
      }
}

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "";
  cb_strbuf_t out;
  cb_sb_init(&out);
  int code = -1;
  if (strcmp(c, "allreduce") == 0) {
    code = run("all_reduce_perf", kArgs, 10, no_env, kNccl, 1, 1, feed_allreduce, &out);
    CHECK_EQ_INT(code, 0);
  } else if (strcmp(c, "iter") == 0) {
    static const char *const args[] = {"-b", "8", "-e", "64K", "-f", "8", "-n", "10", "-w", "2", "-I", "1"};
    g_pid = 6152;
    code = run("all_reduce_perf", args, 12, no_env, kNccl, 1, 1, feed_iter, &out);
    CHECK_EQ_INT(code, 0);
    /* nccl-tests' summary of the 8 B out-of-place times of all_reduce-np2-iter.json */
    static const double times[] = {62.816001, 29.536, 26.624,    28.767999, 28.448001,
                                   26.624,    25.216, 26.784001, 28.16,     24.16};
    cb_iter_stats_t st;
    cb_iter_stats(times, 10, &st);
    CHECK(fabs(st.min - 24.16) < 1e-9 && fabs(st.max - 62.816001) < 1e-9, "min %g max %g", st.min, st.max);
    CHECK(fabs(st.avg - 30.7136) < 1e-6 && fabs(st.p50 - 28.16) < 1e-9 && fabs(st.p95 - 62.816001) < 1e-9,
          "avg %g p50 %g p95 %g", st.avg, st.p50, st.p95);
    CHECK(fabs(st.p99 - 62.816001) < 1e-9 && fabs(st.stdev - 10.814133) < 1e-6 && fabs(st.cv_pct - 35.209592) < 1e-5,
          "p99 %g stdev %g cv %g", st.p99, st.stdev, st.cv_pct);
  } else if (strcmp(c, "alltoall") == 0) {
    code = run("alltoall_perf", kArgs, 10, no_env, kNccl, 1, 0, feed_none, &out);
    CHECK_EQ_INT(code, 0);
  } else if (strcmp(c, "sendrecv") == 0) {
    code = run("sendrecv_perf", kArgs, 10, no_env, kNccl, 1, 1, feed_sendrecv, &out);
    CHECK_EQ_INT(code, 0);
  } else if (strcmp(c, "multi") == 0) {
    const char *const algos[] = {"nccl", "oneshot"};
    code = run("all_reduce_perf", kArgs, 10, no_env, algos, 2, 1, feed_multi, &out);
    CHECK_EQ_INT(code, CB_NCCLT_EXIT_RESULTS);
    /* nccl-tests counts a rank's half with wrong values once: 2 + 1 */
    CHECK_CONTAINS(out.s, "# Out of bounds values : 3 FAILED");
    CHECK_CONTAINS(out.s, "# collbench algorithm: oneshot");
    CHECK_CONTAINS(out.s, "out-of-place not run: not supported: larger than the one-shot limit");
  } else if (strcmp(c, "minbw") == 0) {
    /* the average is 0.186667 GB/s: the gate is 0.9 x NCCL_TESTS_MIN_BW, as nccl-tests' */
    g_minbw = "0.21";
    code = run("all_reduce_perf", kArgs, 10, minbw_env, kNccl, 1, 1, feed_allreduce, &out);
    CHECK_EQ_INT(code, CB_NCCLT_EXIT_RESULTS);
    CHECK_CONTAINS(out.s, "# Avg bus bandwidth    : 0.186667 FAILED\n");
    cb_strbuf_t ok;
    cb_sb_init(&ok);
    g_minbw = "0.2";
    CHECK_EQ_INT(run("all_reduce_perf", kArgs, 10, minbw_env, kNccl, 1, 1, feed_allreduce, &ok), 0);
    CHECK_CONTAINS(ok.s, "# Avg bus bandwidth    : 0.186667 OK\n");
    cb_sb_free(&ok);
  } else if (strcmp(c, "fail") == 0) {
    char text[1024];
    cb_ncclt_fail_text(CB_FAILED_NCCL, "vm", 6178, "/src/collbench/all_reduce.cu", 507,
                       "invalid argument (run with NCCL_DEBUG=WARN for details) / ", text, sizeof text);
    cb_sb_printf(&out, "%s", text);
    cb_ncclt_trace_text("vm", 6227, "common.cu", 1454, text, sizeof text);
    cb_sb_printf(&out, "%s", text);
    cb_ncclt_fail_text(CB_FAILED_CUDA, "node1", 42, "kernels/x.cu", 9, "out of memory", text, sizeof text);
    CHECK_EQ_STR(text, "node1: Test CUDA failure x.cu:9 'out of memory'\n .. node1 pid 42: Test failure x.cu:9\n");
    code = 0;
  } else if (strcmp(c, "names") == 0) { /* the binary table, for the check of build/nccl-tests/ */
    for (const cb_ncclt_binary_t *b = cb_ncclt_binaries; b->name; b++) cb_sb_printf(&out, "%s\n", b->name);
  } else {
    fprintf(stderr, "usage: test_ncclt_table allreduce|iter|alltoall|sendrecv|multi|minbw|fail|names\n");
    return 2;
  }
  char f[32];
  cb_ncclt_float(1599.4, 6, f, sizeof f);
  CHECK_EQ_STR(f, "1599.4");
  cb_ncclt_float(123456.7, 6, f, sizeof f);
  CHECK_EQ_STR(f, "123457");
  cb_ncclt_float(12345678.0, 6, f, sizeof f);
  CHECK_EQ_STR(f, " 1e+07");
  fputs(out.s, stdout);
  cb_sb_free(&out);
  return cb_test_finish("test_ncclt_table");
}
