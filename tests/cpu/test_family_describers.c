/* CPU test of the family describers (collectives/family.h) on their own, as the bench engine
 * calls them: plan() turns a sweep point into the size columns and the group's text (the text
 * the watchdog, the --validate lines and the GPU tests' expectations quote), row() fills the
 * family's columns for a skipped, a timed and a loaded row, and group_end() writes moe's
 * --validate verdicts and copy_ce lines. Values are written out here from the definitions in
 * family.h, moe_report.c and attn_report.c's comments, not computed by the code under test. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "attn_config.h"
#include "cb_testing.h"
#include "family.h"
#include "moe_config.h"
#include "params.h"
#include "rooted.h"
#include "row.h"

static char what[256], why[256];

static cb_params_t params(cb_family_t f, cb_dtype_t t, cb_redop_t op, uint64_t point, int variant, const void *config) {
  cb_params_t p;
  memset(&p, 0, sizeof p);
  p.family = f;
  p.dtype = t;
  p.op = op;
  p.point = point;
  p.variant = variant;
  p.config = config;
  return p;
}

static int plan(cb_params_t *p, int nranks, const char *mode) {
  what[0] = why[0] = 0;
  return cb_family_info(p->family)->plan(p, nranks, mode, what, sizeof what, why, sizeof why);
}

/* The family's configuration as the command line leaves it with no options: defaults, then
 * finish() with the given dtype and points. */
static void configure(cb_family_t f, void *config, cb_dtype_t dtype, uint64_t point) {
  const cb_family_info_t *fi = cb_family_info(f);
  char algos[16][CB_ALGO_NAME_MAX], err[256] = "";
  int nalgos = 0;
  fi->defaults(config);
  cb_family_finish_t ff = {.config = config,
                           .cmdline = "collbench test",
                           .check_iters = 1,
                           .dtypes = &dtype,
                           .ndtypes = 1,
                           .points = &point,
                           .npoints = 1,
                           .algos = algos,
                           .nalgos = &nalgos,
                           .max_algos = 16,
                           .err = err,
                           .errlen = sizeof err};
  CHECK(fi->finish(&ff) == 0, "%s finish: %s", fi->name, err);
}

static void test_classic(void) {
  cb_params_t p = params(CB_ALLREDUCE, CB_FLOAT, CB_SUM, 1024, 0, NULL);
  CHECK_EQ_INT(plan(&p, 2, "eager"), 0);
  CHECK_EQ_STR(what, "allreduce float sum 1024 B out-of-place eager");
  CHECK_EQ_INT(p.bytes, 1024);
  CHECK_EQ_INT(p.elements, 256);
  CHECK_EQ_INT(p.count, 256);
  p = params(CB_ALLGATHER, CB_BF16, CB_OP_NONE, 64, 0, NULL);
  p.inplace = 1;
  CHECK_EQ_INT(plan(&p, 4, "graph"), 0);
  CHECK_EQ_STR(what, "allgather bfloat16 none 64 B in-place graph");
  CHECK_EQ_INT(p.count, 8); /* 32 elements over 4 ranks */
  /* a size that does not divide: the group's rows are skipped with the reason, bytes kept */
  p = params(CB_ALLTOALL, CB_FLOAT, CB_OP_NONE, 12, 0, NULL);
  CHECK_EQ_INT(plan(&p, 8, "eager"), -1);
  CHECK_EQ_INT(p.bytes, 12);
  CHECK_CONTAINS(why, "do not divide among 8 ranks");
  for (int f = CB_ALLREDUCE; f <= CB_SENDRECV; f++) {
    const cb_family_info_t *fi = cb_family_info((cb_family_t)f);
    CHECK(!fi->row && !fi->table && !fi->columns && !fi->points && fi->default_dtype == CB_FLOAT,
          "%s: a classic family has no columns, table or point option of its own and defaults to float", fi->name);
    CHECK_EQ_INT(fi->identical_outputs, f == CB_ALLREDUCE); /* all-reduce's bit-identical digest check */
  }
}

