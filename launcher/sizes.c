/* Implementation of sizes.h. */
#include "sizes.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int cb_parse_size(const char *s, uint64_t *out) {
  if (!s || !isdigit((unsigned char)s[0])) return -1;
  uint64_t v = 0;
  const char *p = s;
  for (; isdigit((unsigned char)*p); p++) {
    uint64_t d = (uint64_t)(*p - '0');
    if (v > (UINT64_MAX - d) / 10) return -1;
    v = v * 10 + d;
  }
  int shift = 0;
  switch (toupper((unsigned char)*p)) {
  case 'K':
    shift = 10;
    p++;
    break;
  case 'M':
    shift = 20;
    p++;
    break;
  case 'G':
    shift = 30;
    p++;
    break;
  case 'T':
    shift = 40;
    p++;
    break;
  default: break;
  }
  if (shift && (strcasecmp(p, "ib") == 0 || strcasecmp(p, "b") == 0)) p += strlen(p);
  else if (!shift && strcasecmp(p, "b") == 0) p++;
  if (*p) return -1;
  if (shift && v > (UINT64_MAX >> shift)) return -1;
  *out = v << shift;
  return 0;
}

void cb_format_size(uint64_t bytes, char *buf, size_t n) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  uint64_t v = bytes;
  while (u < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    u++;
  }
  if (v < 1024 || u == 4) {
    snprintf(buf, n, "%llu %s", (unsigned long long)v, units[u]);
    return;
  }
  double d = (double)bytes;
  u = 0;
  while (u < 4 && d >= 1024.0) {
    d /= 1024.0;
    u++;
  }
  snprintf(buf, n, "%.1f %s", d, units[u]);
}

int cb_sweep(uint64_t min, uint64_t max, double factor, uint64_t step, uint64_t *out, int cap, char *why, size_t n) {
  if (min > max) {
    snprintf(why, n, "minimum size %llu is larger than maximum %llu", (unsigned long long)min, (unsigned long long)max);
    return -1;
  }
  if ((factor > 0.0) == (step > 0)) {
    snprintf(why, n, "give exactly one of a step factor (-f) or a step size (-i)");
    return -1;
  }
  if (factor > 0.0 && factor <= 1.0 && min != max) {
    snprintf(why, n, "step factor %g must be greater than 1", factor);
    return -1;
  }
  if (factor > 0.0 && min == 0 && max > 0) {
    snprintf(why, n, "a geometric sweep (-f) cannot start at 0 bytes");
    return -1;
  }
  int k = 0;
  uint64_t v = min;
  for (;;) {
    if (k == cap) {
      snprintf(why, n, "the sweep has more than %d points", cap);
      return -1;
    }
    out[k++] = v;
    if (v >= max) break;
    uint64_t next;
    if (factor > 0.0) {
      double d = floor((double)v * factor);
      next = d >= (double)max ? max : (uint64_t)d;
      if (next <= v) next = v + 1;
    } else {
      if (max - v < step) break;
      next = v + step;
    }
    /* The last step may overshoot in nccl-tests; collbench stops at max only when it lands
     * there, so "-b 8 -e 100 -f 2" gives 8..64, as nccl-tests does. */
    if (next > max || (factor > 0.0 && (double)v * factor > (double)max)) break;
    v = next;
  }
  return k;
}
