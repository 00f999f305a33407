/* Implementation of env.h. */
#include "env.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int cb_env_u64(const char *name, uint64_t lo, uint64_t hi, uint64_t *out, char *why, size_t n) {
  const char *s = getenv(name);
  if (!s) return 0;
  if (!s[0]) { /* "CB_SMS=" is no value: an error, not the default (a script's unset variable) */
    snprintf(why, n, "%s is set but empty: give an integer in %llu..%llu or unset it", name, (unsigned long long)lo,
             (unsigned long long)hi);
    return -1;
  }
  char *end = NULL;
  errno = 0;
  unsigned long long v = isdigit((unsigned char)s[0]) ? strtoull(s, &end, 10) : 0;
  if (!isdigit((unsigned char)s[0]) || *end || errno || v < lo || v > hi) {
    snprintf(why, n, "%s='%s' is not an integer in %llu..%llu", name, s, (unsigned long long)lo,
             (unsigned long long)hi);
    return -1;
  }
  *out = v;
  return 1;
}
