/* libFuzzer target: alltoallv's two file parsers on the same text, the traffic matrix
 * (collectives/alltoallv_matrix.c) and the routing trace (alltoallv_trace.c), and the counts
 * built from what they accept (alltoallv_counts.c). Input: the file's bytes (the parsers see what
 * base/readfile.h hands them: text up to the first NUL).
 *
 * Beyond "no crash, no sanitizer report": a refusal is one non-empty line of printable ASCII (no
 * byte of the file: a terminal escape must not reach the terminal through a message); an
 * accepted matrix is square, at most CB_A2AV_MATRIX_MAX_DIM on a side, every value and every
 * rank's send and receive total within CB_MAX_BUFFER_BYTES; written back as text it parses to
 * the same values; the counts on its side of ranks are the values rounded down to 16 bytes, the
 * size column the largest total. An accepted trace holds a token per line it counts, each with a
 * rank and experts within the caps; its counts on 1, 2 and 4 ranks (8 experts per rank) sum to at
 * least its tokens and at most its expert ids. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alltoallv_counts.h"
#include "family.h"
#include "text_check.h"

#define FAIL(...) CB_FUZZ_FAIL("fuzz_alltoallv", __VA_ARGS__)

static void check_counts(const cb_a2av_matrix_t *m) {
  cb_a2av_config_t c;
  cb_a2av_config_defaults(&c);
  c.mode = CB_A2AV_MATRIX;
  c.matrix = *m;
  cb_a2av_counts_t k;
  char why[256];
  if (cb_a2av_counts_make(&c, 0, 4, m->dim, 0, &k, why, sizeof why)) FAIL("accepted matrix not counted: %s", why);
  uint64_t most = 0;
  for (int i = 0; i < m->dim; i++) {
    uint64_t s = 0, r = 0;
    for (int j = 0; j < m->dim; j++) {
      uint64_t v = m->bytes[(size_t)i * m->dim + j];
      if (cb_a2av_cell(&k, i, j) != (v & ~(uint64_t)15)) FAIL("cell %d,%d not rounded down to 16", i, j);
      s += cb_a2av_cell(&k, i, j);
      r += cb_a2av_cell(&k, j, i);
    }
    if (s > CB_MAX_BUFFER_BYTES || r > CB_MAX_BUFFER_BYTES) FAIL("rank %d's totals past 1 TiB accepted", i);
    if (cb_a2av_send_total(&k, i) != s || cb_a2av_recv_total(&k, i) != r) FAIL("rank %d: totals disagree", i);
    if (s > most) most = s;
    if (r > most) most = r;
  }
  if (cb_a2av_size_bytes(&k) != most)
    FAIL("size column %llu, largest total %llu", (unsigned long long)cb_a2av_size_bytes(&k), (unsigned long long)most);
  cb_a2av_counts_free(&k);
}

static void round_trip(const cb_a2av_matrix_t *m) {
  size_t cap = (size_t)m->dim * (size_t)m->dim * 15 + (size_t)m->dim + 1, off = 0;
  char *text = malloc(cap);
  if (!text) return;
  for (int i = 0; i < m->dim; i++)
    for (int j = 0; j < m->dim; j++)
      off += (size_t)snprintf(text + off, cap - off, "%llu%c", (unsigned long long)m->bytes[(size_t)i * m->dim + j],
                              j == m->dim - 1 ? '\n' : ' ');
  cb_a2av_matrix_t again;
  char err[512];
  if (cb_a2av_matrix_parse(text, "round-trip", &again, err, sizeof err)) FAIL("written back, refused: %s", err);
  if (again.dim != m->dim || memcmp(again.bytes, m->bytes, sizeof(uint64_t) * (size_t)m->dim * (size_t)m->dim))
    FAIL("written back, parsed differently");
  cb_a2av_matrix_free(&again);
  free(text);
}

/* A refusal is one line naming the file, in printable ASCII only: the readers report where and
 * what was expected, never the file's bytes (a terminal escape in a file must not reach the
 * user's terminal through a message). */
static void one_line(const char *err, const char *name) {
  size_t n = strlen(err);
  if (!n || strchr(err, '\n') || !cb_text_valid_utf8(err, n)) FAIL("refusal is not one line of UTF-8: '%s'", err);
  if (!strstr(err, name)) FAIL("refusal does not name the file: '%s'", err);
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)err[i] < 0x20 || (unsigned char)err[i] > 0x7e)
      FAIL("refusal holds byte 0x%02x (a byte of the file?)", (unsigned char)err[i]);
}

static void check_trace(const char *text) {
  cb_a2av_trace_t t;
  char err[1024] = "";
  if (cb_a2av_trace_parse(text, "trace.txt", &t, err, sizeof err)) {
    one_line(err, "trace.txt");
    return;
  }
  if (t.ntokens == 0 || t.max_rank > CB_A2AV_TRACE_MAX_RANK || t.max_expert >= CB_A2AV_TRACE_MAX_EXPERT)
    FAIL("accepted trace: %zu tokens, rank %d, expert %d", t.ntokens, t.max_rank, t.max_expert);
  size_t ids = t.first[t.ntokens];
  for (size_t x = 0; x < t.ntokens; x++) {
    if (t.first[x + 1] <= t.first[x] || t.first[x + 1] - t.first[x] > CB_A2AV_TRACE_MAX_TOPK)
      FAIL("token %zu has %zu experts", x, t.first[x + 1] - t.first[x]);
    if (t.src[x] < 0 || t.src[x] > t.max_rank) FAIL("token %zu: rank %d", x, t.src[x]);
  }
  static const int ranks[] = {1, 2, 4};
  for (size_t r = 0; r < sizeof ranks / sizeof ranks[0]; r++) {
    int n = ranks[r];
    if (t.max_rank >= n || t.max_expert >= 8 * n) continue;
    double cnt[16], sum = 0.0;
    cb_a2av_trace_counts(&t, 8 * n, n, cnt);
    for (int c = 0; c < n * n; c++) sum += cnt[c];
    if (sum < (double)t.ntokens || sum > (double)ids)
      FAIL("%d ranks: %.0f copies of %zu tokens, %zu ids", n, sum, t.ntokens, ids);
  }
  cb_a2av_trace_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  cb_a2av_matrix_t m;
  char err[1024] = "";
  if (cb_a2av_matrix_parse(text, "fuzz.txt", &m, err, sizeof err)) {
    one_line(err, "fuzz.txt");
  } else {
    if (m.dim < 1 || m.dim > CB_A2AV_MATRIX_MAX_DIM) FAIL("accepted side %d", m.dim);
    for (size_t x = 0; x < (size_t)m.dim * (size_t)m.dim; x++)
      if (m.bytes[x] > CB_MAX_BUFFER_BYTES) FAIL("accepted value %llu", (unsigned long long)m.bytes[x]);
    check_counts(&m);
    if (m.dim <= 64) round_trip(&m);
    cb_a2av_matrix_free(&m);
  }
  check_trace(text);
  free(text);
  return 0;
}
