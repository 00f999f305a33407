/* The alltoallv family on the host: the counts modes against nccl-tests' own numbers (the real
 * alltoallv_perf output in ../shared/anchors/nccl-tests-h200x1-vnodes/, alltoallv-g1.txt and
 * alltoallv-np2.txt, and its distance-weighted formula worked by hand for 3, 4 and 8 ranks), the
 * size/count columns and busbw factor, the matrix parser on a good file and on every kind of bad
 * one (each refused with one line naming the file), the one file reader (base/readfile.h) on
 * symlinks, devices, FIFOs, folders, NUL and bad UTF-8, and the family's command line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alltoallv_counts.h"
#include "args.h"
#include "cb_testing.h"
#include "family.h"
#include "newfile.h"
#include "readfile.h"

static char dir[512];

static const char *put(const char *name, const char *bytes, size_t len) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = cb_newfile_replace(path);
  if (!f || fwrite(bytes, 1, len, f) != len || fclose(f)) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  return path;
}

static const char *puts_file(const char *name, const char *text) { return put(name, text, strlen(text)); }

static cb_a2av_config_t cfg_mode(const char *mode) {
  cb_a2av_config_t c;
  char why[512];
  cb_a2av_config_defaults(&c);
  CHECK(cb_a2av_mode_parse(mode, &c, why, sizeof why) == 0, "mode %s: %s", mode, why);
  CHECK(cb_a2av_config_finish(&c, why, sizeof why) == 0, "mode %s: %s", mode, why);
  return c;
}

/* the size and count columns at point P for n ranks and element size es */
static void columns(const cb_a2av_config_t *c, uint64_t P, size_t es, int n, uint64_t *size, uint64_t *count) {
  cb_a2av_counts_t k;
  char why[256];
  *size = *count = ~0ull;
  if (cb_a2av_counts_make(c, P, es, n, 7, &k, why, sizeof why)) {
    CHECK(0, "counts %llu B, %d ranks: %s", (unsigned long long)P, n, why);
    return;
  }
  *size = cb_a2av_size_bytes(&k);
  *count = k.param_count;
  cb_a2av_counts_free(&k);
}

/* nccl-tests 2.19.6's own size/count columns (float, default spread 1.0): anchors */
static void test_anchor_columns(void) {
  static const struct {
    int n;
    uint64_t P, size, count;
  } rows[] = {
      {1, 8, 0, 0},          {1, 64, 64, 16},         {1, 512, 512, 128},
      {1, 4096, 4096, 1024}, {1, 32768, 32768, 8192}, {1, 262144, 262144, 65536},
      {2, 8, 0, 0},          {2, 64, 64, 8},          {2, 512, 512, 64},
      {2, 4096, 4096, 512},  {2, 32768, 32768, 4096}, {2, 262144, 262144, 32768},
  };
  cb_a2av_config_t c = cfg_mode("spread");
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    uint64_t size, count;
    columns(&c, rows[i].P, 4, rows[i].n, &size, &count);
    CHECK(size == rows[i].size && count == rows[i].count, "n=%d P=%llu: size %llu count %llu, nccl-tests %llu %llu",
          rows[i].n, (unsigned long long)rows[i].P, (unsigned long long)size, (unsigned long long)count,
          (unsigned long long)rows[i].size, (unsigned long long)rows[i].count);
  }
}

/* rank 0's row worked by hand from nccl-tests' formula at P = 1 MiB of float:
 * n=4: paramcount 65536, T = 1048576, sum of distances 6; n=3: paramcount 87380 (87381 rounded
 * down to a multiple of 4), T = 1048560, sum 3; n=8: paramcount 32768, T = 1048576, sum 28 */
