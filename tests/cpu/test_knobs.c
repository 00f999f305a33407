/* CPU test of the CB_* knobs read at start (collectives/knobs.h) and of the grid cap every
 * custom kernel's grid goes through (kernels/grid.h): defaults when unset, each knob taken
 * when valid, each malformed one rejected naming itself, and the cap = min(algorithm cap,
 * SMs x blocks that fit on an SM by thread count). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cb_testing.h"
#include "grid.h"
#include "knobs.h"

static const char *const kKnobs[] = {"CB_MAX_BLOCKS", "CB_SM_COUNT", "CB_SMS", "CB_AR_LL_MAX", "CB_AR_ONESHOT_MAX",
                                     "CB_AR_TWOSHOT_MAX", "CB_AR_CE_CHUNK", "CB_MOE_PUSH_PCT"};

static void clear_knobs(void) {
  for (size_t i = 0; i < sizeof kKnobs / sizeof kKnobs[0]; i++) unsetenv(kKnobs[i]);
}

static void check_defaults(void) {
  clear_knobs();
  cb_knobs_t k;
  char why[200] = "";
  CHECK(cb_knobs_read(&k, 2, why, sizeof why) == 0, "defaults rejected: %s", why);
  CHECK_EQ_INT(k.max_blocks, 0);
  CHECK_EQ_INT(k.sm_count, 0);
  CHECK_EQ_INT(k.ar_ce_chunk, CB_AR_CE_CHUNK_BYTES);
  CHECK_EQ_INT(k.ar.ll_max, CB_AUTO_LL_MAX_2RANKS);
  CHECK_EQ_INT(k.ar.twoshot_max, CB_AUTO_TWOSHOT_MAX_2RANKS);
  CHECK_EQ_INT(k.moe_push_pct, 50);
  /* the latency thresholds scale with 2 / nranks */
  CHECK(cb_knobs_read(&k, 8, why, sizeof why) == 0, "8 ranks: %s", why);
  CHECK_EQ_INT(k.ar.oneshot_max, CB_AUTO_ONESHOT_MAX_2RANKS / 4);
}

static void check_values(void) {
  clear_knobs();
  setenv("CB_MAX_BLOCKS", "64", 1);
  setenv("CB_SM_COUNT", "8", 1);
  setenv("CB_AR_TWOSHOT_MAX", "1048576", 1);
  setenv("CB_AR_CE_CHUNK", "4096", 1);
  cb_knobs_t k;
  char why[200] = "";
  CHECK(cb_knobs_read(&k, 2, why, sizeof why) == 0, "valid knobs rejected: %s", why);
  CHECK_EQ_INT(k.max_blocks, 64);
  CHECK_EQ_INT(k.sm_count, 8);
  CHECK_EQ_INT(k.ar.twoshot_max, 1048576);
  CHECK_EQ_INT(k.ar_ce_chunk, 4096);
}

