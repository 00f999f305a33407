/* Custom all-reduce "auto": picks oneshot_ll, oneshot or twoshot per message size from
 * thresholds measured on 2 x H200 (results/README.md has the sweeps), and runs the pick.
 * One-shot moves (n-1)·S per rank (LL twice that) against two-shot's 2(n-1)/n·S, but saves
 * barriers, so the crossovers shrink as n grows: each threshold is its 2-rank value · 2 / n.
 * CB_AR_LL_MAX and CB_AR_ONESHOT_MAX (environment, bytes) override them for experiments. */
#include <stdio.h>
#include <stdlib.h>

#include "../launcher/env.h"
#include "../launcher/error.h"
#include "collective.h"

extern const cb_algo_t cb_algo_allreduce_oneshot, cb_algo_allreduce_oneshot_ll, cb_algo_allreduce_twoshot;

/* Largest per-rank messages for which oneshot_ll beat oneshot, and oneshot beat twoshot, at 2
 * ranks (measured, graph mode). */
#define CB_AUTO_LL_MAX_BYTES_2RANKS (32ull << 10)
#define CB_AUTO_ONESHOT_MAX_BYTES_2RANKS (4ull << 20)

typedef struct auto_state {
  const cb_algo_t *pick;
  void *priv;
} auto_state_t;

static unsigned long long threshold(const char *env, unsigned long long two_rank_value, int nranks) {
  uint64_t v = two_rank_value * 2 / (unsigned long long)(nranks > 1 ? nranks : 2);
  char why[160];
  if (cb_env_u64(env, 0, UINT64_MAX, &v, why, sizeof why) < 0) CB_DIE(CB_EXIT_USAGE, "%s", why);
  return v;
}

static const cb_algo_t *pick(const cb_world_t *w, const cb_params_t *p) {
  int n = w->mpi.nranks;
  if (p->bytes <= threshold("CB_AR_LL_MAX", CB_AUTO_LL_MAX_BYTES_2RANKS, n)) return &cb_algo_allreduce_oneshot_ll;
  if (p->bytes <= threshold("CB_AR_ONESHOT_MAX", CB_AUTO_ONESHOT_MAX_BYTES_2RANKS, n)) return &cb_algo_allreduce_oneshot;
  return &cb_algo_allreduce_twoshot;
}

static int supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  const cb_algo_t *a = pick(w, p);
  return a->supported ? a->supported(w, p, why, n) : 1;
}

static int setup(cb_inst_t *in, char *why, size_t n) {
  auto_state_t *st = calloc(1, sizeof *st);
  if (!st) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  st->pick = pick(in->world, &in->p);
  if (st->pick->setup(in, why, n)) {
    free(st);
    return -1;
  }
  st->priv = in->priv;
  in->priv = st;
  char inner[sizeof in->note];
  snprintf(inner, sizeof inner, "%s", in->note);
  snprintf(in->note, sizeof in->note, "auto: %s (%.200s)", st->pick->name, inner);
  return 0;
}

/* The picked algorithm sees its own state in priv. */
static void run(cb_inst_t *in, int phase, cudaStream_t s) {
  auto_state_t *st = in->priv;
  in->priv = st->priv;
  st->pick->run(in, phase, s);
  in->priv = st;
}

static void teardown(cb_inst_t *in) {
  auto_state_t *st = in->priv;
  in->priv = st->priv;
  st->pick->teardown(in);
  free(st);
}

static void describe(const cb_world_t *w, char *buf, size_t n) {
  int r = w->mpi.nranks;
  snprintf(buf, n, "oneshot_ll up to %llu B per rank, oneshot up to %llu B, twoshot above (%d ranks)",
           threshold("CB_AR_LL_MAX", CB_AUTO_LL_MAX_BYTES_2RANKS, r),
           threshold("CB_AR_ONESHOT_MAX", CB_AUTO_ONESHOT_MAX_BYTES_2RANKS, r), r);
}

const cb_algo_t cb_algo_allreduce_auto = {
    .name = "auto",
    .family = CB_ALLREDUCE,
    .summary = "oneshot_ll, oneshot or twoshot by message size (measured thresholds)",
    .dtypes = CB_ALL_DTYPES,
    .ops = CB_ALL_OPS,
    .nphases = 1,
    .graph_ok = 1,
    .supported = supported,
    .setup = setup,
    .run = run,
    .teardown = teardown,
    .describe = describe,
};