static void test_spread_cells(void) {
  static const struct {
    const char *mode;
    int n;
    uint64_t row0[8], size, count;
  } cases[] = {
      {"spread", 4, {0, 174752, 349520, 524288}, 1048560, 65536},
      {"uniform", 4, {262144, 262144, 262144, 262144}, 1048576, 65536},
      {"spread:0.5", 4, {131072, 218448, 305824, 393216}, 1048560, 65536},
      {"spread", 3, {0, 349520, 699040}, 1048560, 87380},
      {"uniform", 3, {349520, 349520, 349520}, 1048560, 87380},
      /* d x 1048576 / 28 = 37449.14 d, truncated, then rounded down to 16 */
      {"spread", 8, {0, 37440, 74896, 112336, 149792, 187232, 224688, 262144}, 1048528, 32768},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cb_a2av_config_t c = cfg_mode(cases[i].mode);
    cb_a2av_counts_t k;
    char why[256];
    int n = cases[i].n;
    if (cb_a2av_counts_make(&c, 1 << 20, 4, n, 1, &k, why, sizeof why)) {
      CHECK(0, "%s n=%d: %s", cases[i].mode, n, why);
      continue;
    }
    for (int j = 0; j < n; j++)
      CHECK(cb_a2av_cell(&k, 0, j) == cases[i].row0[j], "%s n=%d cell 0->%d = %llu, expected %llu", cases[i].mode, n, j,
            (unsigned long long)cb_a2av_cell(&k, 0, j), (unsigned long long)cases[i].row0[j]);
    /* every rank sends and receives the same (the pattern turns with the rank) */
    for (int r = 0; r < n; r++) {
      CHECK(cb_a2av_send_total(&k, r) == cases[i].size, "%s n=%d rank %d sends %llu", cases[i].mode, n, r,
            (unsigned long long)cb_a2av_send_total(&k, r));
      CHECK(cb_a2av_recv_total(&k, r) == cases[i].size, "%s n=%d rank %d receives %llu", cases[i].mode, n, r,
            (unsigned long long)cb_a2av_recv_total(&k, r));
      for (int j = 0; j < n; j++) CHECK(cb_a2av_cell(&k, r, j) % 16 == 0, "cell %d->%d not a multiple of 16", r, j);
    }
    CHECK_EQ_INT(cb_a2av_size_bytes(&k), cases[i].size);
    CHECK_EQ_INT(k.param_count, cases[i].count);
    /* offsets: blocks packed in destination order (send) and source order (receive) */
    CHECK_EQ_INT(cb_a2av_send_offset(&k, 0, 2), cases[i].row0[0] + cases[i].row0[1]);
    CHECK_EQ_INT(cb_a2av_recv_offset(&k, 2, 1), cb_a2av_cell(&k, 0, 1) + cb_a2av_cell(&k, 1, 1));
    cb_a2av_counts_free(&k);
  }
  /* the paramcount rounding follows the element size: fp8 rounds to 16 elements, double to 2 */
  cb_a2av_config_t c = cfg_mode("uniform");
  uint64_t size, count;
  columns(&c, 1000, 1, 3, &size, &count); /* 333 -> 320 */
  CHECK(count == 320 && size == 960, "fp8 1000 B on 3 ranks: count %llu size %llu", (unsigned long long)count,
        (unsigned long long)size);
  columns(&c, 1000, 8, 3, &size, &count); /* 125 / 3 = 41 -> 40 */
  CHECK(count == 40 && size == 960, "8-byte 1000 B on 3 ranks: count %llu size %llu", (unsigned long long)count,
        (unsigned long long)size);
  /* busbw = algbw x (n-1)/n, as nccl-tests' AlltoAllvGetBw */
  CHECK(fabs(cb_busbw_factor(CB_ALLTOALLV, 4) - 0.75) < 1e-12, "busbw factor at 4 ranks");
  CHECK(fabs(cb_busbw_factor(CB_ALLTOALLV, 1)) < 1e-12, "busbw factor at 1 rank");
}

