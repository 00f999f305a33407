/* CPU test driver for launcher/report.c: writes a fixed set of result rows through
 * cb_report_open / cb_report_row / cb_report_close so that check_report.py can parse the files
 * back with python's csv and json modules. The rows are chosen to break naive writers: notes
 * with commas, quotes, newlines, tabs, backslashes, control characters and UTF-8; skipped rows;
 * NaN and infinite times; an unchecked row; moe rows; 64-bit sizes. check_report.py holds the
 * same rows as its expectation.
 *
 *   test_report full  DIR      all rows, then close: DIR/r.csv, DIR/r.json, DIR/table.txt
 *   test_report crash DIR K    K rows, then _exit(9) without closing (a crashed run)
 *   test_report empty DIR      open and close with no rows
 *   test_report csvonly DIR    CSV path only (no JSON, no .partial.jsonl)
 *   test_report fsize DIR      the CSV's writes fail (run under a file-size limit): close says so
 *
 * It also asserts in C what needs no parser: open fails with a reason for an unwritable path,
 * and cb_row_csv yields exactly the header's column count for every row. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "cb_testing.h"
#include "family.h"
#include "report.h"

#define NROWS 10

static cb_row_t rows[NROWS];

static cb_row_t classic(const char *family, const char *algo, uint64_t bytes, int inplace) {
  cb_row_t w;
  memset(&w, 0, sizeof w);
  w.family = family;
  w.algo = algo;
  w.dtype = "float";
  w.op = "sum";
  w.bytes = bytes;
  w.count = bytes / 4;
  w.inplace = inplace;
  w.ranks = 2;
  w.nodes = 1;
  w.gpu = "NVIDIA H200";
  w.timed = 1;
  w.time_us_mean = 12.5;
  w.time_us_max = 13.25;
  w.time_us_p50 = 12.0;
  w.time_us_p99 = 20.125;
  w.algbw_gbs = (double)bytes / 12.5e3;
  w.busbw_gbs = w.algbw_gbs;
  w.wrong = 0;
  w.mode = "eager";
  w.iters = 20;
  w.mem_bytes = 3 * bytes;
  return w;
}

static void make_rows(void) {
  /* 0: a plain timed row */
  rows[0] = classic("allreduce", "nccl", 1048576, 0);
  /* 1: a note with every CSV/JSON special character, in place, graph mode */
  rows[1] = classic("allreduce", "oneshot", 1024, 1);
  snprintf(rows[1].note, sizeof rows[1].note, "%s",
           "a, \"quoted\" note\nline two\ttab \\ backslash \x01 ctl, caf\xc3\xa9 \xe2\x86\x92 ok");
  rows[1].mode = "graph";
  rows[1].wrong = 3;
  rows[1].sms = 32; /* a custom kernel on 32 SMs */
  /* 2: skipped (not supported): no times, not checked */
  rows[2] = classic("alltoall", "nccl_p2p", 4, 0);
  rows[2].op = "none";
  rows[2].count = 0;
  rows[2].timed = 0;
  rows[2].wrong = -1;
  snprintf(rows[2].note, sizeof rows[2].note, "not supported: 1 elements do not divide among 2 ranks");
  /* 3: timed but the timings are NaN / inf (a broken measurement): empty in CSV, null in JSON */
  rows[3] = classic("allgather", "nccl", 8ull << 30, 1);
  rows[3].time_us_mean = NAN;
  rows[3].time_us_max = INFINITY;
  rows[3].time_us_p50 = -INFINITY;
  rows[3].algbw_gbs = NAN;
  rows[3].busbw_gbs = NAN;
  /* 4: checked off (-c 0) */
  rows[4] = classic("sendrecv", "nccl", 18446744073709551608ull, 0);
  rows[4].wrong = -1;
  rows[4].dtype = "fp8e4m3";
  /* 5, 6: moe rows, one timed, one skipped (their columns and table as the moe describer sets them) */
  rows[5] = classic("moe", "nccl", 58720256, 0);
  rows[5].op = "none";
  rows[5].dtype = "bfloat16";
  rows[5].groups = cb_family_info(CB_MOE)->columns;
  rows[5].table = cb_family_info(CB_MOE)->table;
  cb_row_text(&rows[5], CB_COL_MODEL, "deepseek-v3");
  cb_row_text(&rows[5], CB_COL_ROUTING, "hot:4:2.5");
  cb_row_text(&rows[5], CB_COL_PHASE, "dispatch");
  cb_row_int(&rows[5], CB_COL_TOKENS, 4096);
  cb_row_int(&rows[5], CB_COL_HIDDEN, 7168);
  cb_row_int(&rows[5], CB_COL_TOPK, 8);
  cb_row_int(&rows[5], CB_COL_EXPERTS, 256);
  cb_row_real(&rows[5], CB_COL_REMOTE_GBS, 321.5);
  cb_row_real(&rows[5], CB_COL_IMBALANCE, 1.25);
  cb_row_real(&rows[5], CB_COL_NET_BYTES, 1530000);
  cb_row_real(&rows[5], CB_COL_NVLINK_BYTES, NAN); /* not reported: empty / null */
  rows[6] = rows[5];
  rows[6].algo = "peer";
  cb_row_text(&rows[6], CB_COL_PHASE, "roundtrip");
  rows[6].timed = 0;
  rows[6].wrong = -1;
  cb_row_text(&rows[6], CB_COL_MODEL, "custom, \"mine\"");
  cb_row_real(&rows[6], CB_COL_IMBALANCE, NAN);
  snprintf(rows[6].note, sizeof rows[6].note, "not supported: spans 2 nodes");
  /* 7: an algorithm name and GPU name that need quoting */
  rows[7] = classic("reducescatter", "a,b", 64, 0);
  rows[7].gpu = "GPU \"X\", rev 2";
  rows[7].op = "avg";
  rows[7].dtype = "half";
  rows[7].sms = -1; /* copy engine only: written as 0 */
  /* 8: a ringattn row (ring_over_single not applicable: NaN -> empty / null) */
  rows[8] = classic("ringattn", "ring", 268435456, 0);
  rows[8].op = "none";
  rows[8].dtype = "bfloat16";
  rows[8].groups = cb_family_info(CB_RINGATTN)->columns;
  rows[8].table = cb_family_info(CB_RINGATTN)->table;
  cb_row_int(&rows[8], CB_COL_SEQ, 16384);
  cb_row_int(&rows[8], CB_COL_BATCH, 1);
  cb_row_int(&rows[8], CB_COL_HEADS, 32);
  cb_row_int(&rows[8], CB_COL_KV_HEADS, 8);
  cb_row_int(&rows[8], CB_COL_HEAD_DIM, 128);
  cb_row_int(&rows[8], CB_COL_CAUSAL, 1);
  cb_row_text(&rows[8], CB_COL_PASS, "both");
  cb_row_real(&rows[8], CB_COL_TFLOPS, 301.25);
  cb_row_real(&rows[8], CB_COL_COMM_US, 812.5);
  cb_row_real(&rows[8], CB_COL_COMPUTE_US, 3650.75);
  cb_row_real(&rows[8], CB_COL_OVERLAP_EFF, 0.96875);
  cb_row_real(&rows[8], CB_COL_RING_OVER_SINGLE, NAN);
  cb_row_real(&rows[8], CB_COL_ERR_MAX, 0.0078125);
  cb_row_real(&rows[8], CB_COL_ERR_MEAN, 0.000244140625);
  cb_row_text(&rows[8], CB_COL_LAYOUT, "zigzag");
  cb_row_real(&rows[8], CB_COL_ULYSSES, 2);
  cb_row_real(&rows[8], CB_COL_RING, 4);
  rows[8].sms = 132;
  /* 9: moe --overlap's roundtrip_loaded row (the slowdown columns); row 6 carries slowdowns too
   * but is not timed: they stay empty there */
  rows[9] = rows[5];
  rows[9].algo = "peer";
  cb_row_text(&rows[9], CB_COL_PHASE, "roundtrip_loaded");
  rows[9].loaded = 1;
  rows[9].slowdown_comm = 1.375;
  rows[9].slowdown_compute = 1.0625;
  rows[9].sms = 32;
  rows[6].loaded = 1;
  rows[6].slowdown_comm = 2.5;
  rows[6].slowdown_compute = 3.5;
}

