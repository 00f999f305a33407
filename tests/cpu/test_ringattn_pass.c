/* CPU test of ring attention's --pass (issue 34): the option (default fwd, every value, bad
 * values and other families refused with a message naming the accepted ones), the pass names of
 * the rows' pass column, the FLOP accounting (backward 2.5 x the forward, both 3.5 x), the size
 * column's bytes per pass, and the backward's ring schedule (collectives/attn/ringattn_bwd_plan.h)
 * for P = 1..8: at every step the ranks hold distinct blocks, each block's dK/dV sums move to
 * the rank that holds the block next, every rank adds to every block exactly once, and after P
 * steps the sums arrive at the block's owner; the slot fills the peer ring's flags count. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "attn_config.h"
#include "cb_testing.h"
#include "ringattn_bwd_plan.h"

static cb_args_t A;
/* the ringattn configuration the last parse left (the family\'s own, family.h) */
#define ATTN ((const cb_attn_config_t *)cb_args_config(&A))
static char err[1024];

static int parse(const char *line) {
  static char buf[1024];
  char *argv[32];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", line);
  argv[argc++] = "collbench";
  for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
    argv[argc++] = tok;
  argv[argc] = NULL;
  memset(err, 0, sizeof err);
  return cb_args_parse(argc, argv, &A, err, sizeof err);
}

static void test_option(void) {
  CHECK_EQ_INT(parse("ringattn --seq 4096"), CB_ARGS_OK);
  CHECK_EQ_INT(ATTN->pass, CB_ATTN_PASS_FWD);
  const char *names[] = {"fwd", "bwd", "both"};
  const int want[] = {CB_ATTN_PASS_FWD, CB_ATTN_PASS_BWD, CB_ATTN_PASS_BOTH};
  for (int i = 0; i < 3; i++) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "ringattn --seq 4096 --pass %s", names[i]);
    CHECK_EQ_INT(parse(cmd), CB_ARGS_OK);
    CHECK_EQ_INT(ATTN->pass, want[i]);
    CHECK(strcmp(cb_attn_pass_name(want[i]), names[i]) == 0, "name of pass %d", want[i]);
    snprintf(cmd, sizeof cmd, "ringattn --seq 4096 --pass=%s", names[i]);
    CHECK_EQ_INT(parse(cmd), CB_ARGS_OK);
    CHECK_EQ_INT(ATTN->pass, want[i]);
  }
  const char *bad[] = {"ringattn --pass fw", "ringattn --pass BWD", "ringattn --pass fwd,bwd",
                       "ringattn --pass=", "ringattn --pass 1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK_EQ_INT(parse(bad[i]), CB_ARGS_ERROR);
    CHECK_CONTAINS(err, "accepted: fwd, bwd, both");
  }
  CHECK_EQ_INT(parse("ringattn --pass"), CB_ARGS_ERROR);
  CHECK_EQ_INT(parse("allreduce --pass bwd"), CB_ARGS_ERROR);
  CHECK_CONTAINS(err, "--pass/--layout/--ulysses apply only to the ringattn family");
  CHECK_EQ_INT(parse("moe --pass bwd"), CB_ARGS_ERROR);
  CHECK_CONTAINS(err, "ringattn family");
  CHECK(strcmp(cb_attn_pass_name(7), "?") == 0, "unknown pass name");
}

