/* CPU test of `# Avg bus bandwidth` (launcher/avg_busbw.c) against real nccl-tests 2.19 numbers
 * and of the bar (launcher/gate.c): the bus bandwidths of every out-of-place and in-place side
 * of four -J files in /work/shared/anchors/nccl-tests-h200x1-vnodes/ (2 ranks, 8 B - 256 KiB)
 * must average to the average_bus_bandwidth nccl-tests wrote into the same file, printed as
 * nccl-tests prints it (%g); then CB_MIN_BUSBW / NCCL_TESTS_MIN_BW parsing, nccl-tests' 0.9
 * slack, and the exit code's order (wrong results 1 before the bar's 6). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "avg_busbw.h"
#include "cb_testing.h"
#include "error.h"
#include "gate.h"

static const struct {
  const char *file;
  double busbw[12]; /* out-of-place, in-place, size after size */
  double avg;       /* its average_bus_bandwidth.bandwidth */
  const char *printed;
} kAnchors[] = {
    {"all_reduce-np2.json",
     {0.0002, 0.00026, 0.002004, 0.002166, 0.011427, 0.013183, 0.085243, 0.090782, 0.306976, 0.317983, 1.151158,
      1.074746},
     0.254677,
     "0.254677"},
    {"all_gather-np2.json",
     {0.0, 0.0, 0.00149, 0.001521, 0.010802, 0.011977, 0.07241, 0.072036, 0.278088, 0.329437, 0.941895, 0.978647},
     0.224859,
     "0.224859"},
    {"alltoall-np2.json",
     {0.0, 0.0, 0.000409, 0.001042, 0.007224, 0.007683, 0.058995, 0.064377, 0.423693, 0.450802, 1.353404, 1.477838},
     0.320456,
     "0.320456"},
    {"reduce_scatter-np2.json",
     {0.0, 0.0, 0.001292, 0.001779, 0.007918, 0.008853, 0.071337, 0.069284, 0.272562, 0.292495, 1.047508, 0.953646},
     0.227223,
     "0.227223"},
};

static void test_anchor_averages(void) {
  for (size_t f = 0; f < sizeof kAnchors / sizeof kAnchors[0]; f++) {
    cb_avg_busbw_t s = {0};
    cb_gate_t none = {0};
    for (int i = 0; i < 12; i++) cb_avg_busbw_add(&s, "nccl", kAnchors[f].busbw[i]);
    CHECK_EQ_INT(s.nalgos, 1);
    double m = cb_avg_busbw_mean(&s, 0);
    CHECK(fabs(m - kAnchors[f].avg) < 1e-6, "%s: mean %.9g, nccl-tests wrote %g", kAnchors[f].file, m, kAnchors[f].avg);
    cb_strbuf_t out;
    cb_sb_init(&out);
    cb_avg_busbw_lines(&s, &none, &out);
    char want[128];
    snprintf(want, sizeof want, "# Avg bus bandwidth    : %s algo nccl (12 rows)\n", kAnchors[f].printed);
    CHECK(strcmp(out.s, want) == 0, "%s: printed '%s', want '%s'", kAnchors[f].file, out.s, want);
    cb_sb_free(&out);
  }
}

/* Two algorithms interleaved, as the engine reports them; one that never ran. */
static void test_per_algorithm(void) {
  cb_avg_busbw_t s = {0};
  cb_avg_busbw_name(&s, "nccl");
  cb_avg_busbw_name(&s, "oneshot");
  cb_avg_busbw_name(&s, "twoshot");
  const double nccl[] = {10, 20, 30, 40}, oneshot[] = {50, 70};
  cb_avg_busbw_add(&s, "nccl", nccl[0]);
  cb_avg_busbw_add(&s, "oneshot", oneshot[0]);
  cb_avg_busbw_add(&s, "nccl", nccl[1]);
  cb_avg_busbw_add(&s, "nccl", nccl[2]);
  cb_avg_busbw_add(&s, "oneshot", oneshot[1]);
  cb_avg_busbw_add(&s, "nccl", nccl[3]);
  CHECK_EQ_INT(s.nalgos, 3);
  CHECK(cb_avg_busbw_mean(&s, 0) == 25.0, "nccl %g", cb_avg_busbw_mean(&s, 0));
  CHECK(cb_avg_busbw_mean(&s, 1) == 60.0, "oneshot %g", cb_avg_busbw_mean(&s, 1));
  CHECK(isnan(cb_avg_busbw_mean(&s, 2)), "twoshot without rows: %g", cb_avg_busbw_mean(&s, 2));

  cb_gate_t g;
  char why[256];
  CHECK_EQ_INT(cb_gate_parse(&g, "30", NULL, why, sizeof why), 0);
  cb_strbuf_t out;
  cb_sb_init(&out);
  cb_avg_busbw_lines(&s, &g, &out);
  CHECK_CONTAINS(out.s, "# Avg bus bandwidth    : 25 FAILED algo nccl (4 rows)\n");
  CHECK_CONTAINS(out.s, "# Avg bus bandwidth    : 60 OK algo oneshot (2 rows)\n");
  CHECK_CONTAINS(out.s, "# Avg bus bandwidth    : - FAILED algo twoshot (no timed row)\n");
  CHECK_CONTAINS(out.s, "# Bus bandwidth bar    : 30 GB/s (CB_MIN_BUSBW=30)\n");
  cb_sb_clear(&out);
  cb_avg_busbw_json(&s, &g, &out);
  CHECK_CONTAINS(out.s, "{\"algo\": \"nccl\", \"gbs\": 25, \"rows\": 4, \"passed\": false}");
  CHECK_CONTAINS(out.s, "{\"algo\": \"twoshot\", \"gbs\": null, \"rows\": 0, \"passed\": false}");
  cb_sb_free(&out);
}

