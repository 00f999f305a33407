/* The value parsers of collbench's command line (args_values.h): numbers, lists, sweep points
 * and ranges, name lists, output paths. Pure C, no global state: the CPU tests parse many
 * command lines in one process. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "args_values.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cb_limits.h"
#include "decimal.h"
#include "strbuf.h"

int cb_argp_fail(cb_argp_t *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->err, p->errlen, fmt, ap);
  va_end(ap);
  return CB_ARGS_ERROR;
}

int cb_argp_int(const char *s, long lo, long hi, long *out) { return cb_decimal_long(s, lo, hi, out); }

/* Decimal digits only: base 0 would read "010" as 8 and reject "08". */
int cb_argp_u64(const char *s, uint64_t *out) {
  if (!isdigit((unsigned char)s[0])) return -1;
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || *end || errno) return -1;
  *out = (uint64_t)v;
  return 0;
}

/* Decimal only, as the integers: strtod alone would take " 2", "+2", "0x2" and "inf". */
int cb_argp_real(const char *s, double *out) { return cb_decimal_real(s, out); }

/* A size past CB_MAX_BUFFER_BYTES cannot be allocated (and its buffer products could overflow). */
int cb_argp_too_large(cb_argp_t *p, const char *opt, const char *val) {
  return cb_argp_fail(p, "%s: '%s' is larger than 1T (1 TiB), the largest per-rank buffer collbench can allocate", opt,
                      val);
}

int cb_argp_each_item(cb_argp_t *p, cb_args_t *a, const char *opt, const char *list, cb_argp_item_fn fn) {
  char buf[1024];
  if (strlen(list) >= sizeof buf) return cb_argp_fail(p, "%s: list too long", opt);
  snprintf(buf, sizeof buf, "%s", list);
  if (!buf[0] || buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,"))
    return cb_argp_fail(p, "%s: '%s' has an empty item", opt, list);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int rc = fn(p, a, tok);
    if (rc) return rc;
  }
  return 0;
}

/* Adds one sweep point; a value already listed is an error (it would run twice). */
static int add_point(cb_argp_t *p, cb_args_t *a, const char *opt, uint64_t v, const char *tok) {
  for (int i = 0; i < a->npoints; i++)
    if (a->points[i] == v) return cb_argp_fail(p, "%s: '%s' is listed twice", opt, tok);
  if (a->npoints == CB_MAX_SWEEP_POINTS) return cb_argp_fail(p, "%s: too many values", opt);
  a->points[a->npoints++] = v;
  return 0;
}

static int empty_item(const char *list) {
  size_t n = strlen(list);
  return !n || list[0] == ',' || list[n - 1] == ',' || strstr(list, ",,");
}

static int add_one_dtype(cb_argp_t *p, cb_args_t *a, cb_dtype_t t, const char *s) {
  for (int i = 0; i < a->ndtypes; i++)
    if (a->dtypes[i] == t) return cb_argp_fail(p, "-d/--datatype: '%s' given twice", s);
  a->dtypes[a->ndtypes++] = t;
  return 0;
}

/* `-d all`: every type the family takes (family.h dtypes), in nccl-tests' -d all order. */
static const cb_dtype_t all_dtypes[CB_NDTYPES] = {CB_INT8, CB_UINT8, CB_INT32,  CB_UINT32, CB_INT64,   CB_UINT64,
                                                  CB_HALF, CB_FLOAT, CB_DOUBLE, CB_BF16,   CB_FP8E4M3, CB_FP8E5M2};
/* `-o all`: in nccl-tests' -o all order. */
static const cb_redop_t all_ops[CB_NREDOPS] = {CB_SUM, CB_PROD, CB_MAX, CB_MIN, CB_AVG};

int cb_argp_add_dtype(cb_argp_t *p, cb_args_t *a, const char *s) {
  cb_dtype_t t;
  if (strcasecmp(s, "all") == 0) {
    const unsigned mask = cb_family_dtype_mask(a->family);
    a->dtypes_all = 1;
    for (int i = 0; i < CB_NDTYPES; i++)
      if ((mask & (1u << all_dtypes[i])) && add_one_dtype(p, a, all_dtypes[i], s)) return CB_ARGS_ERROR;
    return 0;
  }
  if (cb_dtype_parse(s, &t))
    return cb_argp_fail(p, "-d/--datatype: unknown data type '%s' (accepted: %s)", s, cb_dtype_accepted());
  return add_one_dtype(p, a, t, s);
}