static void test_matrix_good(void) {
  /* blank lines, tabs, CRLF, no final newline; 100 -> 96, 150 -> 144 (rounded down to 16) */
  const char *path = puts_file("good.txt", "\n100  200\t150\r\n\n50 100 75\n300 150 200");
  char mode[1100];
  snprintf(mode, sizeof mode, "matrix:%s", path);
  cb_a2av_config_t c = cfg_mode(mode);
  CHECK_EQ_INT(c.matrix.dim, 3);
  char why[256];
  CHECK(cb_a2av_config_check_ranks(&c, 3, why, sizeof why) == 0, "3 ranks: %s", why);
  CHECK(cb_a2av_config_check_ranks(&c, 2, why, sizeof why) == -1, "2 ranks accepted");
  CHECK_CONTAINS(why, "is 3 x 3, the run has 2 ranks");
  CHECK(cb_a2av_config_check_ranks(&c, 4, why, sizeof why) == -1, "4 ranks accepted");
  cb_a2av_counts_t k;
  CHECK(cb_a2av_counts_make(&c, 1 << 20, 4, 3, 0, &k, why, sizeof why) == 0, "%s", why);
  static const uint64_t want[9] = {96, 192, 144, 48, 96, 64, 288, 144, 192};
  for (int x = 0; x < 9; x++) CHECK_EQ_INT(k.bytes[x], want[x]);
  /* sends: 432, 208, 624; receives: 432, 432, 400 -> size 624, count 0 (nccl-tests' matrix mode) */
  CHECK_EQ_INT(cb_a2av_size_bytes(&k), 624);
  CHECK_EQ_INT(k.param_count, 0);
  cb_a2av_counts_free(&k);
  CHECK_CONTAINS(c.text, "matrix:");
  cb_a2av_matrix_free(&c.matrix);
}

/* a bad file: refused with one line that names it and holds `want` */
static void bad_matrix(const char *path, const char *want) {
  cb_a2av_matrix_t m;
  char err[1024] = "";
  int rc = cb_a2av_matrix_read(path, &m, err, sizeof err);
  CHECK(rc == -1, "%s accepted", path);
  if (rc == 0) cb_a2av_matrix_free(&m);
  CHECK(strchr(err, '\n') == NULL && err[0], "not one line: '%s'", err);
  CHECK_CONTAINS(err, path);
  CHECK_CONTAINS(err, want);
}

static void test_matrix_bad(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/missing.txt", dir);
  bad_matrix(path, "cannot open");
  bad_matrix(puts_file("empty.txt", ""), "holds no values");
  bad_matrix(puts_file("blank.txt", "\n  \n\t\n"), "holds no values");
  bad_matrix(puts_file("wide.txt", "1 2 3\n4 5 6\n"), "is 2 x 3: the matrix must be square");
  bad_matrix(puts_file("ragged.txt", "1 2\n3\n"), "row 2 has 1 values, row 1 has 2");
  bad_matrix(puts_file("neg.txt", "16 -32\n0 0\n"), "row 1, column 2 (the value at byte offset 3): a negative value");
  bad_matrix(puts_file("frac.txt", "16 32\n1.5 0\n"),
             "row 2, column 1 (the value at byte offset 6): byte 2 of the value is not a decimal digit: expected a "
             "whole number of bytes");
  bad_matrix(puts_file("exp.txt", "1e3 0\n0 0\n"), "byte 2 of the value is not a decimal digit");
  bad_matrix(puts_file("hex.txt", "0x10 0\n0 0\n"), "byte 2 of the value is not a decimal digit");
  bad_matrix(puts_file("plus.txt", "+16 0\n0 0\n"), "byte 1 of the value is not a decimal digit");
  bad_matrix(puts_file("word.txt", "16 inf\n0 0\n"), "column 2 (the value at byte offset 3): byte 1 of the value");
  bad_matrix(puts_file("huge.txt", "1099511627777 0\n0 0\n"), "more than the 1099511627776 B");
  bad_matrix(puts_file("huge2.txt", "99999999999999999999999999 0\n0 0\n"), "more than the 1099511627776 B");
  /* each value fits, rank 0's total does not */
  bad_matrix(puts_file("total.txt", "1099511627776 16\n0 0\n"), "rank 0 sends 1099511627792 B in all");
  bad_matrix(puts_file("coltotal.txt", "1099511627776 0\n16 0\n"), "rank 0 receives 1099511627792 B in all");
  bad_matrix(put("nul.txt", "16 0\n0\0 0\n", 10), "a NUL byte at byte 6");
  bad_matrix(puts_file("utf8.txt", "16 0\n0 \xff\xfe\n"), "invalid UTF-8 at byte 7");
  bad_matrix(puts_file("ctl.txt", "16 \x01\n0 0\n"), "not a decimal digit");
  bad_matrix(puts_file("accent.txt", "16 caf\xc3\xa9\n0 0\n"), "not a decimal digit");
  /* not a regular file: a symlink to a device, a symlink to a good file, a folder, a FIFO */
  char link[1100];
  snprintf(link, sizeof link, "%s/zero.txt", dir);
  unlink(link);
  CHECK(symlink("/dev/zero", link) == 0, "symlink: %s", strerror(errno));
  bad_matrix(link, "is a symbolic link");
  snprintf(link, sizeof link, "%s/link.txt", dir);
  unlink(link);
  char target[1100];
  snprintf(target, sizeof target, "%s/good.txt", dir);
  CHECK(symlink(target, link) == 0, "symlink: %s", strerror(errno));
  bad_matrix(link, "is a symbolic link");
  bad_matrix(dir, "is not a regular file");
  bad_matrix("/dev/null", "is not a regular file");
  snprintf(link, sizeof link, "%s/fifo.txt", dir);
  unlink(link);
  CHECK(mkfifo(link, 0600) == 0, "mkfifo: %s", strerror(errno));
  bad_matrix(link, "is not a regular file"); /* and no hang: O_NONBLOCK */
}

