/* Custom all-reduce "auto": picks oneshot_ll, oneshot, twoshot or twoshot_ce per message size
 * from thresholds measured on 2 x H200 (allreduce_plan.h holds them and their scaling with the
 * rank count; results/README.md has the sweeps), and runs the pick. */
#include <stdio.h>
#include <stdlib.h>

#include "allreduce_plan.h"
#include "collective.h"
#include "error.h"

typedef struct auto_state {
  const cb_algo_t *pick;
  void *priv;
} auto_state_t;

static cb_ar_thresholds_t thresholds(int nranks) {
  cb_ar_thresholds_t t;
  char why[200];
  if (cb_ar_thresholds(nranks, &t, why, sizeof why) < 0) CB_DIE(CB_EXIT_USAGE, "%s", why);
  return t;
}

static const cb_algo_t *pick(const cb_world_t *w, const cb_params_t *p) {
  cb_ar_thresholds_t t = thresholds(w->mpi.nranks);
  const char *name = cb_ar_auto_pick(&t, p->bytes);
  const cb_algo_t *a = cb_algo_find(CB_ALLREDUCE, name);
  if (!a) CB_DIE(CB_EXIT_RUNTIME, "auto: picked '%s', which is not registered", name);
  return a;
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
  cb_ar_thresholds_t t = thresholds(r);
  snprintf(buf, n, "oneshot_ll up to %llu B per rank, oneshot up to %llu B, twoshot up to %llu B, twoshot_ce above (%d ranks)",
           (unsigned long long)t.ll_max, (unsigned long long)t.oneshot_max, (unsigned long long)t.twoshot_max, r);
}

const cb_algo_t cb_algo_allreduce_auto = {
    .name = "auto",
    .family = CB_ALLREDUCE,
    .summary = "oneshot_ll, oneshot, twoshot or twoshot_ce by message size (measured thresholds)",
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