static const char *meta_json = "{\"hosts\":[\"node-a\",\"node-b\"],\"command\":\"collbench allreduce -b 8\","
                               "\"nccl_env\":{\"NCCL_ALGO\":\"Ring\"},\"git\":\"abc123\"}";

static int count_fields(const char *line) {
  /* number of CSV fields, honouring quotes */
  int n = 1, q = 0;
  for (const char *p = line; *p; p++) {
    if (*p == '"') q = !q;
    else if (*p == ',' && !q) n++;
  }
  return n;
}

static int open_report(cb_report_t *r, const char *dir, FILE *table, int with_json) {
  char csv[1024], json[1024], why[512] = "";
  snprintf(csv, sizeof csv, "%s/r.csv", dir);
  snprintf(json, sizeof json, "%s/r.json", dir);
  int rc = cb_report_open(r, table, csv, with_json ? json : "", meta_json, why, sizeof why);
  CHECK(rc == 0, "cb_report_open(%s): %s", dir, why);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_report full|crash|empty|csvonly DIR [K]\n");
    return 2;
  }
  const char *mode = argv[1], *dir = argv[2];
  make_rows();

  /* column count of every row equals the header's */
  cb_strbuf_t header;
  cb_sb_init(&header);
  cb_csv_header(&header); /* its text: check_report.py */
  int header_cols = count_fields(header.s);
  cb_sb_free(&header);
  CHECK(header_cols == 53, "header has %d columns", header_cols);
  for (int i = 0; i < NROWS; i++) {
    cb_strbuf_t b;
    cb_sb_init(&b);
    cb_row_csv(&rows[i], &b);
    CHECK(count_fields(b.s) == header_cols, "row %d: %d CSV fields, header %d: %s", i, count_fields(b.s), header_cols,
          b.s);
    cb_sb_clear(&b);
    cb_row_json(&rows[i], &b);
    CHECK(!strchr(b.s, '\n'), "row %d: JSON object spans lines", i);
    CHECK(!cb_test_contains(b.s, "nan") && !cb_test_contains(b.s, "inf"), "row %d: JSON has nan/inf: %s", i, b.s);
    cb_sb_free(&b);
  }

  /* an unwritable path fails with the path in the reason */
  {
    cb_report_t r;
    char why[512] = "";
    CHECK(cb_report_open(&r, NULL, "/nonexistent-dir/x.csv", "", "{}", why, sizeof why) == -1, "open bad csv");
    CHECK_CONTAINS(why, "/nonexistent-dir/x.csv");
    why[0] = 0;
    CHECK(cb_report_open(&r, NULL, "", "/nonexistent-dir/x.json", "{}", why, sizeof why) == -1, "open bad json");
    CHECK_CONTAINS(why, "/nonexistent-dir/x.json");
    /* a directory as either output: refused at open, not after the run (the JSON's final rename
     * onto a directory used to fail only at the end) */
    why[0] = 0;
    CHECK(cb_report_open(&r, NULL, "/tmp", "", "{}", why, sizeof why) == -1, "open csv onto a directory");
    CHECK_CONTAINS(why, "'/tmp'");
    why[0] = 0;
    CHECK(cb_report_open(&r, NULL, "", "/tmp", "{}", why, sizeof why) == -1, "open json onto a directory");
    CHECK_CONTAINS(why, "is a directory");
  }

  /* a device is never an output: replacing /dev/full by a file would break the machine */
  {
    cb_report_t f;
    char why[512] = "";
    CHECK(cb_report_open(&f, NULL, "/dev/full", "", "{}", why, sizeof why) == -1, "open /dev/full as the CSV");
    CHECK_CONTAINS(why, "not a regular file");
  }
  /* a full disk: the CSV's failed writes make the close fail (fclose alone returned 0 and the
   * run passed as complete with rows missing). check_report.py starts this mode under a 1 KiB
   * file-size limit with SIGXFSZ ignored, so writes past it fail with EFBIG. */
  if (strcmp(mode, "fsize") == 0) {
    cb_report_t f;
    char why[512] = "", full[1100];
    snprintf(full, sizeof full, "%s/full.csv", dir);
    CHECK(cb_report_open(&f, NULL, full, "", "{}", why, sizeof why) == 0, "open %s: %s", full, why);
    for (int i = 0; i < NROWS; i++) cb_report_row(&f, &rows[i]);
    CHECK(cb_report_close(&f, NULL, why, sizeof why) == -1, "close after writes past the size limit returned 0");
    CHECK_CONTAINS(why, full);
    CHECK_CONTAINS(why, "File too large");
    return cb_test_finish("test_report fsize");
  }
  /* a previous run's JSON at the same path is removed when the new run opens its outputs (a
   * stop before the close would otherwise leave the old "complete" JSON beside the new CSV) */
  {
    char old[1100];
    snprintf(old, sizeof old, "%s/old.json", dir);
    FILE *o = fopen(old, "w");
    CHECK(o != NULL, "cannot write %s", old);
    if (o) {
      fputs("{\"complete\": true}\n", o);
      fclose(o);
      cb_report_t f;
      char why[512] = "";
      CHECK(cb_report_open(&f, NULL, "", old, "{}", why, sizeof why) == 0, "open %s: %s", old, why);
      CHECK(access(old, F_OK) != 0, "the old %s is still there after open", old);
      CHECK(cb_report_close(&f, NULL, why, sizeof why) == 0, "close: %s", why);
      CHECK(access(old, F_OK) == 0, "no %s after close", old);
      unlink(old);
    }
  }

  cb_report_t r;
  if (strcmp(mode, "full") == 0) {
    char tpath[1024];
    snprintf(tpath, sizeof tpath, "%s/table.txt", dir);
    FILE *table = fopen(tpath, "w");
    CHECK(table != NULL, "cannot write %s", tpath);
    if (!table || open_report(&r, dir, table, 1)) return cb_test_finish("test_report full");
    for (int i = 0; i < NROWS; i++) cb_report_row(&r, &rows[i]);
    char why[512] = "";
    CHECK(cb_report_close(&r, "\"summary\": {\"rows\": 8, \"exit_code\": 1}", why, sizeof why) == 0,
          "cb_report_close: %s", why);
    fclose(table);
    return cb_test_finish("test_report full");
  }
  if (strcmp(mode, "crash") == 0) {
    int k = argc > 3 ? atoi(argv[3]) : 3;
    if (k < 0 || k > NROWS) k = NROWS;
    if (open_report(&r, dir, NULL, 1)) return cb_test_finish("test_report crash");
    for (int i = 0; i < k; i++) cb_report_row(&r, &rows[i]);
    /* a crash: no close, no exit handlers, no stdio flush */
    _exit(9);
  }
  if (strcmp(mode, "empty") == 0) {
    if (open_report(&r, dir, NULL, 1)) return cb_test_finish("test_report empty");
    char why[512] = "";
    CHECK(cb_report_close(&r, NULL, why, sizeof why) == 0, "cb_report_close: %s", why);
    return cb_test_finish("test_report empty");
  }
  if (strcmp(mode, "csvonly") == 0) {
    if (open_report(&r, dir, NULL, 0)) return cb_test_finish("test_report csvonly");
    for (int i = 0; i < 2; i++) cb_report_row(&r, &rows[i]);
    char why[512] = "";
    CHECK(cb_report_close(&r, NULL, why, sizeof why) == 0, "cb_report_close: %s", why);
    return cb_test_finish("test_report csvonly");
  }
  fprintf(stderr, "test_report: unknown mode '%s'\n", mode);
  return 2;
}