/* a routing trace: tokens per (source, destination) rank under --model's expert split */
static void test_trace(void) {
  /* mixtral-8x7b: 8 experts, on 2 ranks experts 0-3 on rank 0, 4-7 on rank 1; on 4 ranks two each */
  const char *path = puts_file("trace.txt", "# rank experts\n0 1 5\n0 2 3\n\n1 7 6\r\n1 0 4\n1 4\n0 7\n");
  char mode[1100], why[512];
  snprintf(mode, sizeof mode, "trace:%s", path);
  cb_a2av_config_t c;
  cb_a2av_config_defaults(&c);
  cb_moe_preset("mixtral-8x7b", &c.moe);
  CHECK(cb_a2av_mode_parse(mode, &c, why, sizeof why) == 0, "%s", why);
  CHECK(cb_a2av_config_finish(&c, why, sizeof why) == 0, "%s", why);
  CHECK(c.trace.ntokens == 6 && c.trace.max_rank == 1 && c.trace.max_expert == 7,
        "trace: %zu tokens, rank %d, expert %d", c.trace.ntokens, c.trace.max_rank, c.trace.max_expert);
  CHECK(cb_a2av_config_check_ranks(&c, 2, why, sizeof why) == 0, "%s", why);
  CHECK(cb_a2av_config_check_ranks(&c, 1, why, sizeof why) == -1, "rank 1's tokens on 1 rank accepted");
  CHECK_CONTAINS(why, "has tokens of rank 1, the run has 1 ranks");
  CHECK(cb_a2av_config_check_ranks(&c, 3, why, sizeof why) == -1, "8 experts on 3 ranks accepted");
  /* rank 0's tokens {1 5} {2 3} {7}: 2 to rank 0, 2 to rank 1; rank 1's {7 6} {0 4} {4}: 1 to
   * rank 0, 3 to rank 1. 8 copies, 4 per rank on average: bytes = P x cnt / 4 */
  cb_a2av_counts_t k;
  CHECK(cb_a2av_counts_make(&c, 4096, 2, 2, 0, &k, why, sizeof why) == 0, "%s", why);
  static const uint64_t want[4] = {2048, 2048, 1024, 3072};
  for (int x = 0; x < 4; x++) CHECK_EQ_INT(k.bytes[x], want[x]);
  CHECK_EQ_INT(cb_a2av_size_bytes(&k), 5120); /* rank 1 receives 2048 + 3072 */
  cb_a2av_counts_free(&k);
  CHECK_CONTAINS(c.text, "trace:");
  /* experts past the model's */
  cb_moe_preset("qwen3-30b-a3b", &c.moe);
  c.trace.max_expert = 200;
  CHECK(cb_a2av_config_check_ranks(&c, 2, why, sizeof why) == -1, "expert 200 of 128 accepted");
  CHECK_CONTAINS(why, "names expert 200, --model qwen3-30b-a3b has 128 experts");
  cb_a2av_config_release(&c);
}

