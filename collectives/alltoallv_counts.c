/* Implementation of alltoallv_counts.h. */
#include "alltoallv_counts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "decimal.h"
#include "family.h"
#include "mix64.h"
#include "moe_router.h"

#define ALIGN16(x) ((x) & ~(uint64_t)15)

void cb_a2av_config_defaults(cb_a2av_config_t *c) {
  memset(c, 0, sizeof *c);
  c->mode = CB_A2AV_SPREAD;
  c->spread = 1.0;
  cb_moe_preset("deepseek-v3", &c->moe);
  c->moe.routing.kind = CB_ROUTE_UNIFORM;
}

int cb_a2av_mode_parse(const char *s, cb_a2av_config_t *c, char *why, size_t n) {
  if (strcasecmp(s, "uniform") == 0) {
    c->mode = CB_A2AV_UNIFORM;
    c->spread = 0.0;
  } else if (strcasecmp(s, "spread") == 0) {
    c->mode = CB_A2AV_SPREAD;
    c->spread = 1.0;
  } else if (strncasecmp(s, "spread:", 7) == 0) {
    double v;
    if (cb_decimal_real(s + 7, &v) || v < 0.0 || v > 1.0) {
      snprintf(why, n, "--counts: '%s': spread:S needs a number S in [0, 1]", s);
      return -1;
    }
    c->mode = CB_A2AV_SPREAD;
    c->spread = v == 0.0 ? 0.0 : v; /* -0 is 0: the counts column says spread:0, not spread:-0 */
  } else if (strncasecmp(s, "matrix:", 7) == 0 || strncasecmp(s, "trace:", 6) == 0) {
    int matrix = strncasecmp(s, "matrix:", 7) == 0;
    const char *file = s + (matrix ? 7 : 6), *what = matrix ? "matrix" : "trace";
    if (!file[0]) {
      snprintf(why, n, "--counts: '%s:' needs a file name (%s:FILE)", what, what);
      return -1;
    }
    if (strlen(file) >= sizeof c->path) {
      snprintf(why, n, "--counts: the %s file name is longer than %zu bytes", what, sizeof c->path - 1);
      return -1;
    }
    for (const char *q = file; *q; q++)
      if ((unsigned char)*q < 0x20 || *q == 0x7f) { /* it would split the error line and the rows' counts column */
        snprintf(why, n,
                 "--counts: the %s file name holds a control character (a line break, a tab, ...): rename the file",
                 what);
        return -1;
      }
    c->mode = matrix ? CB_A2AV_MATRIX : CB_A2AV_TRACE;
    snprintf(c->path, sizeof c->path, "%s", file);
  } else if (strcasecmp(s, "moe") == 0) {
    c->mode = CB_A2AV_MOE;
  } else {
    snprintf(why, n,
             "--counts: unknown mode '%.64s' (accepted: uniform, spread, spread:S, matrix:FILE, moe, trace:FILE)", s);
    return -1;
  }
  return 0;
}

int cb_a2av_config_finish(cb_a2av_config_t *c, char *why, size_t n) {
  switch (c->mode) {
  case CB_A2AV_UNIFORM: snprintf(c->text, sizeof c->text, "uniform"); break;
  case CB_A2AV_SPREAD:
    if (c->spread == 1.0) snprintf(c->text, sizeof c->text, "spread");
    else snprintf(c->text, sizeof c->text, "spread:%.6g", c->spread);
    break;
  case CB_A2AV_MATRIX:
    cb_a2av_matrix_free(&c->matrix);
    if (cb_a2av_matrix_read(c->path, &c->matrix, why, n)) return -1;
    snprintf(c->text, sizeof c->text, "matrix:%s", c->path);
    break;
  case CB_A2AV_TRACE:
    cb_a2av_trace_free(&c->trace);
    if (cb_a2av_trace_read(c->path, &c->trace, why, n)) return -1;
    snprintf(c->text, sizeof c->text, "trace:%s", c->path);
    if (cb_moe_config_check(&c->moe, 0, CB_BF16, why, n)) return -1;
    break;
  case CB_A2AV_MOE:
    cb_routing_format(&c->moe.routing, c->moe.routing_text, sizeof c->moe.routing_text);
    snprintf(c->text, sizeof c->text, "moe:%s:%s", c->moe.model, c->moe.routing_text);
    if (cb_moe_config_check(&c->moe, 0, CB_BF16, why, n)) return -1;
    break;
  }
  return 0;
}

