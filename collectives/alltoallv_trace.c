/* Implementation of alltoallv_trace.h: two passes over the text, the first checks every line and
 * counts tokens and ids (nothing is allocated for a bad file), the second stores them. */
#include "alltoallv_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readfile.h"

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
static int is_sep(char c) { return is_blank(c) || c == '\n' || c == 0; }

/* one decimal value at *p, at most max: 0 with *v and *p past it, or -1 with why. why says what
 * was expected, never what the file holds (a hostile file's bytes, a terminal escape, must not
 * reach the user's terminal through a message); the caller gives the line, value and offset. */
static int read_value(const char **p, long max, long *v, char *why, size_t n) {
  const char *s = *p, *e = s;
  while (!is_sep(*e)) e++;
  long x = 0;
  for (const char *q = s; q < e; q++) {
    if (*q < '0' || *q > '9') {
      snprintf(why, n, "byte %zu of the value is not a decimal digit: expected an integer 0..%ld", (size_t)(q - s) + 1,
               max);
      return -1;
    }
    if (x <= max) x = x * 10 + (*q - '0');
  }
  if (x > max) {
    snprintf(why, n, "a value of more than %ld", max);
    return -1;
  }
  *v = x;
  *p = e;
  return 0;
}

/* walks the text; with t->src set, stores the tokens. Counts tokens and ids in *ntok, *nids. */
static int walk(const char *text, const char *name, cb_a2av_trace_t *t, size_t *ntok, size_t *nids, char *err,
                size_t n) {
  size_t line = 0, tok = 0, ids = 0;
  char why[160];
  for (const char *p = text; *p;) {
    line++;
    while (is_blank(*p)) p++;
    if (*p == '#') { /* a comment: to the end of the line */
      while (*p && *p != '\n') p++;
    }
    int k = -1; /* values on this line, the rank first */
    while (*p && *p != '\n') {
      long v;
      long max = k < 0 ? CB_A2AV_TRACE_MAX_RANK : CB_A2AV_TRACE_MAX_EXPERT - 1;
      const size_t at = (size_t)(p - text); /* the value's first byte, 0-based */
      if (read_value(&p, max, &v, why, sizeof why)) {
        snprintf(err, n, "--counts trace file '%s': line %zu, value %d (at byte offset %zu): %s %s", name, line, k + 2,
                 at, k < 0 ? "the source rank:" : "an expert id:", why);
        return -1;
      }
      if (++k > CB_A2AV_TRACE_MAX_TOPK) {
        snprintf(err, n, "--counts trace file '%s': line %zu: more than %d experts for one token", name, line,
                 CB_A2AV_TRACE_MAX_TOPK);
        return -1;
      }
      if (t->src) {
        if (k == 0) {
          t->src[tok] = (int32_t)v;
          t->first[tok] = ids;
          if (v > t->max_rank) t->max_rank = (int)v;
        } else {
          t->experts[ids] = (int32_t)v;
          if (v > t->max_expert) t->max_expert = (int)v;
        }
      }
      if (k > 0) ids++;
      while (is_blank(*p)) p++;
    }
    if (k == 0) {
      snprintf(err, n, "--counts trace file '%s': line %zu: a token needs its source rank and at least one expert",
               name, line);
      return -1;
    }
    if (k > 0) tok++;
    if (*p == '\n') p++;
  }
  if (tok == 0) {
    snprintf(err, n, "--counts trace file '%s' holds no tokens", name);
    return -1;
  }
  if (t->src) t->first[tok] = ids;
  *ntok = tok;
  *nids = ids;
  return 0;
}

int cb_a2av_trace_parse(const char *text, const char *name, cb_a2av_trace_t *out, char *err, size_t n) {
  memset(out, 0, sizeof *out);
  size_t ntok = 0, nids = 0;
  cb_a2av_trace_t t = {0};
  if (walk(text, name, &t, &ntok, &nids, err, n)) return -1;
  t.src = malloc(sizeof(int32_t) * ntok);
  t.first = malloc(sizeof(size_t) * (ntok + 1));
  t.experts = malloc(sizeof(int32_t) * nids);
  if (!t.src || !t.first || !t.experts) {
    cb_a2av_trace_free(&t);
    snprintf(err, n, "--counts trace file '%s': out of host memory", name);
    return -1;
  }
  walk(text, name, &t, &ntok, &nids, err, n); /* the same text: it passes again */
  t.ntokens = ntok;
  *out = t;
  return 0;
}

int cb_a2av_trace_read(const char *path, cb_a2av_trace_t *out, char *err, size_t n) {
  char *text = NULL;
  size_t len = 0;
  memset(out, 0, sizeof *out);
  if (cb_readfile(path, "--counts trace file", CB_A2AV_TRACE_MAX_FILE, &text, &len, err, n)) return -1;
  int rc = cb_a2av_trace_parse(text, path, out, err, n);
  free(text);
  return rc;
}

void cb_a2av_trace_free(cb_a2av_trace_t *t) {
  free(t->src);
  free(t->first);
  free(t->experts);
  memset(t, 0, sizeof *t);
}

void cb_a2av_trace_counts(const cb_a2av_trace_t *t, int experts, int nranks, double *cnt) {
  int per = experts / nranks;
  memset(cnt, 0, sizeof(double) * (size_t)nranks * (size_t)nranks);
  unsigned char seen[CB_A2AV_TRACE_MAX_RANK + 1];
  for (size_t x = 0; x < t->ntokens; x++) {
    memset(seen, 0, (size_t)nranks);
    for (size_t e = t->first[x]; e < t->first[x + 1]; e++) {
      int d = t->experts[e] / per;
      if (!seen[d]) cnt[(size_t)t->src[x] * nranks + d] += 1.0;
      seen[d] = 1;
    }
  }
}