static void test_flops_bytes(void) {
  cb_attn_config_t c;
  cb_attn_defaults(&c);
  c.batch = 2, c.heads = 8, c.kv_heads = 2, c.head_dim = 64;
  const double fwd = 4.0 * 2 * 8 * 8192.0 * 8192.0 * 64;
  CHECK(cb_attn_flops(&c, 8192, 0) == fwd, "forward FLOPs");
  CHECK(cb_attn_pass_flops_factor(CB_ATTN_PASS_FWD) == 1.0, "fwd factor");
  CHECK(cb_attn_pass_flops_factor(CB_ATTN_PASS_BWD) == 2.5, "bwd factor");
  CHECK(cb_attn_pass_flops_factor(CB_ATTN_PASS_BOTH) == 3.5, "both factor");
  CHECK(cb_attn_pass_flops_factor(9) == 0.0, "unknown factor");
  CHECK(cb_attn_flops(&c, 8192, 1) * cb_attn_pass_flops_factor(CB_ATTN_PASS_BOTH) == fwd * 3.5 / 2, "causal both");
  /* 4 ranks, bf16: one K/V shard = 2 * B * S/P * kv_heads * D * 2 bytes; the fp32 sums twice that */
  const uint64_t kv = 2ull * 2 * 2048 * 2 * 64 * 2, dkv = 2 * kv;
  CHECK(cb_attn_pass_bytes(&c, 8192, 4, 2, CB_ATTN_PASS_FWD) == 3 * kv, "fwd bytes");
  CHECK(cb_attn_pass_bytes(&c, 8192, 4, 2, CB_ATTN_PASS_BWD) == 3 * kv + 4 * dkv, "bwd bytes");
  CHECK(cb_attn_pass_bytes(&c, 8192, 4, 2, CB_ATTN_PASS_BOTH) == 6 * kv + 4 * dkv, "both bytes");
  CHECK(cb_attn_pass_bytes(&c, 8192, 1, 2, CB_ATTN_PASS_BOTH) == 0, "one rank moves nothing");
}

static void test_schedule(void) {
  for (int P = 1; P <= 8; P++) {
    int added[8][8]; /* added[block][rank] */
    memset(added, 0, sizeof added);
    for (int i = 0; i < P; i++) {
      int held[8] = {0};
      for (int r = 0; r < P; r++) {
        const cb_ra_bwd_step_t st = cb_ra_bwd_step(P, r, i);
        CHECK(st.kv_src >= 0 && st.kv_src < P, "P=%d r=%d i=%d: block %d", P, r, i, st.kv_src);
        if (st.kv_src < 0 || st.kv_src >= P) continue;
        held[st.kv_src]++;
        added[st.kv_src][r]++;
        CHECK(st.kv_src == ((r - i) % P + P) % P, "P=%d r=%d i=%d: holds %d (the forward's block)", P, r, i, st.kv_src);
        CHECK_EQ_INT(st.contributions, i + 1);
        CHECK_EQ_INT(st.dkv_home, i == P - 1);
        if (i + 1 < P) {
          /* the sums go where the block goes next */
          const cb_ra_bwd_step_t nx = cb_ra_bwd_step(P, st.dkv_to, i + 1);
          CHECK(nx.kv_src == st.kv_src, "P=%d r=%d i=%d: sums to %d, which holds %d next", P, r, i, st.dkv_to,
                nx.kv_src);
        } else {
          CHECK(st.dkv_to == st.kv_src, "P=%d r=%d: last transfer to %d, the block's owner is %d", P, r, st.dkv_to,
                st.kv_src);
        }
        if (i >= 1) {
          /* ... and came from the rank that held it before */
          const int from = (r + P - 1) % P;
          const cb_ra_bwd_step_t pv = cb_ra_bwd_step(P, from, i - 1);
          CHECK(pv.kv_src == st.kv_src && pv.dkv_to == r, "P=%d r=%d i=%d: sums not from %d", P, r, i, from);
        }
      }
      for (int b = 0; b < P; b++) CHECK(held[b] == 1, "P=%d i=%d: block %d held %d times", P, i, b, held[b]);
    }
    for (int b = 0; b < P; b++)
      for (int r = 0; r < P; r++)
        CHECK(added[b][r] == 1, "P=%d: rank %d added to block %d %d times", P, r, b, added[b][r]);
    /* slot fills: steps 1..P-1, slot t % 2, indices 1, 2, ... within each slot */
    CHECK_EQ_INT(cb_ra_slot_fills(P, 0) + cb_ra_slot_fills(P, 1), P - 1);
    unsigned seen[2] = {0, 0};
    for (int t = 1; t < P; t++) CHECK_EQ_INT(cb_ra_fill_index(t), ++seen[t % 2]);
    CHECK_EQ_INT(seen[0], cb_ra_slot_fills(P, 0));
    CHECK_EQ_INT(seen[1], cb_ra_slot_fills(P, 1));
  }
}

int main(void) {
  test_option();
  test_flops_bytes();
  test_schedule();
  return cb_test_finish("test_ringattn_pass");
}