static void test_moe(void) {
  static cb_moe_config_t c;
  configure(CB_MOE, &c, CB_BF16, 128);
  CHECK_EQ_STR(c.routing_text, "uniform");
  cb_params_t p = params(CB_MOE, CB_BF16, CB_OP_NONE, 128, 0, &c);
  CHECK_EQ_INT(plan(&p, 8, "eager"), 0);
  CHECK_EQ_STR(what, "moe deepseek-v3 bfloat16 128 tokens/rank uniform eager");
  CHECK_EQ_INT(p.count, 128);
  CHECK_EQ_INT(p.bytes, 0);
  CHECK_EQ_INT(plan(&p, 3, "graph"), -1); /* 256 experts over 3 ranks */
  CHECK_CONTAINS(why, "3");

  const cb_family_info_t *fi = cb_family_info(CB_MOE);
  cb_row_t r;
  /* an algorithm that did not run: the round trip, imbalance 0, no traffic */
  cb_row_ctx_t x = {.p = &p, .nranks = 8, .phase = 3, .nphases = 3};
  memset(&r, 0, sizeof r);
  fi->row(&x, &r);
  CHECK_EQ_STR(r.col[CB_COL_MODEL].s, "deepseek-v3");
  CHECK_EQ_INT(r.col[CB_COL_TOKENS].i, 128);
  CHECK_EQ_INT(r.col[CB_COL_HIDDEN].i, 7168);
  CHECK_EQ_INT(r.col[CB_COL_TOPK].i, 8);
  CHECK_EQ_INT(r.col[CB_COL_EXPERTS].i, 256);
  CHECK_EQ_STR(r.col[CB_COL_ROUTING].s, "uniform");
  CHECK_EQ_STR(r.col[CB_COL_PHASE].s, "roundtrip");
  CHECK(r.col[CB_COL_IMBALANCE].d == 0.0, "imbalance %g on a skipped row", r.col[CB_COL_IMBALANCE].d);
  /* a timed dispatch: its own bytes in the size column, remote GB/s = remote bytes / time */
  const cb_bytes_t by = {.algbw_bytes = 4e6,
                         .busbw_factor = 1.0,
                         .remote_bytes = 3e6,
                         .link_bytes = 1,
                         .net_bytes = 1e6,
                         .nvlink_bytes = 2e6};
  const double metrics[1] = {1.25};
  x = (cb_row_ctx_t){.p = &p,
                     .nranks = 8,
                     .timed = 1,
                     .phase = 1,
                     .nphases = 3,
                     .phase_name = "dispatch",
                     .bytes = &by,
                     .time_us = 10.0,
                     .metrics = metrics};
  memset(&r, 0, sizeof r);
  fi->row(&x, &r);
  CHECK_EQ_STR(r.col[CB_COL_PHASE].s, "dispatch");
  CHECK_EQ_INT(r.bytes, 4000000);
  CHECK_NEAR(r.col[CB_COL_REMOTE_GBS].d, 300.0, 1e-12); /* 3e6 B / 10 us */
  CHECK_NEAR(r.col[CB_COL_IMBALANCE].d, 1.25, 1e-15);
  CHECK_NEAR(r.col[CB_COL_NET_BYTES].d, 1e6, 1e-15);
  CHECK_NEAR(r.col[CB_COL_NVLINK_BYTES].d, 2e6, 1e-15);
  /* links not reported: empty (NaN) */
  const cb_bytes_t nolink = {.algbw_bytes = 4e6, .remote_bytes = 3e6};
  x.bytes = &nolink;
  fi->row(&x, &r);
  CHECK(isnan(r.col[CB_COL_NET_BYTES].d) && isnan(r.col[CB_COL_NVLINK_BYTES].d), "link bytes not reported");
  /* the loaded row, skipped: its phase, the round trip's bytes, no traffic */
  x = (cb_row_ctx_t){.p = &p, .nranks = 8, .loaded = 1, .phase = 3, .nphases = 3, .bytes = &by};
  memset(&r, 0, sizeof r);
  fi->row(&x, &r);
  CHECK_EQ_STR(r.col[CB_COL_PHASE].s, "roundtrip_loaded");
  CHECK_EQ_INT(r.bytes, 4000000);
}

