/* CPU test of the CB_* knobs read at start (collectives/knobs.h) and of the grid cap every
 * custom kernel's grid goes through (kernels/grid.h): defaults when unset, each knob taken
 * when valid, each malformed one rejected naming itself, and the cap = min(algorithm cap,
 * SMs x blocks that fit on an SM by thread count); CB_MOE_TRACE's folder check, for builds with
 * and without the time stamps. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cb_testing.h"
#include "grid.h"
#include "knobs.h"

static const char *const kKnobs[] = {"CB_MAX_BLOCKS",     "CB_SM_COUNT",       "CB_SMS",         "CB_AR_LL_MAX",
                                     "CB_AR_ONESHOT_MAX", "CB_AR_TWOSHOT_MAX", "CB_AR_CE_CHUNK", "CB_MOE_PUSH_PCT",
                                     "CB_MOE_TRACE",      "CB_SHARE_GPUS"};

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
  CHECK_EQ_INT(k.share_gpus, 0);
  /* the latency thresholds scale with 2 / nranks */
  CHECK(cb_knobs_read(&k, 8, why, sizeof why) == 0, "8 ranks: %s", why);
  CHECK_EQ_INT(k.ar.oneshot_max, CB_AUTO_ONESHOT_MAX_2RANKS / 4);
}

static void check_values(void) {
  clear_knobs();
  setenv("CB_MAX_BLOCKS", "64", 1);
  setenv("CB_SMS", "8", 1);
  setenv("CB_AR_TWOSHOT_MAX", "1048576", 1);
  setenv("CB_AR_CE_CHUNK", "4096", 1);
  setenv("CB_SHARE_GPUS", "1", 1);
  cb_knobs_t k;
  char why[200] = "";
  CHECK(cb_knobs_read(&k, 2, why, sizeof why) == 0, "valid knobs rejected: %s", why);
  CHECK_EQ_INT(k.max_blocks, 64);
  CHECK_EQ_INT(k.sm_count, 8);
  CHECK_EQ_INT(k.ar.twoshot_max, 1048576);
  CHECK_EQ_INT(k.ar_ce_chunk, 4096);
  CHECK_EQ_INT(k.share_gpus, 1);
}