static void bad_trace(const char *path, const char *want) {
  cb_a2av_trace_t t;
  char err[1024] = "";
  int rc = cb_a2av_trace_read(path, &t, err, sizeof err);
  CHECK(rc == -1, "%s accepted", path);
  if (rc == 0) cb_a2av_trace_free(&t);
  CHECK(strchr(err, '\n') == NULL && err[0], "not one line: '%s'", err);
  CHECK_CONTAINS(err, path);
  CHECK_CONTAINS(err, want);
}

static void test_trace_bad(void) {
  bad_trace(puts_file("t-empty.txt", "# only a comment\n\n"), "holds no tokens");
  bad_trace(puts_file("t-lone.txt", "0 1\n3\n"), "line 2: a token needs its source rank and at least one expert");
  bad_trace(puts_file("t-neg.txt", "0 -1\n"),
            "line 1, value 2 (at byte offset 2): an expert id: byte 1 of the value is not a decimal digit: expected "
            "an integer 0..1048575");
  bad_trace(puts_file("t-rank.txt", "4096 1\n"), "line 1, value 1 (at byte offset 0): the source rank: a value of more "
                                                 "than 4095");
  bad_trace(puts_file("t-exp.txt", "0 1048576\n"), "an expert id: a value of more than 1048575");
  bad_trace(puts_file("t-frac.txt", "0 1.5\n"), "byte 2 of the value is not a decimal digit");
  bad_trace(puts_file("t-tail.txt", "0 1 # late comment\n"), "line 1, value 3 (at byte offset 4)");
  char many[2048];
  size_t off = (size_t)snprintf(many, sizeof many, "0");
  for (int e = 0; e < 257; e++) off += (size_t)snprintf(many + off, sizeof many - off, " %d", e);
  bad_trace(puts_file("t-topk.txt", many), "more than 256 experts for one token");
  bad_trace(put("t-nul.txt", "0 1\n\0", 5), "a NUL byte");
  char link[1100];
  snprintf(link, sizeof link, "%s/t-zero.txt", dir);
  unlink(link);
  CHECK(symlink("/dev/zero", link) == 0, "symlink: %s", strerror(errno));
  bad_trace(link, "is a symbolic link");
}

/* A hostile file: terminal escapes (colour, a window title, a cursor move) where values belong.
 * The refusal names the place (row/line, column/value, byte offset) and what was expected, and
 * holds no byte of the file: printable ASCII only, none of the escapes' text. */
static void no_echo(const char *err, const char *what) {
  for (const char *c = err; *c; c++)
    CHECK((unsigned char)*c >= 0x20 && (unsigned char)*c <= 0x7e, "%s: byte 0x%02x in the refusal", what,
          (unsigned char)*c);
  static const char *const kFileText[] = {"[31m", "]0;", "pwned", "[2J", "7;", "\x1b"};
  for (size_t k = 0; k < sizeof kFileText / sizeof kFileText[0]; k++)
    CHECK(!strstr(err, kFileText[k]), "%s: the refusal echoes the file's '%s': %s", what, kFileText[k], err);
}

static void test_hostile_bytes(void) {
  static const char *const kEsc[] = {
      "16 \x1b[31m32\n0 0\n",                  /* a colour, then digits */
      "16 32\n0 \x1b]0;pwned\x07\n",           /* a window title */
      "\x1b[2J\x1b[H 0\n0 0\n",                /* clear the screen first */
      "16 -\x1b[31m7;\n0 0\n",                 /* a sign, then the escape */
      "99999999999999999999\x1b[31m 0\n0 0\n", /* too long, then the escape */
  };
  for (size_t k = 0; k < sizeof kEsc / sizeof kEsc[0]; k++) {
    char name[32], err[1024] = "";
    snprintf(name, sizeof name, "esc%zu.txt", k);
    const char *path = puts_file(name, kEsc[k]);
    cb_a2av_matrix_t m;
    CHECK(cb_a2av_matrix_read(path, &m, err, sizeof err) == -1, "%s accepted", name);
    CHECK_CONTAINS(err, "byte offset");
    no_echo(err, name);
    cb_a2av_trace_t t;
    snprintf(name, sizeof name, "t-esc%zu.txt", k);
    path = puts_file(name, kEsc[k]);
    err[0] = 0;
    CHECK(cb_a2av_trace_read(path, &t, err, sizeof err) == -1, "%s accepted", name);
    CHECK_CONTAINS(err, "byte offset");
    no_echo(err, name);
  }
  /* the place is exact: the escape at byte offset 3, row 1, column 2 */
  char err[1024] = "";
  cb_a2av_matrix_t m;
  CHECK(cb_a2av_matrix_read(puts_file("esc-at.txt", "16 \x1b[31m32\n0 0\n"), &m, err, sizeof err) == -1, "accepted");
  CHECK_CONTAINS(err, "row 1, column 2 (the value at byte offset 3): byte 1 of the value is not a decimal digit");
}