static void test_moe_group_end(void) {
  static cb_moe_config_t c;
  configure(CB_MOE, &c, CB_BF16, 128);
  c.validate = 1;
  cb_params_t p = params(CB_MOE, CB_BF16, CB_OP_NONE, 128, 0, &c);
  cb_slot_view_t s[4] = {
      {.algo = "nccl", .nphases = 3, .active = 1, .mean_us = 50.0, .p99_us = 60.0, .remote_gbs = {0, 100, 200, 0}},
      {.algo = "peer",
       .nphases = 3,
       .active = 1,
       .wrong = 2,
       .mean_us = 40.0,
       .p99_us = 45.0,
       .remote_gbs = {0, 150, 300, 0}},
      {.algo = "hier", .nphases = 3, .active = 0, .note = "not supported: one node"},
      {.algo = "copy_ce", .nphases = 2, .active = 1, .mean_us = 20.0, .p99_us = 21.0, .remote_gbs = {300, 400, 0}},
  };
  cb_group_view_t g = {&p, "moe deepseek-v3 bfloat16 128 tokens/rank uniform eager", 1, 4, s};
  cb_strbuf_t out;
  cb_sb_init(&out);
  CHECK_EQ_INT(cb_family_info(CB_MOE)->group_end(&g, &out), 1); /* peer's 2 wrong elements */
  CHECK_CONTAINS(out.s, "# VALIDATE nccl         moe deepseek-v3 bfloat16 128 tokens/rank uniform eager: PASS (0 wrong "
                        "over 1 check iterations); dispatch+combine per MoE layer: 50.0 us mean, 60.0 us p99\n");
  CHECK_CONTAINS(out.s,
                 "# VALIDATE peer         moe deepseek-v3 bfloat16 128 tokens/rank uniform eager: FAIL (2 wrong");
  CHECK_CONTAINS(out.s, "# VALIDATE hier         moe deepseek-v3 bfloat16 128 tokens/rank uniform eager: SKIPPED "
                        "(not supported: one node)\n");
  /* dispatch against copy_ce's phase 0, combine against its phase 1 */
  CHECK_CONTAINS(out.s, "# copy_ce reference peer moe deepseek-v3 bfloat16 128 tokens/rank uniform eager: dispatch "
                        "150.0 of 300.0 GB/s (50 %), combine 300.0 of 400.0 GB/s (75 %)\n");
  /* without --validate: the copy_ce lines only, nothing fails */
  c.validate = 0;
  cb_sb_clear(&out);
  CHECK_EQ_INT(cb_family_info(CB_MOE)->group_end(&g, &out), 0);
  CHECK(!cb_test_contains(out.s, "VALIDATE"), "verdicts without --validate: %s", out.s);
  CHECK_CONTAINS(out.s, "# copy_ce reference nccl ");
  cb_sb_free(&out);
}