static void check_rejected(void) {
  const struct {
    const char *name, *value;
  } bad[] = {{"CB_SMS", "0"},
             {"CB_SMS", "-2"},
             {"CB_SMS", "65537"},
             {"CB_SMS", "16 "},
             {"CB_MOE_PUSH_PCT", "0"},
             {"CB_MOE_PUSH_PCT", "100"},
             {"CB_MAX_BLOCKS", "0"},
             {"CB_MAX_BLOCKS", "513"},
             {"CB_AR_LL_MAX", "12k"},
             {"CB_AR_CE_CHUNK", "17"},
             {"CB_AR_ONESHOT_MAX", " 1"},
             {"CB_SHARE_GPUS", "2"},
             {"CB_SHARE_GPUS", "yes"},
             {"CB_SHARE_GPUS", "-1"},
             {"CB_SHARE_GPUS", "18446744073709551617"},
             {"CB_SHARE_GPUS", "1\xff"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    clear_knobs();
    setenv(bad[i].name, bad[i].value, 1);
    cb_knobs_t k;
    char why[200] = "";
    CHECK(cb_knobs_read(&k, 2, why, sizeof why) == -1, "%s='%s' accepted", bad[i].name, bad[i].value);
    CHECK(strstr(why, bad[i].name) && strstr(why, bad[i].value), "%s='%s': reason '%s' names neither", bad[i].name,
          bad[i].value, why);
  }
  clear_knobs();
}

/* CB_SMS; its former name CB_SM_COUNT is refused (alone or beside CB_SMS) with a reason that
 * names CB_SMS, so a job written for the old name learns it instead of running uncapped; and
 * the cap against the device's SM count (cb_knobs_check_sms, run once the GPU is open). */
static void check_sms(void) {
  cb_knobs_t k;
  char why[300] = "";
  clear_knobs();
  setenv("CB_SMS", "24", 1);
  CHECK(cb_knobs_read(&k, 2, why, sizeof why) == 0, "CB_SMS=24 rejected: %s", why);
  CHECK_EQ_INT(k.sm_count, 24);
  for (int alone = 0; alone < 2; alone++) {
    if (alone) unsetenv("CB_SMS");
    setenv("CB_SM_COUNT", "24", 1);
    CHECK(cb_knobs_read(&k, 2, why, sizeof why) == -1, "CB_SM_COUNT=24 accepted (CB_SMS %s)", alone ? "unset" : "set");
    CHECK(strstr(why, "CB_SM_COUNT") && strstr(why, "CB_SMS=24"), "reason does not point at CB_SMS: '%s'", why);
  }
  setenv("CB_SM_COUNT", "", 1); /* empty is unset, as for every knob */
  CHECK(cb_knobs_read(&k, 2, why, sizeof why) == 0, "empty CB_SM_COUNT rejected: %s", why);
  CHECK_EQ_INT(k.sm_count, 0);
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
  /* CB_SMS=8: 4 blocks of 512 threads per SM */
  cb_grid_limits_t sm8 = {.max_blocks = 512, .sms = 8, .threads_per_sm = 2048};
  CHECK_EQ_INT(cb_grid_cap(&sm8, 512), 32);
  CHECK_EQ_INT(cb_grid_cap(&sm8, 128), 128);
  sm8.max_blocks = 64;
  CHECK_EQ_INT(cb_grid_cap(&sm8, 128), 64);
  /* a block larger than an SM's thread budget still gets one block per SM */
  cb_grid_limits_t small = {.max_blocks = 512, .sms = 4, .threads_per_sm = 256};
  CHECK_EQ_INT(cb_grid_cap(&small, 512), 4);
}

/* CB_MOE_TRACE: taken only by a build with time stamps, and only naming an existing folder it
 * can write into; everything else rejected naming the variable (and the value, cut at 200
 * bytes). */
static void check_moe_trace(void) {
  char out[CB_MOE_TRACE_DIR_MAX], why[400], dir[] = "/tmp/cb-knobs-XXXXXX", path[600];
  CHECK(mkdtemp(dir) != NULL, "mkdtemp failed");
  CHECK(cb_moe_trace_knob(NULL, 1, out, why, sizeof why) == 0 && out[0] == '\0', "unset: not off");
  CHECK(cb_moe_trace_knob(dir, 1, out, why, sizeof why) == 0, "folder %s rejected: %s", dir, why);
  CHECK(strcmp(out, dir) == 0, "folder not kept: '%s'", out);
  snprintf(path, sizeof path, "%s/link", dir); /* a symlink to a folder is a folder */
  CHECK(symlink(dir, path) == 0, "symlink failed");
  CHECK(cb_moe_trace_knob(path, 1, out, why, sizeof why) == 0, "symlink to a folder rejected: %s", why);
  char file[620], dangling[620], longv[5000], bytes[] = "/tmp/\xff\xfe-not-utf8";
  snprintf(file, sizeof file, "%s/file", dir);
  FILE *f = fopen(file, "w");
  CHECK(f != NULL, "cannot make %s", file);
  if (f) fclose(f);
  snprintf(dangling, sizeof dangling, "%s/dangling", dir);
  CHECK(symlink("/nonexistent/cb-knobs", dangling) == 0, "symlink failed");
  memset(longv, 'a', sizeof longv - 1);
  longv[0] = '/';
  longv[sizeof longv - 1] = '\0';
  const char *bad[] = {"", file, dangling, "/nonexistent/cb-knobs", longv, bytes, "18446744073709551616"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    why[0] = '\0';
    CHECK(cb_moe_trace_knob(bad[i], 1, out, why, sizeof why) == -1, "CB_MOE_TRACE='%.40s' accepted", bad[i]);
    CHECK(strstr(why, "CB_MOE_TRACE='") != NULL && strlen(why) < sizeof why - 1, "reason '%.100s'", why);
    CHECK(strncmp(why + strlen("CB_MOE_TRACE='"), bad[i], strlen(bad[i]) < 200 ? strlen(bad[i]) : 200) == 0,
          "reason does not show the value: '%.100s'", why);
  }
  /* read-only folder: only a process that is not root can be refused */
  if (geteuid() != 0) {
    CHECK(chmod(dir, 0500) == 0, "chmod failed");
    CHECK(cb_moe_trace_knob(dir, 1, out, why, sizeof why) == -1, "read-only folder accepted");
    CHECK(chmod(dir, 0700) == 0, "chmod failed");
  }
  /* a build without stamps refuses even a good folder, saying how to get them */
  CHECK(cb_moe_trace_knob(dir, 0, out, why, sizeof why) == -1 && strstr(why, "-DCB_MOE_TRACE=ON"),
        "build without stamps: '%s'", why);
  /* cb_knobs_read passes this build's flag (CI builds have none) */
  clear_knobs();
  setenv("CB_MOE_TRACE", dir, 1);
  cb_knobs_t k;
#if defined(CB_MOE_TRACE) && CB_MOE_TRACE
  CHECK(cb_knobs_read(&k, 2, why, sizeof why) == 0 && strcmp(k.moe_trace, dir) == 0, "trace build: %s", why);
#else
  CHECK(cb_knobs_read(&k, 2, why, sizeof why) == -1 && strstr(why, "CB_MOE_TRACE"), "normal build took it");
#endif
  clear_knobs();
  unlink(path);
  unlink(dangling);
  unlink(file);
  rmdir(dir);
}

int main(void) {
  check_moe_trace();
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
