/* CPU test of -J with -I 1 (launcher/report_ncclt_json.c): a sweep whose per-iteration times
 * alone cannot fit under the writer's cap (CB_NEWFILE_MAX_BYTES) is refused when the file is
 * opened, before the run, with one line; before, the run went to its end and the write failed
 * (exit 3). A sweep that fits opens. */
#include <stdio.h>
#include <string.h>

#include "cb_testing.h"
#include "report_ncclt_json.h"

static cb_args_t g_a; /* large */

static int open_with(int iters, int nranks, int npoints, int per_iter, char *why, size_t n) {
  memset(&g_a, 0, sizeof g_a);
  g_a.npoints = npoints;
  for (int i = 0; i < npoints; i++) g_a.points[i] = 8ull << i;
  g_a.iters = iters, g_a.warmup = 1, g_a.check_iters = 1, g_a.agg_iters = 1, g_a.graph_launches = 1, g_a.cycles = 1;
  g_a.modes = CB_MODE_EAGER;
  g_a.iter_timing = per_iter;
  static cb_ncclt_device_t dev[8];
  for (int r = 0; r < 8; r++) dev[r] = (cb_ncclt_device_t){r, 100 + r, r, "node", "0000:00:06", "NVIDIA H200"};
  static char *argv[] = {"all_reduce_perf", "-I", "1", "-J", "x.json"};
  cb_ncclt_run_t run = {.argc = 5, .argv = argv, .a = &g_a, .ndevices = nranks, .devices = dev};
  cb_ncclt_json_t j;
  why[0] = 0;
  int rc = cb_ncclt_json_open(&j, "x.json", &run, why, n);
  if (rc == 0) cb_sb_free(&j.head); /* opened only: nothing written */
  return rc;
}

int main(void) {
  char why[512];
  /* 1,000,000 iterations x (1 + 8 ranks) times x 4 sizes: over 300 MB of numbers */
  CHECK(open_with(1000000, 8, 4, 1, why, sizeof why) != 0, "-n 1000000 -I 1, 8 ranks, 4 sizes: opened");
  CHECK_CONTAINS(why, "-J");
  CHECK_CONTAINS(why, "-I 1");
  CHECK(!strchr(why, '\n'), "not one line: '%s'", why);
  CHECK(open_with(1000000, 1, 8, 1, why, sizeof why) != 0, "-n 1000000 -I 1, 1 rank, 8 sizes: opened");
  /* what fits opens: the same without -I, or 1,000 iterations */
  CHECK(open_with(1000000, 8, 4, 0, why, sizeof why) == 0, "without -I 1: %s", why);
  CHECK(open_with(1000, 8, 64, 1, why, sizeof why) == 0, "-n 1000 -I 1: %s", why);
  return cb_test_finish("test_ncclt_json_cap");
}