static void check_rejected(void) {
  const struct {
    const char *name, *value;
  } bad[] = {{"CB_SMS", "0"},          {"CB_SMS", "-2"},         {"CB_SMS", "65537"},
             {"CB_SMS", "16 "},        {"CB_MOE_PUSH_PCT", "0"}, {"CB_MOE_PUSH_PCT", "100"},
             {"CB_MAX_BLOCKS", "0"},   {"CB_MAX_BLOCKS", "513"}, {"CB_SM_COUNT", "0"},
             {"CB_SM_COUNT", "8x"},    {"CB_SM_COUNT", "-3"},    {"CB_AR_LL_MAX", "12k"},
             {"CB_AR_CE_CHUNK", "17"}, {"CB_AR_ONESHOT_MAX", " 1"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    clear_knobs();
    setenv(bad[i].name, bad[i].value, 1);
    cb_knobs_t k;
    char why[200] = "";
    CHECK(cb_knobs_read(&k, 2, why, sizeof why) == -1, "%s='%s' accepted", bad[i].name, bad[i].value);
    CHECK(strstr(why, bad[i].name) && strstr(why, bad[i].value), "%s='%s': reason '%s' names neither",
          bad[i].name, bad[i].value, why);
  }
  clear_knobs();
}

/* CB_SMS and its older name CB_SM_COUNT: either alone, both agreeing, both disagreeing; and
 * the cap against the device's SM count (cb_knobs_check_sms, run once the GPU is open). */
static void check_sms(void) {
  cb_knobs_t k;
  char why[300] = "";
  clear_knobs();
  setenv("CB_SMS", "24", 1);
  CHECK(cb_knobs_read(&k, 2, why, sizeof why) == 0, "CB_SMS=24 rejected: %s", why);
  CHECK_EQ_INT(k.sm_count, 24);
  setenv("CB_SM_COUNT", "24", 1);
  CHECK(cb_knobs_read(&k, 2, why, sizeof why) == 0, "CB_SMS=24 CB_SM_COUNT=24 rejected: %s", why);
  CHECK_EQ_INT(k.sm_count, 24);
  setenv("CB_SM_COUNT", "16", 1);
  CHECK(cb_knobs_read(&k, 2, why, sizeof why) == -1, "CB_SMS=24 with CB_SM_COUNT=16 accepted");
  CHECK(strstr(why, "CB_SMS=24") && strstr(why, "CB_SM_COUNT=16"), "disagreement not named: '%s'", why);
  unsetenv("CB_SMS");
  CHECK(cb_knobs_read(&k, 2, why, sizeof why) == 0, "CB_SM_COUNT=16 alone rejected: %s", why);
  CHECK_EQ_INT(k.sm_count, 16);
  /* against an H200 (132 SMs) */
  k.sm_count = 132;
  CHECK(cb_knobs_check_sms(&k, "--sms", 132, "NVIDIA H200", why, sizeof why) == 0, "132 of 132 rejected: %s", why);
  k.sm_count = 133;
  CHECK(cb_knobs_check_sms(&k, "--sms", 132, "NVIDIA H200", why, sizeof why) == -1, "133 of 132 accepted");
  CHECK(strstr(why, "--sms 133") && strstr(why, "132 SMs") && strstr(why, "NVIDIA H200"), "reason '%s'", why);
  k.sm_count = 0; /* no cap */
  CHECK(cb_knobs_check_sms(&k, "CB_SMS", 8, "small GPU", why, sizeof why) == 0, "no cap rejected: %s", why);
  clear_knobs();
}

static void check_grid_cap(void) {
  /* H200: 132 SMs, 2048 threads each */
  cb_grid_limits_t h200 = {.max_blocks = 512, .sms = 132, .threads_per_sm = 2048};
  CHECK_EQ_INT(cb_grid_cap(&h200, 512), 512); /* 528 resident: the cap of 512 rules */
  h200.max_blocks = 256;
  CHECK_EQ_INT(cb_grid_cap(&h200, 512), 256);
  /* CB_SM_COUNT=8: 4 blocks of 512 threads per SM */
  cb_grid_limits_t sm8 = {.max_blocks = 512, .sms = 8, .threads_per_sm = 2048};
  CHECK_EQ_INT(cb_grid_cap(&sm8, 512), 32);
  CHECK_EQ_INT(cb_grid_cap(&sm8, 128), 128);
  sm8.max_blocks = 64;
  CHECK_EQ_INT(cb_grid_cap(&sm8, 128), 64);
  /* a block larger than an SM's thread budget still gets one block per SM */
  cb_grid_limits_t small = {.max_blocks = 512, .sms = 4, .threads_per_sm = 256};
  CHECK_EQ_INT(cb_grid_cap(&small, 512), 4);
}

int main(void) {
  check_defaults();
  check_values();
  check_rejected();
  check_sms();
  check_grid_cap();
  /* the sms column: a grid on its own SMs, at most the device's */
  CHECK_EQ_INT(cb_grid_sms(32, 132), 32);
  CHECK_EQ_INT(cb_grid_sms(264, 132), 132);
  return cb_test_finish("test_knobs");
}
