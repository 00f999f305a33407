/* alltoallv "auto": peer (alltoallv_peer.c) wherever it can run, one node of up to CB_MAX_RANKS
 * GPUs with peer access, and NCCL's grouped send/recv (nccl_alltoallv.c) otherwise, so a run
 * across nodes still gets a row. No size threshold yet: the peer push has not been measured
 * against NCCL on a multi-GPU machine (docs/algorithms.md); auto runs its pick as the instance's
 * delegate (the pick's state is the instance's priv), as allreduce's auto does. */
#include <stdio.h>

#include "alltoallv_algo.h"
#include "auto_delegate.h"
#include "error.h"

static const cb_algo_t *pick(const cb_world_t *w, const cb_params_t *p) {
  char why[256];
  const cb_algo_t *peer = cb_algo_find(CB_ALLTOALLV, "peer"), *nccl = cb_algo_find(CB_ALLTOALLV, "nccl");
  if (!peer || !nccl) CB_DIE(CB_EXIT_RUNTIME, "alltoallv auto: peer or nccl is not registered");
  return peer->supported(w, p, why, sizeof why) ? peer : nccl;
}

static int supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return cb_auto_supported(pick(w, p), w, p, why, n);
}

static int setup(cb_inst_t *in, char *why, size_t n) { return cb_auto_setup(pick(in->world, &in->p), in, why, n); }

static void describe(const cb_world_t *w, char *buf, size_t n) {
  cb_params_t p = {.family = CB_ALLTOALLV};
  snprintf(buf, n, "%s: %s", pick(w, &p)->name,
           w->mpi.nnodes > 1 ? "the world spans nodes" : "peer inside one node with peer access, else nccl");
}

const cb_algo_t cb_algo_alltoallv_auto = {
    .name = "auto",
    .family = CB_ALLTOALLV,
    .summary = "peer inside one node with peer access, nccl otherwise",
    .dtypes = CB_ALL_DTYPES,
    .ops = CB_ALL_OPS,
    .nphases = 1,
    .graph_ok = 1,
    .supported = supported,
    .setup = setup,
    .run = cb_auto_run,
    .check = cb_a2av_check,
    .teardown = cb_auto_teardown,
    .describe = describe,
};
