/* CPU test of --format wide (launcher/report_wide.c, through report.c as the run prints it):
 * fixed rows of two sizes, two algorithms, out-of-place and in-place, eager and graph, arriving
 * in the bench engine's order (size, placement, mode, algorithm), one of them skipped, then a
 * family with its own table; the table on stdout is compared line by line with what it must
 * be. Also: --format rows prints one line per row, as before, and the CSV is the same bytes
 * under both formats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_testing.h"
#include "report.h"

static cb_row_t row(const char *algo, uint64_t bytes, int inplace, const char *mode, double us, double busbw) {
  cb_row_t r;
  memset(&r, 0, sizeof r);
  r.family = "allreduce";
  r.algo = algo;
  r.dtype = "float";
  r.op = "sum";
  r.bytes = bytes;
  r.count = bytes / 4;
  r.inplace = inplace;
  r.ranks = 2;
  r.nodes = 1;
  r.gpu = "NVIDIA H200";
  r.mode = mode;
  r.iters = 20;
  r.timed = us > 0;
  r.time_us_mean = r.time_us_max = r.time_us_p50 = r.time_us_p99 = us;
  r.algbw_gbs = busbw / 2;
  r.busbw_gbs = busbw;
  r.wrong = r.timed ? 0 : -1;
  return r;
}

static const cb_table_t *kOther; /* a family table of its own (set below) */

static void other_header(cb_strbuf_t *out) { cb_sb_printf(out, "#\n# moe table\n"); }
static void other_line(const cb_row_t *r, const char *sms, const char *wrong, cb_strbuf_t *out) {
  (void)sms;
  (void)wrong;
  cb_sb_printf(out, "  moe %s\n", r->algo);
}
static const cb_table_t kOtherTable = {other_header, other_line};

/* Feeds the fixed rows to a report whose table is a file; returns the table text (malloc'd). */
static char *table_of(int wide, const char *csv) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  cb_report_t rep;
  char why[256];
  CHECK_EQ_INT(cb_report_open(&rep, f, csv, NULL, "{}", why, sizeof why), 0);
  rep.wide = wide;
  for (int pass = 0; pass < 2; pass++) {
    uint64_t bytes = pass ? 1048576 : 8;
    for (int ip = 0; ip < 2; ip++)
      for (int m = 0; m < 2; m++) {
        const char *mode = m ? "graph" : "eager";
        cb_row_t a = row("nccl", bytes, ip, mode, pass ? 40.5 + ip : 12.25 + m, pass ? 51.78 : 0.0);
        cb_row_t b = row("oneshot", bytes, ip, mode, m ? 0 : (pass ? 30.0 : 5.5), pass ? 69.9 : 0.0);
        if (m) snprintf(b.note, sizeof b.note, "skipped: oneshot\ncannot be captured");
        cb_report_row(&rep, &a);
        cb_report_row(&rep, &b);
      }
  }
  cb_row_t moe = row("peer", 4096, 0, "eager", 9.0, 1.0);
  moe.table = kOther;
  cb_report_row(&rep, &moe);
  cb_row_t again = row("nccl", 16, 0, "eager", 3.0, 0.0);
  cb_report_row(&rep, &again);
  CHECK_EQ_INT(cb_report_close(&rep, NULL, why, sizeof why), 0);
  fclose(f);
  return text;
}

static const char kWant[] =
    "#\n"
    "#                                                 | nccl                                             | oneshot  "
    "                                       \n"
    "#                                                 | out-of-place            in-place                 | "
    "out-of-place            in-place                \n"
    "#         size        count type      redop mode  |      time    busbw #wrong      time    busbw #wrong |      "
    "time    busbw #wrong      time    busbw #wrong\n"
    "#          (B)   (elements)                       |      (us)   (GB/s)             (us)   (GB/s)        |      "
    "(us)   (GB/s)             (us)   (GB/s)       \n"
    "             8            2 float     sum   eager |     12.25     0.00      0     12.25     0.00      0 |      "
    "5.50     0.00      0      5.50     0.00      0\n"
    "             8            2 float     sum   graph |     13.25     0.00      0     13.25     0.00      0 |         "
    "-        -      -         -        -      -\n"
    "#  oneshot: skipped: oneshot cannot be captured\n"
    "       1048576       262144 float     sum   eager |     40.50    51.78      0     41.50    51.78      0 |     "
    "30.00    69.90      0     30.00    69.90      0\n"
    "       1048576       262144 float     sum   graph |     40.50    51.78      0     41.50    51.78      0 |         "
    "-        -      -         -        -      -\n"
    "#\n"
    "# moe table\n"
    "  moe peer\n"
    "#\n"
    "#                                                 | nccl                    \n"
    "#                                                 | out-of-place            \n"
    "#         size        count type      redop mode  |      time    busbw #wrong\n"
    "#          (B)   (elements)                       |      (us)   (GB/s)       \n"
    "            16            4 float     sum   eager |      3.00     0.00      0\n";

static int read_file(const char *path, char *buf, size_t n) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t got = fread(buf, 1, n - 1, f);
  buf[got] = 0;
  fclose(f);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_report_wide WORKDIR\n");
    return 2;
  }
  kOther = &kOtherTable;
  char csv_wide[1024], csv_rows[1024];
  snprintf(csv_wide, sizeof csv_wide, "%s/wide.csv", argv[1]);
  snprintf(csv_rows, sizeof csv_rows, "%s/rows.csv", argv[1]);
  char *wide = table_of(1, csv_wide), *rows = table_of(0, csv_rows);
  /* the one-rank line (one_rank.c) may come first: compare from the table's first "#" line */
  const char *w = strstr(wide, "#\n#  ");
  CHECK(w && strcmp(w, kWant) == 0, "wide table:\n%s\nwant:\n%s", wide, kWant);
  /* rows: one line per row (18), each naming its algorithm and mode */
  int lines = 0;
  for (const char *p = rows; (p = strstr(p, "\n  ")); p++) lines++;
  CHECK_EQ_INT(lines, 18);
  CHECK_CONTAINS(rows, "oneshot       ");
  CHECK_CONTAINS(rows, "skipped: oneshot cannot be captured");
  static char a[65536], b[65536];
  CHECK(read_file(csv_wide, a, sizeof a) == 0 && read_file(csv_rows, b, sizeof b) == 0, "CSV files");
  CHECK(strcmp(a, b) == 0 && strlen(a) > 100, "the CSV differs between --format wide and rows");
  free(wide);
  free(rows);
  return cb_test_finish("test_report_wide");
}