int cb_a2av_config_check_ranks(const cb_a2av_config_t *c, int nranks, char *why, size_t n) {
  if (c->mode == CB_A2AV_MATRIX && c->matrix.dim != nranks) {
    snprintf(why, n, "--counts matrix file '%s' is %d x %d, the run has %d ranks: the matrix must be ranks x ranks",
             c->path, c->matrix.dim, c->matrix.dim, nranks);
    return -1;
  }
  if (c->mode == CB_A2AV_TRACE && c->trace.max_rank >= nranks) {
    snprintf(why, n, "--counts trace file '%s' has tokens of rank %d, the run has %d ranks", c->path, c->trace.max_rank,
             nranks);
    return -1;
  }
  if (c->mode == CB_A2AV_TRACE && c->trace.max_expert >= c->moe.experts) {
    snprintf(why, n, "--counts trace file '%s' names expert %d, --model %s has %d experts", c->path,
             c->trace.max_expert, c->moe.model, c->moe.experts);
    return -1;
  }
  if (c->mode == CB_A2AV_MOE || c->mode == CB_A2AV_TRACE) return cb_moe_config_check(&c->moe, nranks, CB_BF16, why, n);
  return 0;
}

uint64_t cb_a2av_config_digest(const cb_a2av_config_t *c) {
  uint64_t h = cb_mix64((uint64_t)c->mode), bits;
  memcpy(&bits, &c->spread, sizeof bits);
  h = cb_mix64(h ^ bits);
  if (c->mode == CB_A2AV_MATRIX) {
    h = cb_mix64(h ^ (uint64_t)c->matrix.dim);
    for (size_t x = 0; c->matrix.bytes && x < (size_t)c->matrix.dim * (size_t)c->matrix.dim; x++)
      h = cb_mix64(h ^ c->matrix.bytes[x]);
  }
  if (c->mode == CB_A2AV_TRACE) {
    h = cb_mix64(h ^ (uint64_t)c->trace.ntokens);
    for (size_t t = 0; c->trace.src && t < c->trace.ntokens; t++) {
      h = cb_mix64(h ^ (uint64_t)c->trace.src[t] ^ ((uint64_t)(c->trace.first[t + 1] - c->trace.first[t]) << 32));
      for (size_t e = c->trace.first[t]; e < c->trace.first[t + 1]; e++)
        h = cb_mix64(h ^ (uint64_t)c->trace.experts[e]);
    }
  }
  return h;
}

void cb_a2av_config_release(cb_a2av_config_t *c) {
  cb_a2av_matrix_free(&c->matrix);
  cb_a2av_trace_free(&c->trace);
}

/* nccl-tests computes it in double and truncates; the same operations in the same order give
 * the same bytes */
uint64_t cb_a2av_spread_cell(int i, int j, int n, uint64_t total_bytes, double spread) {
  if (n == 1) return ALIGN16(total_bytes);
  int distance = (j - i + n) % n;
  uint64_t sum_distances = (uint64_t)n * (uint64_t)(n - 1) / 2;
  double uniform = (double)total_bytes / (double)n;
  double dist = (double)distance * (double)total_bytes / (double)sum_distances;
  double bytes = (1.0 - spread) * uniform + spread * dist;
  return ALIGN16((uint64_t)bytes);
}

/* tokens of rank i that reach rank j (at least one expert there), for every i, j */
static int moe_token_counts(const cb_moe_config_t *moe, uint64_t seed, int n, double *cnt, char *why, size_t nwhy) {
  for (int i = 0; i < n; i++) {
    cb_moe_routing_t r;
    if (cb_moe_route(moe, seed, i, n, CB_A2AV_MOE_TOKENS, &r)) {
      snprintf(why, nwhy, "moe counts: the router failed (out of host memory)");
      return -1;
    }
    for (int j = 0; j < n; j++) {
      int c = 0;
      for (int t = 0; t < CB_A2AV_MOE_TOKENS; t++) c += cb_moe_token_goes_to(&r, t, moe->experts, n, j);
      cnt[(size_t)i * n + j] = c;
    }
    cb_moe_routing_free(&r);
  }
  return 0;
}

