/* CPU test of cb_env_u64 (base/env.h), the parser behind the CB_MAX_BLOCKS, CB_AR_*_MAX
 * and CB_AR_CE_CHUNK tuning knobs: unset leaves the default, valid values in range are taken,
 * anything else (empty, signs, junk, out of range, overflow) is an error naming the variable
 * and the range (an empty knob is an error as CB_MOE_TRACE='s and CB_FAULT='s are: issue 32 N24). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cb_testing.h"
#include "env.h"

static int parse(const char *value, uint64_t lo, uint64_t hi, uint64_t *v, char *why) {
  if (value) setenv("CB_TEST_KNOB", value, 1);
  else unsetenv("CB_TEST_KNOB");
  why[0] = 0;
  return cb_env_u64("CB_TEST_KNOB", lo, hi, v, why, 160);
}

int main(void) {
  char why[160];
  uint64_t v = 77;
  CHECK(parse(NULL, 1, 512, &v, why) == 0 && v == 77, "unset must leave the default");
  CHECK(parse("", 1, 512, &v, why) == -1 && v == 77, "empty must be an error, not the default");
  CHECK(strstr(why, "CB_TEST_KNOB is set but empty") && strstr(why, "1..512"), "empty: message '%s'", why);
  CHECK(parse("256", 1, 512, &v, why) == 1 && v == 256, "256 in 1..512");
  CHECK(parse("1", 1, 512, &v, why) == 1 && v == 1, "lower bound");
  CHECK(parse("512", 1, 512, &v, why) == 1 && v == 512, "upper bound");
  CHECK(parse("18446744073709551615", 0, UINT64_MAX, &v, why) == 1 && v == UINT64_MAX, "UINT64_MAX");
  const char *bad[] = {"0", "513", "-1", "+5", " 5", "5 ", "12abc", "abc", "1e3", "0x10", "99999999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    v = 77;
    int rc = parse(bad[i], 1, 512, &v, why);
    CHECK(rc == -1, "'%s' must be rejected (rc %d)", bad[i], rc);
    CHECK(v == 77, "'%s' changed the value", bad[i]);
    CHECK(strstr(why, "CB_TEST_KNOB") && strstr(why, bad[i]) && strstr(why, "1..512"),
          "message '%s' must name the variable, the value and the range", why);
  }
  return cb_test_finish("test_env");
}