static int add_one_op(cb_argp_t *p, cb_args_t *a, cb_redop_t op, const char *s) {
  for (int i = 0; i < a->nops; i++)
    if (a->ops[i] == op) return cb_argp_fail(p, "-o/--op: '%s' given twice", s);
  a->ops[a->nops++] = op;
  return 0;
}

int cb_argp_add_op(cb_argp_t *p, cb_args_t *a, const char *s) {
  cb_redop_t op;
  if (strcasecmp(s, "all") == 0) {
    for (int i = 0; i < CB_NREDOPS; i++)
      if (add_one_op(p, a, all_ops[i], s)) return CB_ARGS_ERROR;
    return 0;
  }
  if (cb_redop_parse(s, &op))
    return cb_argp_fail(p, "-o/--op: unknown reduction '%s' (accepted: %s)", s, cb_redop_accepted());
  return add_one_op(p, a, op, s);
}

int cb_argp_add_algo(cb_argp_t *p, cb_args_t *a, const char *s) {
  if (a->nalgos == CB_MAX_ALGOS) return cb_argp_fail(p, "--algo: more than %d names", CB_MAX_ALGOS);
  if (strlen(s) >= CB_NAME_MAX) return cb_argp_fail(p, "--algo: name '%s' is too long", s);
  for (int i = 0; i < a->nalgos; i++)
    if (strcmp(a->algos[i], s) == 0) return cb_argp_fail(p, "--algo: '%s' given twice", s);
  snprintf(a->algos[a->nalgos++], CB_NAME_MAX, "%s", s);
  return 0;
}

/* One sweep point of spec (NULL: a size in bytes) into *v; -1 with the error in p when tok is
 * not one. */
static int point_value(cb_argp_t *p, const char *opt, const char *tok, const cb_points_spec_t *spec, uint64_t *v) {
  long t;
  if (!spec || spec->suffixes) {
    if (cb_parse_size(tok, v)) return cb_argp_fail(p, "%s: '%s' is not a size", opt, tok);
    if (!spec && *v > CB_MAX_BUFFER_BYTES) return cb_argp_too_large(p, opt, tok);
  } else if (cb_argp_int(tok, (long)spec->min, (long)spec->max, &t) == 0) {
    *v = (uint64_t)t;
  } else {
    *v = spec->max + 1; /* out of range: the message below */
  }
  if (spec && (*v < spec->min || *v > spec->max))
    return cb_argp_fail(p, "%s: '%s' is not a %s %llu..%llu", opt, tok, spec->noun, (unsigned long long)spec->min,
                        (unsigned long long)spec->max);
  return 0;
}

/* A comma list of sweep points for opt. Empty items and repeated values are errors. */
int cb_argp_point_list(cb_argp_t *p, cb_args_t *a, const char *opt, const char *list, const cb_points_spec_t *spec) {
  char buf[4096];
  if (strlen(list) >= sizeof buf) return cb_argp_fail(p, "%s: list too long", opt);
  if (empty_item(list)) return cb_argp_fail(p, "%s: '%s' has an empty item", opt, list);
  snprintf(buf, sizeof buf, "%s", list);
  a->npoints = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    uint64_t v;
    int rc = point_value(p, opt, tok, spec, &v);
    if (!rc) rc = add_point(p, a, opt, v, tok);
    if (rc) return rc;
  }
  return 0;
}

/* One end of a sweep range of spec: 0, or -1 when tok is not one. */
static int range_end(const cb_points_spec_t *spec, const char *tok, uint64_t *v) {
  if (spec->suffixes) return cb_parse_size(tok, v);
  long t;
  if (cb_argp_int(tok, (long)spec->min, (long)spec->max, &t)) return -1;
  *v = (uint64_t)t;
  return 0;
}

/* A family's point option: a comma list, or "A:B" (A, 2A, 4A, ... up to B) or "A:B:F" (factor
 * F). The parts are parsed from a copy of the whole value (no fixed-size buffer: a cut value
 * could hide trailing garbage or lose its ':'). */