static void test_readfile_cap(void) {
  char *text = NULL;
  size_t len = 0;
  char err[512];
  const char *p = puts_file("cap.txt", "0123456789");
  CHECK(cb_readfile(p, "test file", 10, &text, &len, err, sizeof err) == 0, "10 bytes at cap 10: %s", err);
  CHECK(len == 10 && text && strcmp(text, "0123456789") == 0, "read back");
  free(text);
  CHECK(cb_readfile(p, "test file", 9, &text, &len, err, sizeof err) == -1, "10 bytes at cap 9 accepted");
  CHECK_CONTAINS(err, "is 10 bytes, more than the 9 bytes");
  CHECK(text == NULL, "nothing handed back");
  CHECK(cb_readfile("", "test file", 9, &text, &len, err, sizeof err) == -1, "empty name accepted");
}

/* the command line: --counts values, the matrix's one size, options of moe mode */
static int parse(const char *line, char *err, size_t n) {
  static cb_args_t a;
  char buf[2048], *argv[64];
  int argc = 0;
  snprintf(buf, sizeof buf, "collbench %s", line);
  for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " ")) argv[argc++] = t;
  argv[argc] = NULL;
  err[0] = 0;
  int rc = cb_args_parse(argc, argv, &a, err, n);
  if (rc == CB_ARGS_OK && a.family == CB_ALLTOALLV) {
    cb_a2av_config_t *c = cb_args_config(&a);
    cb_a2av_config_release(c);
  }
  return rc;
}

