/* "auto" of broadcast and reduce: the one-shot peer form (broadcast_peer.c, reduce_peer.c) up to
 * CB_ROOTED_AUTO_PEER_MAX_BYTES per rank on one node with peer access, NCCL otherwise (above that
 * size, across nodes, or where peer memory is unavailable: the row's note names the pick). The
 * threshold is a guess until measured on a multi-GPU node (rooted_peer.h says what it rests on).
 * The pick runs as the instance's delegate, as all-reduce's auto does. */
#include <stdio.h>

#include "auto_delegate.h"
#include "error.h"
#include "rooted_peer.h"

static const cb_algo_t *pick(const cb_world_t *w, const cb_params_t *p) {
  char why[256];
  const char *name =
      p->bytes <= CB_ROOTED_AUTO_PEER_MAX_BYTES && cb_peer_supported(w, why, sizeof why) ? "peer" : "nccl";
  const cb_algo_t *a = cb_algo_find(p->family, name);
  if (!a) CB_DIE(CB_EXIT_RUNTIME, "auto: picked '%s', which is not registered for %s", name, cb_family_name(p->family));
  return a;
}

static int supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return cb_auto_supported(pick(w, p), w, p, why, n);
}

static int setup(cb_inst_t *in, char *why, size_t n) { return cb_auto_setup(pick(in->world, &in->p), in, why, n); }

static void describe(const cb_world_t *w, char *buf, size_t n) {
  char why[256];
  if (!cb_peer_supported(w, why, sizeof why)) snprintf(buf, n, "nccl at every size (peer form %s)", why);
  else
    snprintf(buf, n, "peer up to %llu B per rank, nccl above (a guess until measured)",
             (unsigned long long)CB_ROOTED_AUTO_PEER_MAX_BYTES);
}

#define ROOTED_AUTO(var, fam, sum)  \
  const cb_algo_t var = {           \
      .name = "auto",               \
      .family = fam,                \
      .summary = sum,               \
      .dtypes = CB_ALL_DTYPES,      \
      .ops = CB_ALL_OPS,            \
      .nphases = 1,                 \
      .graph_ok = 1,                \
      .supported = supported,       \
      .setup = setup,               \
      .run = cb_auto_run,           \
      .teardown = cb_auto_teardown, \
      .describe = describe,         \
  }

ROOTED_AUTO(cb_algo_broadcast_auto, CB_BROADCAST, "peer up to 256 KiB per rank on one node, nccl otherwise");
ROOTED_AUTO(cb_algo_reduce_auto, CB_REDUCE, "peer up to 256 KiB per rank on one node, nccl otherwise");
