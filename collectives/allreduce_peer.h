/* Host side shared by the custom all-reduce algorithms: the peer allocation laid out as
 * kernels/allreduce.h describes, per-block epochs, grid choice and the launch. Each algorithm
 * file (allreduce_oneshot.c, allreduce_twoshot.c) supplies its scratch size, grid and kernel. */
#ifndef CB_ALLREDUCE_PEER_H
#define CB_ALLREDUCE_PEER_H

#include "allreduce.h"
#include "collective.h"
#include "peer.h"

typedef struct cb_ar_kind {
  size_t (*scratch)(size_t count, int dtype, int nranks);
  void (*grid)(size_t count, int dtype, int nranks, const cb_grid_limits_t *g, int *blocks, int *threads);
  void (*launch)(const cb_ar_launch_t *a, cudaStream_t s);
  int default_max_blocks; /* 0: one block per SM (cb_peer_grid_limits) */
} cb_ar_kind_t;

int cb_ar_setup(cb_inst_t *in, const cb_ar_kind_t *kind, char *why, size_t n);
/* Peer memory available and the message at most max_bytes per rank (the one-shot kernels stage
 * n copies, so they are offered only up to a size); `name` goes into the reason. */
int cb_ar_supported_upto(const cb_world_t *w, const cb_params_t *p, unsigned long long max_bytes, const char *name,
                         const char *what, char *why, size_t n);
void cb_ar_run(cb_inst_t *in, int phase, cudaStream_t s);
/* The launch arguments cb_ar_setup filled in (in->priv must be its state). */
cb_ar_launch_t *cb_ar_launch_of(cb_inst_t *in);
void cb_ar_teardown(cb_inst_t *in);

#endif