static int fill(const cb_a2av_config_t *c, uint64_t point, size_t es, int n, uint64_t seed, cb_a2av_counts_t *k,
                char *why, size_t nwhy) {
  size_t nn = (size_t)n * (size_t)n;
  if (c->mode == CB_A2AV_UNIFORM || c->mode == CB_A2AV_SPREAD) {
    uint64_t count = point / es;
    k->param_count = (count / (uint64_t)n) & ~(uint64_t)(16 / es - 1);
    uint64_t total = k->param_count * (uint64_t)n * es;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) k->bytes[(size_t)i * n + j] = cb_a2av_spread_cell(i, j, n, total, c->spread);
    return 0;
  }
  k->param_count = 0;
  if (c->mode == CB_A2AV_MATRIX) {
    for (size_t x = 0; x < nn; x++) k->bytes[x] = ALIGN16(c->matrix.bytes[x]);
    return 0;
  }
  double *cnt = malloc(sizeof(double) * nn);
  if (!cnt) {
    snprintf(why, nwhy, "moe counts: out of host memory");
    return -1;
  }
  if (c->mode == CB_A2AV_TRACE) {
    if (c->trace.max_rank >= n || c->trace.max_expert >= c->moe.experts || c->moe.experts % n) {
      snprintf(why, nwhy, "alltoallv: the trace does not fit %d ranks and %d experts", n, c->moe.experts);
      free(cnt);
      return -1;
    }
    cb_a2av_trace_counts(&c->trace, c->moe.experts, n, cnt);
  } else if (moe_token_counts(&c->moe, seed, n, cnt, why, nwhy)) {
    free(cnt);
    return -1;
  }
  double sum = 0.0;
  for (size_t x = 0; x < nn; x++) sum += cnt[x];
  double mean = sum / (double)n; /* token copies the mean rank sends */
  for (size_t x = 0; x < nn; x++) {
    long double b = mean > 0.0 ? (long double)point * (long double)cnt[x] / (long double)mean : 0.0L;
    k->bytes[x] = b > (long double)CB_MAX_BUFFER_BYTES ? CB_MAX_BUFFER_BYTES + 16 : ALIGN16((uint64_t)b);
  }
  free(cnt);
  return 0;
}

int cb_a2av_counts_make(const cb_a2av_config_t *c, uint64_t point, size_t es, int n, uint64_t seed, cb_a2av_counts_t *k,
                        char *why, size_t nwhy) {
  memset(k, 0, sizeof *k);
  if (n < 1 || es == 0 || es > 16 || 16 % es) {
    snprintf(why, nwhy, "alltoallv: invalid rank count or element size");
    return -1;
  }
  if (c->mode == CB_A2AV_MATRIX && c->matrix.dim != n) {
    snprintf(why, nwhy, "alltoallv: the matrix is %d x %d, the run has %d ranks", c->matrix.dim, c->matrix.dim, n);
    return -1;
  }
  k->n = n;
  k->bytes = calloc((size_t)n * (size_t)n, sizeof(uint64_t));
  if (!k->bytes) {
    snprintf(why, nwhy, "alltoallv counts: out of host memory");
    return -1;
  }
  if (fill(c, point, es, n, seed, k, why, nwhy)) {
    cb_a2av_counts_free(k);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    /* cells are at most 2^40 + 16 and n at most 2^12: the sums cannot overflow */
    uint64_t s = cb_a2av_send_total(k, i), r = cb_a2av_recv_total(k, i);
    if (s > k->max_send) k->max_send = s;
    if (r > k->max_recv) k->max_recv = r;
  }
  if (cb_a2av_size_bytes(k) > CB_MAX_BUFFER_BYTES) {
    snprintf(why, nwhy,
             "alltoallv: a rank would move %llu B, more than the %llu B (1 TiB) buffer collbench can allocate",
             (unsigned long long)cb_a2av_size_bytes(k), CB_MAX_BUFFER_BYTES);
    cb_a2av_counts_free(k);
    return -1;
  }
  return 0;
}

void cb_a2av_counts_free(cb_a2av_counts_t *k) {
  free(k->bytes);
  k->bytes = NULL;
}

uint64_t cb_a2av_send_offset(const cb_a2av_counts_t *k, int i, int j) {
  uint64_t o = 0;
  for (int q = 0; q < j; q++) o += cb_a2av_cell(k, i, q);
  return o;
}

uint64_t cb_a2av_recv_offset(const cb_a2av_counts_t *k, int i, int j) {
  uint64_t o = 0;
  for (int q = 0; q < i; q++) o += cb_a2av_cell(k, q, j);
  return o;
}

uint64_t cb_a2av_send_total(const cb_a2av_counts_t *k, int i) { return cb_a2av_send_offset(k, i, k->n); }
uint64_t cb_a2av_recv_total(const cb_a2av_counts_t *k, int j) { return cb_a2av_recv_offset(k, k->n, j); }