static void test_ringattn(void) {
  static cb_attn_config_t c;
  configure(CB_RINGATTN, &c, CB_BF16, 4096);
  CHECK_EQ_STR(c.cmdline, "collbench test"); /* --save records it */
  const cb_family_info_t *fi = cb_family_info(CB_RINGATTN);
  CHECK(fi->variant_on(&c, 0, 2) && fi->variant_on(&c, 1, 2), "both causal forms by default");
  cb_params_t p = params(CB_RINGATTN, CB_BF16, CB_OP_NONE, 4096, 1, &c);
  CHECK_EQ_INT(plan(&p, 2, "eager"), 0);
  CHECK_EQ_STR(what, "ringattn bfloat16 S=4096 causal eager fwd");
  CHECK_EQ_INT(p.count, 4096);
  /* one K/V shard (2 x 1 x 2048 x 32 x 128 x 2 B) from the one other rank */
  CHECK_EQ_INT(p.bytes, 2ull * 2048 * 32 * 128 * 2);
  p = params(CB_RINGATTN, CB_BF16, CB_OP_NONE, 4098, 1, &c);
  CHECK_EQ_INT(plan(&p, 2, "graph"), -1); /* zigzag needs S a multiple of 2P */
  CHECK_EQ_STR(what, "ringattn bfloat16 S=4098 causal graph fwd");
  CHECK_EQ_INT(p.count, 4098);
  CHECK_EQ_INT(p.bytes, 0);
  CHECK_CONTAINS(why, "4098");

  cb_row_t r;
  const double m[6] = {0.5, 0.25, 80.0, 0.0, 30.0, 2e9}; /* err max/mean, compute, comm (none), local, flops */
  cb_row_ctx_t x = {
      .p = &p, .nranks = 2, .timed = 1, .checked = 1, .phase = 1, .nphases = 1, .time_us = 100.0, .metrics = m};
  memset(&r, 0, sizeof r);
  fi->row(&x, &r);
  CHECK_EQ_INT(r.col[CB_COL_SEQ].i, 4098);
  CHECK_EQ_INT(r.col[CB_COL_HEADS].i, 32);
  CHECK_EQ_INT(r.col[CB_COL_CAUSAL].i, 1);
  CHECK_EQ_STR(r.col[CB_COL_PASS].s, "fwd");
  CHECK_NEAR(r.col[CB_COL_TFLOPS].d, 20.0, 1e-12);                   /* 2e9 FLOP / 100 us */
  CHECK_NEAR(r.col[CB_COL_OVERLAP_EFF].d, 0.8, 1e-12);               /* compute alone / time */
  CHECK_NEAR(r.col[CB_COL_RING_OVER_SINGLE].d, 100.0 / 60.0, 1e-12); /* time / (P x local) */
  CHECK(isnan(r.col[CB_COL_COMM_US].d), "an unmeasured comm time is empty, not 0");
  CHECK_NEAR(r.col[CB_COL_ERR_MAX].d, 0.5, 1e-15);
  x.checked = 0;
  fi->row(&x, &r);
  CHECK(isnan(r.col[CB_COL_ERR_MAX].d) && isnan(r.col[CB_COL_ERR_MEAN].d), "no check, no error figures");
}

/* The rooted families and hypercube (family_rooted.c, family_hypercube.c): the root is the
 * variant, named in the group's text and written in the root column; gather, scatter and
 * hypercube take nccl-tests' chunk (elements / n rounded down to 16 bytes) and their size column
 * is n chunks; -r R runs root R alone, -r -1 every rank's; hypercube refuses 3 ranks. */
