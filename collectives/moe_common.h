/* Host side shared by the two MoE algorithms (moe_peer.c: custom peer-memory path, moe_nccl.c:
 * the Megatron-style NCCL path): routing for every rank, expected results, device buffers,
 * byte accounting and the check. Phases: 0 layout, 1 dispatch, 2 combine. */
#ifndef CB_MOE_COMMON_H
#define CB_MOE_COMMON_H

#include "collective.h"
#include "moe.h"
#include "moe_family.h"
#include "moe_router.h"
#include "peer.h"

typedef struct cb_moe_state {
  int custom;
  int n, r, ntokens, cap, topk, hidden, experts_per_rank, fp8;
  size_t row_bytes, meta_bytes, comb_row_bytes;
  cb_moe_routing_t all[CB_MAX_RANKS]; /* every rank's routing (pure function of the seed) */
  int exp_recv[CB_MAX_RANKS];         /* rows this rank must receive from each source */
  int *exp_expert;                    /* (row, expert) selections per local expert */
  double layout_bytes, disp_bytes, disp_remote, comb_bytes, comb_remote; /* per rank, mean over ranks */
  /* device, local */
  void *x, *out;
  int32_t *ids, *all_ids, *all_ntokens;
  float *weights, *all_w;
  int32_t *send_count, *send_idx, *send_pos, *recv_count, *expert_count, *expert_rows;
  uint32_t *epochs;
  unsigned long long *d_wrong;
  unsigned long long *trace; /* kernel time stamps (moe_trace.h; NULL: none) */
  int32_t *h_counts;         /* pinned: [0,n) send, [n,2n) recv (NCCL path) */
  /* NCCL path buffers */
  char *send_rows, *send_meta, *recv_rows, *recv_meta, *comb_send, *comb_recv;
  /* custom path */
  cb_peer_mem_t pm;
  cb_moe_dev_t dev;
  size_t dev_bytes;
  void *ext; /* a path's own state beyond these (moe_hier.c), freed by that path's teardown */
} cb_moe_state_t;

extern const char *const cb_moe_phase_names[3];

int cb_moe_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n);
/* The steps of a path's setup, in order (each path adds its own buffers between the last two):
 *   cb_moe_state_new     state in in->priv: every rank's routing and the expected results
 *   cb_moe_alloc_common  the device buffers both paths use; -1 with why (out of memory)
 *   cb_moe_dev_init      the kernels' arguments from the state, tokens filled in
 * On failure the path calls cb_moe_teardown, which frees whatever was made. */
cb_moe_state_t *cb_moe_state_new(cb_inst_t *in, int custom);
int cb_moe_alloc_common(cb_inst_t *in, cb_moe_state_t *st, char *why, size_t n);
void cb_moe_dev_init(cb_inst_t *in, cb_moe_state_t *st);
/* Device allocation counted in dev_bytes; on failure writes why and returns NULL. */
void *cb_moe_alloc(cb_moe_state_t *st, size_t bytes, char *why, size_t n);
void cb_moe_teardown(cb_inst_t *in);
long long cb_moe_check(cb_inst_t *in, cudaStream_t s, uint64_t seed, int iter);
void cb_moe_bytes(const cb_inst_t *in, int phase, cb_bytes_t *out);

/* The peer-memory paths' supported() and setup (moe_peer.c), shared by peer and peer_ll: the
 * peer allocation, its layout and the grids (the kernels' arguments in st->dev). */
int cb_moe_peer_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n);
int cb_moe_peer_setup(cb_inst_t *in, char *why, size_t n);

#endif