int cb_argp_range(cb_argp_t *p, cb_args_t *a, const char *opt, const char *s, const cb_points_spec_t *spec) {
  if (!strchr(s, ':')) return cb_argp_point_list(p, a, opt, s, spec);
  char why[256];
  char *buf = strdup(s);
  if (!buf) return cb_argp_fail(p, "%s: out of memory", opt);
  char *c1 = strchr(buf, ':');
  *c1 = 0;
  char *c2 = strchr(c1 + 1, ':');
  if (c2) *c2 = 0;
  uint64_t lo, hi;
  double f = 2.0;
  int bad = range_end(spec, buf, &lo) || range_end(spec, c1 + 1, &hi) || (c2 && (cb_argp_real(c2 + 1, &f) || f <= 1.0));
  free(buf);
  if (bad) return cb_argp_fail(p, "%s: '%s' is not A:B or A:B:F (%s, factor > 1)", opt, s, spec->range_form);
  if (lo == 0) return cb_argp_fail(p, "%s: a geometric range cannot start at 0 ('%s'); list 0 explicitly", opt, s);
  int n = cb_sweep(lo, hi, f, 0, a->points, CB_MAX_SWEEP_POINTS, why, sizeof why);
  if (n < 0) return cb_argp_fail(p, "%s: %s", opt, why);
  a->npoints = n;
  return 0;
}

/* Whether two output paths name one file: equal text, the same name in the same directory once
 * the directory is resolved ("out/r" and "./out/../out/r"), or, when both exist, one file
 * (st_dev and st_ino: a symlink or a hard link to the other). A directory that does not exist
 * yet falls back to the text. */
static int same_output_path(const char *x, const char *y) {
  if (strcmp(x, y) == 0) return 1;
  struct stat sx, sy;
  if (stat(x, &sx) == 0 && stat(y, &sy) == 0 && sx.st_dev == sy.st_dev && sx.st_ino == sy.st_ino) return 1;
  const char *bx = strrchr(x, '/'), *by = strrchr(y, '/');
  if (strcmp(bx ? bx + 1 : x, by ? by + 1 : y) != 0) return 0;
  char dx[CB_PATH_MAX], dy[CB_PATH_MAX];
  snprintf(dx, sizeof dx, "%.*s", bx ? (int)(bx - x) + 1 : 1, bx ? x : ".");
  snprintf(dy, sizeof dy, "%.*s", by ? (int)(by - y) + 1 : 1, by ? y : ".");
  char *rx = realpath(dx, NULL), *ry = realpath(dy, NULL);
  int same = rx && ry && strcmp(rx, ry) == 0;
  free(rx);
  free(ry);
  return same;
}

/* --csv and --json (and the JSON's FILE.partial.jsonl) must be different files: otherwise the
 * JSON's files would replace the CSV. */
int cb_argp_check_outputs(cb_argp_t *p, const cb_args_t *a) {
  if (!a->csv[0] || !a->json[0]) return 0;
  static const char *json_files[] = {"", ".partial.jsonl"};
  for (size_t i = 0; i < sizeof json_files / sizeof json_files[0]; i++) {
    char jf[CB_PATH_MAX + 16];
    snprintf(jf, sizeof jf, "%s%s", a->json, json_files[i]);
    if (same_output_path(a->csv, jf))
      return cb_argp_fail(p, "--csv '%s' and --json '%s' would write the same file ('%s'); give two different names",
                          a->csv, a->json, jf);
  }
  return 0;
}

/* argv joined with spaces for the results metadata; a command line longer than out is cut at
 * a UTF-8 character boundary, never inside a character. */
void cb_argp_join_cmdline(char *out, size_t cap, int argc, char **argv) {
  size_t off = 0;
  out[0] = 0;
  for (int i = 0; i < argc; i++) {
    size_t room = cap - 1 - off;
    if (i && room) {
      out[off++] = ' ';
      room--;
    }
    size_t len = strlen(argv[i]);
    size_t take = len <= room ? len : cb_utf8_prefix(argv[i], room);
    memcpy(out + off, argv[i], take);
    off += take;
    if (take < len) break;
  }
  out[off] = 0;
}