static void test_rooted(void) {
  cb_rooted_config_t c = {.root = 2};
  cb_params_t p = params(CB_BROADCAST, CB_FLOAT, CB_OP_NONE, 1024, 2, &c);
  CHECK_EQ_INT(plan(&p, 4, "eager"), 0);
  CHECK_EQ_STR(what, "broadcast float none 1024 B out-of-place eager root 2");
  CHECK_EQ_INT(p.bytes, 1024);
  CHECK_EQ_INT(p.count, 256);
  const cb_family_info_t *fi = cb_family_info(CB_BROADCAST);
  cb_row_t r;
  memset(&r, 0, sizeof r);
  cb_row_ctx_t x = {.p = &p, .nranks = 4, .phase = 1, .nphases = 1};
  fi->row(&x, &r);
  CHECK_EQ_INT(r.col[CB_COL_ROOT].i, 2);
  CHECK_EQ_INT(fi->columns, CB_COLS_ROOT);
  /* its table shows the root after the op, as nccl-tests' */
  CHECK(fi->table == &cb_rooted_table, "broadcast prints the rooted table");
  r.bytes = 1024;
  r.count = 256;
  r.dtype = "float";
  r.op = "none";
  r.mode = "eager";
  r.algo = "peer";
  r.timed = 1;
  r.time_us_mean = r.time_us_p50 = r.time_us_p99 = 4.0;
  r.algbw_gbs = r.busbw_gbs = 0.256;
  cb_strbuf_t out;
  cb_sb_init(&out);
  fi->table->header(&out);
  fi->table->line(&r, "1", "0", &out);
  CHECK_CONTAINS(out.s, "redop root ip");
  CHECK_CONTAINS(out.s, "1024          256 float     none     2 0   eager  peer");
  cb_sb_free(&out);
  for (int v = 0; v < 8; v++) CHECK_EQ_INT(fi->variant_on(&c, v, 4), v == 2);
  cb_rooted_config_t every = {.root = -1};
  for (int v = 0; v < 8; v++) CHECK_EQ_INT(fi->variant_on(&every, v, 3), v < 3);
  char why2[256] = "";
  CHECK_EQ_INT(fi->check_ranks(&c, 2, NULL, 0, why2, sizeof why2), -1);
  CHECK_CONTAINS(why2, "-r 2: the root must be a rank 0..1 (2 ranks)");
  CHECK_EQ_INT(fi->check_ranks(&c, 3, NULL, 0, why2, sizeof why2), 0);

  /* 1000 B of half over 3 ranks: 500 elements, 166 each, rounded down to 8 (16 bytes): 160 */
  p = params(CB_GATHER, CB_HALF, CB_OP_NONE, 1000, 0, &c);
  CHECK_EQ_INT(plan(&p, 3, "graph"), 0);
  CHECK_EQ_INT(p.count, 160);
  CHECK_EQ_INT(p.elements, 480);
  CHECK_EQ_INT(p.bytes, 960);
  CHECK_EQ_STR(what, "gather half none 960 B out-of-place graph root 0");
  p = params(CB_SCATTER, CB_FLOAT, CB_OP_NONE, 8, 1, &c);
  CHECK_EQ_INT(plan(&p, 2, "eager"), -1); /* nccl-tests' 0-element row: the columns, no run */
  CHECK_EQ_INT(p.count, 0);
  CHECK_EQ_INT(p.bytes, 0);
  CHECK_CONTAINS(why, "2 elements over 2 ranks round to 0 per rank");
  p = params(CB_REDUCE, CB_BF16, CB_MAX, 6, 0, &c);
  p.inplace = 1;
  CHECK_EQ_INT(plan(&p, 2, "eager"), 0);
  CHECK_EQ_STR(what, "reduce bfloat16 max 6 B in-place eager root 0");
  CHECK_EQ_INT(p.count, 3);
  p = params(CB_BROADCAST, CB_FLOAT, CB_OP_NONE, 6, 0, &c);
  CHECK_EQ_INT(plan(&p, 2, "eager"), -1);
  CHECK_CONTAINS(why, "not a whole number of 4-byte elements");

  fi = cb_family_info(CB_HYPERCUBE);
  p = params(CB_HYPERCUBE, CB_FLOAT, CB_OP_NONE, 4096, 0, NULL);
  CHECK_EQ_INT(plan(&p, 4, "eager"), 0);
  CHECK_EQ_STR(what, "hypercube float 4096 B out-of-place eager");
  CHECK_EQ_INT(p.count, 256);
  CHECK_NEAR(cb_family_algbw_bytes(CB_HYPERCUBE, p.bytes, 4), 3072.0, 1e-9);
  CHECK_NEAR(cb_busbw_factor(CB_HYPERCUBE, 4), 1.0, 1e-12);
  CHECK_EQ_INT(fi->check_ranks(NULL, 3, NULL, 0, why2, sizeof why2), -1);
  CHECK_CONTAINS(why2, "power-of-two rank count (3 ranks)");
  CHECK_EQ_INT(fi->check_ranks(NULL, 8, NULL, 0, why2, sizeof why2), 0);
  CHECK(!fi->rooted && !fi->columns, "hypercube has no root");
}

int main(void) {
  test_classic();
  test_rooted();
  test_moe();
  test_moe_group_end();
  test_ringattn();
  return cb_test_finish("test_family_describers");
}