static void test_cli(void) {
  char err[1024], line[1400];
  CHECK(parse("alltoallv", err, sizeof err) == CB_ARGS_OK, "%s", err);
  CHECK(parse("alltoallv --counts uniform -b 1K -e 1M", err, sizeof err) == CB_ARGS_OK, "%s", err);
  CHECK(parse("alltoallv --counts spread:0.25", err, sizeof err) == CB_ARGS_OK, "%s", err);
  CHECK(parse("alltoallv --counts moe --model mixtral-8x7b --routing zipf:1.2", err, sizeof err) == CB_ARGS_OK, "%s",
        err);
  CHECK(parse("alltoallv --counts spread:1.5", err, sizeof err) == CB_ARGS_ERROR, "spread 1.5 accepted");
  CHECK_CONTAINS(err, "spread:S needs a number S in [0, 1]");
  CHECK(parse("alltoallv --counts spread:0x1", err, sizeof err) == CB_ARGS_ERROR, "hex spread accepted");
  CHECK(parse("alltoallv --counts zipf", err, sizeof err) == CB_ARGS_ERROR, "unknown mode accepted");
  CHECK_CONTAINS(err, "unknown mode 'zipf'");
  CHECK(parse("alltoallv --counts matrix:", err, sizeof err) == CB_ARGS_ERROR, "empty matrix name accepted");
  CHECK(parse("alltoallv --routing zipf:1", err, sizeof err) == CB_ARGS_ERROR, "--routing without moe accepted");
  CHECK_CONTAINS(err, "--routing shapes --counts moe only");
  CHECK(parse("alltoallv --model mixtral-8x7b", err, sizeof err) == CB_ARGS_ERROR, "--model with spread accepted");
  snprintf(line, sizeof line, "alltoallv --counts trace:%s/trace.txt --model mixtral-8x7b", dir);
  CHECK(parse(line, err, sizeof err) == CB_ARGS_OK, "%s", err);
  snprintf(line, sizeof line, "alltoallv --counts trace:%s/trace.txt --routing zipf:1", dir);
  CHECK(parse(line, err, sizeof err) == CB_ARGS_ERROR, "--routing with a trace accepted");
  snprintf(line, sizeof line, "alltoallv --counts trace:%s/t-neg.txt", dir);
  CHECK(parse(line, err, sizeof err) == CB_ARGS_ERROR, "a bad trace accepted");
  CHECK(parse("alltoallv --counts moe --model gpt5", err, sizeof err) == CB_ARGS_ERROR, "unknown model accepted");
  CHECK(parse("allreduce --counts uniform", err, sizeof err) == CB_ARGS_ERROR, "--counts on allreduce accepted");
  CHECK_CONTAINS(err, "apply only to the alltoallv family");
  /* the matrix: read at parse time (before any GPU work), one size of at least its largest total */
  snprintf(line, sizeof line, "alltoallv --counts matrix:%s/good.txt -b 1K -e 1K", dir);
  CHECK(parse(line, err, sizeof err) == CB_ARGS_OK, "%s", err);
  snprintf(line, sizeof line, "alltoallv --counts matrix:%s/good.txt", dir);
  CHECK(parse(line, err, sizeof err) == CB_ARGS_ERROR, "a sweep accepted in matrix mode");
  CHECK_CONTAINS(err, "give one size of at least 624 B");
  snprintf(line, sizeof line, "alltoallv --counts matrix:%s/good.txt -b 512 -e 512", dir);
  CHECK(parse(line, err, sizeof err) == CB_ARGS_ERROR, "a size below the matrix's total accepted");
  snprintf(line, sizeof line, "alltoallv --counts matrix:%s/neg.txt -b 1K -e 1K", dir);
  CHECK(parse(line, err, sizeof err) == CB_ARGS_ERROR, "a negative matrix accepted");
  CHECK_CONTAINS(err, "a negative value");
  snprintf(line, sizeof line, "alltoallv --counts matrix:%s/zero.txt -b 1K -e 1K", dir);
  CHECK(parse(line, err, sizeof err) == CB_ARGS_ERROR, "a symlink to /dev/zero accepted");
  CHECK_CONTAINS(err, "is a symbolic link");
}

/* moe: every rank's counts from the router, the mean rank sending about the point */
static void test_moe(void) {
  cb_a2av_config_t c = cfg_mode("moe");
  char why[256];
  CHECK(cb_a2av_config_check_ranks(&c, 4, why, sizeof why) == 0, "%s", why);
  CHECK(cb_a2av_config_check_ranks(&c, 3, why, sizeof why) == -1, "256 experts on 3 ranks accepted");
  cb_a2av_counts_t k, k2;
  CHECK(cb_a2av_counts_make(&c, 1 << 20, 2, 4, 42, &k, why, sizeof why) == 0, "%s", why);
  CHECK(cb_a2av_counts_make(&c, 1 << 20, 2, 4, 42, &k2, why, sizeof why) == 0, "%s", why);
  uint64_t sum = 0;
  for (int x = 0; x < 16; x++) {
    sum += k.bytes[x];
    CHECK(k.bytes[x] == k2.bytes[x], "moe counts not reproducible at cell %d", x);
    CHECK(k.bytes[x] % 16 == 0 && k.bytes[x] > 0, "moe cell %d = %llu", x, (unsigned long long)k.bytes[x]);
  }
  CHECK(sum <= 4ull << 20 && sum > (4ull << 20) - 16 * 16, "moe: the ranks send %llu B in all, 4 x 1 MiB expected",
        (unsigned long long)sum);
  CHECK_EQ_INT(k.param_count, 0);
  cb_a2av_counts_free(&k);
  cb_a2av_counts_free(&k2);
  CHECK_CONTAINS(c.text, "moe:deepseek-v3:uniform");
}

int main(int argc, char **argv) {
  snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : "test_alltoallv.d");
  mkdir(dir, 0700);
  test_anchor_columns();
  test_spread_cells();
  test_matrix_good();
  test_matrix_bad();
  test_trace();
  test_trace_bad();
  test_hostile_bytes();
  test_readfile_cap();
  test_cli();
  test_moe();
  return cb_test_finish("test_alltoallv");
}