static void test_gate(void) {
  cb_gate_t g;
  char why[256];
  /* no bar: everything passes, nothing printed about a bar */
  CHECK_EQ_INT(cb_gate_parse(&g, NULL, NULL, why, sizeof why), 0);
  CHECK_EQ_INT(g.set, 0);
  CHECK_EQ_INT(cb_gate_passes(&g, 0.0), 1);
  /* nccl-tests' meaning: fails below 0.9 x the value (100 -> 90) */
  CHECK_EQ_INT(cb_gate_parse(&g, NULL, "100", why, sizeof why), 0);
  CHECK(fabs(g.bar_gbs - 90.0) < 1e-12, "bar %g", g.bar_gbs);
  CHECK_EQ_INT(cb_gate_passes(&g, 90.0), 1);
  CHECK_EQ_INT(cb_gate_passes(&g, 89.99), 0);
  CHECK_CONTAINS(g.source, "NCCL_TESTS_MIN_BW=100");
  /* the anchors' NCCL_TESTS_MIN_BW=1000 run: 0.186264 fails */
  CHECK_EQ_INT(cb_gate_parse(&g, NULL, "1000", why, sizeof why), 0);
  CHECK_EQ_INT(cb_gate_passes(&g, 0.186264), 0);
  /* collbench's own: no slack */
  CHECK_EQ_INT(cb_gate_parse(&g, "40.5", NULL, why, sizeof why), 0);
  CHECK_EQ_INT(cb_gate_passes(&g, 40.5), 1);
  CHECK_EQ_INT(cb_gate_passes(&g, 40.49), 0);
  CHECK_EQ_INT(cb_gate_passes(&g, NAN), 0);
  /* both: the higher bar holds */
  CHECK_EQ_INT(cb_gate_parse(&g, "50", "100", why, sizeof why), 0);
  CHECK(g.bar_gbs == 90.0, "both 50 / 100: bar %g", g.bar_gbs);
  CHECK_EQ_INT(cb_gate_parse(&g, "95", "100", why, sizeof why), 0);
  CHECK(g.bar_gbs == 95.0, "both 95 / 100: bar %g", g.bar_gbs);
  CHECK_CONTAINS(g.source, "CB_MIN_BUSBW=95");
  CHECK_EQ_INT(cb_gate_parse(&g, "0", NULL, why, sizeof why), 0);
  CHECK_EQ_INT(cb_gate_passes(&g, 0.0), 1);
  /* bad values: one line naming the variable and the value */
  static const struct {
    const char *cb, *nt, *want;
  } bad[] = {
      {"", NULL, "CB_MIN_BUSBW=''"},        {"abc", NULL, "CB_MIN_BUSBW='abc'"},
      {"-1", NULL, "CB_MIN_BUSBW='-1'"},    {"1e999", NULL, "CB_MIN_BUSBW='1e999'"},
      {"nan", NULL, "CB_MIN_BUSBW='nan'"},  {"10GB", NULL, "CB_MIN_BUSBW='10GB'"},
      {NULL, "x", "NCCL_TESTS_MIN_BW='x'"}, {NULL, "-5", "NCCL_TESTS_MIN_BW='-5'"},
      {"10", "", "NCCL_TESTS_MIN_BW=''"},   {"inf", NULL, "CB_MIN_BUSBW='inf'"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    why[0] = 0;
    CHECK(cb_gate_parse(&g, bad[i].cb, bad[i].nt, why, sizeof why) == -1, "%s / %s accepted", bad[i].cb, bad[i].nt);
    CHECK_CONTAINS(why, bad[i].want);
    CHECK(!strchr(why, '\n'), "message not one line: %s", why);
  }
}

static void test_exit_code(void) {
  cb_gate_t g;
  char why[256];
  cb_gate_parse(&g, "10", NULL, why, sizeof why);
  const double fast[] = {12, 15}, slow[] = {12, 9};
  CHECK_EQ_INT(cb_gate_exit_code(&g, 0, 0, fast, 2), CB_EXIT_OK);
  CHECK_EQ_INT(cb_gate_exit_code(&g, 0, 0, slow, 2), CB_EXIT_BELOW_BAR);
  CHECK_EQ_INT(CB_EXIT_BELOW_BAR, 6);
  /* wrong results first */
  CHECK_EQ_INT(cb_gate_exit_code(&g, 3, 0, slow, 2), CB_EXIT_WRONG);
  CHECK_EQ_INT(cb_gate_exit_code(&g, 0, 1, slow, 2), CB_EXIT_WRONG);
  cb_gate_parse(&g, NULL, NULL, why, sizeof why);
  CHECK_EQ_INT(cb_gate_exit_code(&g, 0, 0, slow, 2), CB_EXIT_OK);
}

int main(void) {
  test_anchor_averages();
  test_per_algorithm();
  test_gate();
  test_exit_code();
  return cb_test_finish("test_avg_busbw");
}
