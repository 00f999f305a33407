/* Custom all-reduce "auto": picks oneshot_ll, oneshot, twoshot or twoshot_ce per message size
 * from thresholds measured on 2 x H200 (allreduce_plan.h holds them and their scaling with the
 * rank count; docs/decisions/allreduce.md has the sweeps; CB_AR_*_MAX override them through the world's
 * knobs), and runs the pick as the instance's delegate: the pick's state is the instance's
 * priv, so auto keeps no state of its own. A world that spans nodes always gets hier (the
 * peer-memory forms work inside one node only); ranks sharing a GPU get twoshot for twoshot_ce. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allreduce_plan.h"
#include "auto_delegate.h"
#include "collective.h"
#include "error.h"

static const cb_algo_t *pick(const cb_world_t *w, const cb_params_t *p) {
  const char *name = w->mpi.nnodes > 1 ? "hier" : cb_ar_auto_pick(&w->knobs.ar, p->bytes);
  /* twoshot_ce cannot run while ranks of one node share a GPU (CB_SHARE_GPUS=1): twoshot, its kernel form */
  if (w->gpu_shared_in_node && strcmp(name, "twoshot_ce") == 0) name = "twoshot";
  const cb_algo_t *a = cb_algo_find(CB_ALLREDUCE, name);
  if (!a) CB_DIE(CB_EXIT_RUNTIME, "auto: picked '%s', which is not registered", name);
  return a;
}

static int supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return cb_auto_supported(pick(w, p), w, p, why, n);
}

static int setup(cb_inst_t *in, char *why, size_t n) { return cb_auto_setup(pick(in->world, &in->p), in, why, n); }

static void describe(const cb_world_t *w, char *buf, size_t n) {
  int r = w->mpi.nranks;
  if (w->mpi.nnodes > 1) {
    snprintf(buf, n, "hier: the world spans %d nodes", w->mpi.nnodes);
    return;
  }
  const cb_ar_thresholds_t t = w->knobs.ar;
  snprintf(buf, n, "oneshot_ll up to %llu B per rank, oneshot up to %llu B, twoshot up to %llu B, %s above (%d ranks)",
           (unsigned long long)t.ll_max, (unsigned long long)t.oneshot_max, (unsigned long long)t.twoshot_max,
           w->gpu_shared_in_node ? "twoshot (ranks share a GPU)" : "twoshot_ce", r);
}

const cb_algo_t cb_algo_allreduce_auto = {
    .name = "auto",
    .family = CB_ALLREDUCE,
    .summary = "oneshot_ll, oneshot, twoshot or twoshot_ce by message size (measured thresholds); hier across nodes",
    .dtypes = CB_ALL_DTYPES,
    .ops = CB_ALL_OPS,
    .nphases = 1,
    .graph_ok = 1,
    .supported = supported,
    .setup = setup,
    .run = cb_auto_run,
    .teardown = cb_auto_teardown,
    .describe = describe,
};
