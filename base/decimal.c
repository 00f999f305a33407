/* Implementation of decimal.h: the text is matched against the grammar first, then converted. */
#include "decimal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static int digits(const char **p) {
  const char *s = *p;
  while (**p >= '0' && **p <= '9') (*p)++;
  return (int)(*p - s);
}

int cb_decimal_long(const char *s, long lo, long hi, long *out) {
  const char *p = s + (*s == '-');
  if (!digits(&p) || *p) return -1;
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

int cb_decimal_real(const char *s, double *out) {
  const char *p = s + (*s == '-');
  int whole = digits(&p), frac = 0;
  if (*p == '.') {
    p++;
    frac = digits(&p);
  }
  if (!whole && !frac) return -1;
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!digits(&p)) return -1;
  }
  if (*p) return -1;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (*end || errno || !isfinite(v)) return -1; /* ERANGE: overflow or underflow */
  *out = v;
  return 0;
}
