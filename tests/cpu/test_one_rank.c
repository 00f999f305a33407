/* CPU test of launcher/one_rank.c through the real report (report.c): a one-rank run of a
 * classic collective prints CB_ONE_RANK_LINE once before the table and marks every measured
 * row's note in the table, the CSV and the JSON; a skipped row keeps its own note; two ranks,
 * sendrecv and moe at one rank are left alone. collbench itself stops at "no CUDA GPU" on this
 * machine, before any row, so the rows are written here as bench.c writes them. */
#include <stdint.h>
#include <stdlib.h>

#include "cb_testing.h"
#include "one_rank.h"
#include "report.h"

static cb_row_t row(const char *family, int ranks, int timed, const char *note) {
  cb_row_t w;
  memset(&w, 0, sizeof w);
  w.family = family;
  w.algo = "nccl";
  w.dtype = "float";
  w.op = "sum";
  w.bytes = 1 << 20;
  w.count = w.bytes / 4;
  w.ranks = ranks;
  w.nodes = 1;
  w.gpu = "NVIDIA H200";
  w.timed = timed;
  w.time_us_mean = w.time_us_max = w.time_us_p50 = w.time_us_p99 = timed ? 5.0 : NAN;
  w.algbw_gbs = timed ? 209.7 : NAN;
  w.busbw_gbs = 0.0;
  w.wrong = 0;
  w.mode = "eager";
  w.iters = 20;
  snprintf(w.note, sizeof w.note, "%s", note);
  return w;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

static int count(const char *hay, const char *needle) {
  int k = 0;
  for (const char *p = hay; p && (p = strstr(p, needle)); p += strlen(needle)) k++;
  return k;
}

/* Writes rows through a report into dir; returns the table text (static). */
static char *report(const char *dir, const char *family, int ranks, char *csv, char *json) {
  char csv_path[512], json_path[512], table_path[512], why[256];
  snprintf(csv_path, sizeof csv_path, "%s/%s-%d.csv", dir, family, ranks);
  snprintf(json_path, sizeof json_path, "%s/%s-%d.json", dir, family, ranks);
  snprintf(table_path, sizeof table_path, "%s/%s-%d.txt", dir, family, ranks);
  FILE *table = fopen(table_path, "w");
  CHECK(table != NULL, "cannot create %s", table_path);
  if (!table) return NULL;
  cb_report_t r;
  CHECK(cb_report_open(&r, table, csv_path, json_path, "{}", why, sizeof why) == 0, "open: %s", why);
  cb_row_t rows[] = {row(family, ranks, 0, "skipped: nccl has no prod"), row(family, ranks, 1, ""),
                     row(family, ranks, 1, "auto: oneshot")};
  for (int i = 0; i < 3; i++) cb_report_row(&r, &rows[i]);
  CHECK(cb_report_close(&r, NULL, why, sizeof why) == 0, "close: %s", why);
  fclose(table);
  snprintf(csv, 1 << 16, "%s", cb_test_str(slurp(csv_path)));
  snprintf(json, 1 << 16, "%s", cb_test_str(slurp(json_path)));
  return slurp(table_path);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_one_rank DIR\n");
    return 2;
  }
  /* which families: busbw factor 0 at one rank */
  const char *zero[] = {"allreduce", "allgather", "reducescatter", "alltoall"};
  for (int i = 0; i < 4; i++) {
    CHECK(cb_one_rank_zero_busbw(zero[i], 1), "%s at 1 rank", zero[i]);
    CHECK(!cb_one_rank_zero_busbw(zero[i], 2), "%s at 2 ranks", zero[i]);
  }
  CHECK(!cb_one_rank_zero_busbw("sendrecv", 1), "sendrecv sends to itself: busbw = algbw");
  CHECK(!cb_one_rank_zero_busbw("moe", 1), "moe");
  CHECK(!cb_one_rank_zero_busbw("ringattn", 1), "ringattn");
  CHECK(!cb_one_rank_zero_busbw("broadcast", 1), "unknown family");
  CHECK(!cb_one_rank_zero_busbw(NULL, 1), "no family");

  /* a note that fills the field stays terminated, cut where the field ends */
  char full[sizeof((cb_row_t *)0)->note];
  memset(full, 'x', sizeof full - 1);
  full[sizeof full - 1] = 0;
  cb_row_t big = row("allreduce", 1, 1, full), marked = cb_one_rank_row(&big, NULL);
  CHECK_EQ_INT(strlen(marked.note), sizeof marked.note - 1);

  static char csv[1 << 16], json[1 << 16];
  char *t = report(argv[1], "allreduce", 1, csv, json);
  CHECK(t && strncmp(t, CB_ONE_RANK_LINE "\n#", strlen(CB_ONE_RANK_LINE) + 2) == 0,
        "the table does not start with the one-rank line:\n%s", cb_test_str(t));
  CHECK_EQ_INT(count(t, CB_ONE_RANK_LINE), 1);
  CHECK_EQ_INT(count(t, CB_ONE_RANK_NOTE), 2);
  CHECK_CONTAINS(t, "auto: oneshot; " CB_ONE_RANK_NOTE);
  CHECK_EQ_INT(count(csv, "," CB_ONE_RANK_NOTE ","), 1);
  CHECK_CONTAINS(csv, ",auto: oneshot; " CB_ONE_RANK_NOTE ",");
  CHECK_CONTAINS(csv, ",skipped: nccl has no prod,");
  CHECK_EQ_INT(count(json, "\"note\":\"" CB_ONE_RANK_NOTE "\""), 1);
  CHECK_EQ_INT(count(json, CB_ONE_RANK_NOTE), 2);

  const char *untouched[][2] = {{"allreduce", "2"}, {"sendrecv", "1"}, {"moe", "1"}};
  for (int i = 0; i < 3; i++) {
    t = report(argv[1], untouched[i][0], atoi(untouched[i][1]), csv, json);
    CHECK(t && !cb_test_contains(t, "1 rank"), "%s at %s rank(s) is marked:\n%s", untouched[i][0], untouched[i][1],
          cb_test_str(t));
    CHECK(!cb_test_contains(csv, "1 rank") && !cb_test_contains(json, "1 rank"), "%s CSV/JSON marked", untouched[i][0]);
  }
  return cb_test_finish("test_one_rank");
}
