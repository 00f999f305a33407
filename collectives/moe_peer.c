/* MoE "peer": dispatch and combine over peer memory (kernels/moe.cu, custom = 1). Counts
 * travel LL-style inside the layout kernel, rows are pushed straight into each destination's
 * per-source region, dispatch completion is one release-add per block; the combine is one
 * kernel whose push blocks raise a flag per chunk of rows and whose reduce blocks sum tokens as
 * their chunks land (kernels/moe_combine.cu). No host round trip, so the whole round trip can
 * be captured in a CUDA graph. Peer allocation per rank:
 *   [ recv rows: n x cap x row_bytes ][ recv meta: n x cap x meta_bytes ]
 *   [ combine rows: n x cap x hidden x 2 ][ count slots: 2 x 256 x 8 x 8 ]
 *   [ combine chunk flags: n x nchunks x 4 ][ signal pad ] */
#include <stdio.h>
#include <string.h>

#include "cb_limits.h"
#include "error_gpu.h"
#include "moe_common.h"
#include "signal_pad.h"

int cb_moe_peer_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  if (!cb_moe_supported(w, p, why, n) || !cb_peer_supported(w, why, n)) return 0;
  if (w->grid_sms < 2) {
    snprintf(why, n,
             "skipped: moe peer needs at least 2 SMs (its combine pushes and reduces in separate blocks); "
             "the SM cap is %d",
             w->grid_sms);
    return 0;
  }
  return 1;
}

/* peer runs the layout kernel, one block per destination rank: under an SM cap below the rank
 * count it could not stay within the cap. */
static int supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  if (!cb_moe_peer_supported(w, p, why, n)) return 0;
  if (w->grid_sms < w->mpi.nranks) {
    snprintf(why, n, "skipped: moe peer's layout kernel runs one block per rank (%d); the SM cap is %d", w->mpi.nranks,
             w->grid_sms);
    return 0;
  }
  return 1;
}

int cb_moe_peer_setup(cb_inst_t *in, char *why, size_t n) {
  cb_moe_state_t *st = cb_moe_state_new(in, 1);
  int rc = cb_moe_alloc_common(in, st, why, n);
  /* every rank reaches the peer allocation (a collective), even after a local failure */
  size_t rows = (size_t)st->n * st->cap;
  size_t meta_off = CB_ALIGN_UP(rows * st->row_bytes, 256);
  size_t comb_off = meta_off + CB_ALIGN_UP(rows * st->meta_bytes, 256);
  size_t cnt_off = comb_off + CB_ALIGN_UP(rows * st->comb_row_bytes, 256);
  int nchunks = (st->cap + CB_MOE_CHUNK_ROWS_MIN - 1) / CB_MOE_CHUNK_ROWS_MIN;
  /* count slots: [0, n) the layout kernel's LL counts (peer); peer_ll's block ranges, two per
   * (block, source) by epoch parity (kernels/moe_dispatch_ll.cu range_slot) */
  size_t chunk_off = cnt_off + CB_ALIGN_UP((size_t)2 * CB_MOE_MAX_PUSH_BLOCKS * CB_MAX_RANKS * 8, 256);
  size_t pad_off = chunk_off + CB_ALIGN_UP((size_t)st->n * nchunks * 4, 256);
  size_t total = pad_off + CB_SIGNAL_PAD_BYTES;
  char why2[256] = "";
  int prc = cb_peer_alloc(in->world, total, &st->pm, why2, sizeof why2);
  if (rc || prc) {
    if (!rc) snprintf(why, n, "%s", why2);
    cb_moe_teardown(in); /* frees what was made, the peer mapping included */
    return -1;
  }
  cb_moe_dev_init(in, st);
  cb_moe_dev_t *d = &st->dev;
  int r = st->r;
  for (int q = 0; q < st->n; q++) {
    char *b = st->pm.ptrs[q];
    d->base[q] = b;
    d->dst_rows[q] = b + (size_t)r * st->cap * st->row_bytes;
    d->dst_meta[q] = b + meta_off + (size_t)r * st->cap * st->meta_bytes;
    d->comb_dst[q] = b + comb_off + (size_t)r * st->cap * st->comb_row_bytes;
  }
  char *mine = st->pm.ptrs[r];
  d->recv_rows = mine;
  d->recv_meta = mine + meta_off;
  d->comb_src = mine + comb_off;
  d->cnt_off = cnt_off;
  d->chunk_off = chunk_off;
  d->nchunks = nchunks;
  d->pad_off = pad_off;
  /* combine: push and reduce blocks (CB_MOE_PUSH_PCT), at least one of each */
  int pb = (d->push_blocks * in->world->knobs.moe_push_pct + 50) / 100;
  d->comb_push_blocks = pb < 1 ? 1 : pb > d->push_blocks - 1 ? d->push_blocks - 1 : pb;
  int ch = st->cap / d->comb_push_blocks;
  d->chunk_rows = ch < CB_MOE_CHUNK_ROWS_MIN   ? CB_MOE_CHUNK_ROWS_MIN
                  : ch > CB_MOE_CHUNK_ROWS_MAX ? CB_MOE_CHUNK_ROWS_MAX
                                               : ch;
  /* the combine in GPC-spread clusters, except beside --overlap's compute kernel and on shared
   * GPUs (moe.h, combine_spread) */
  d->combine_spread = !in->world->gpu_shared && !(cb_moe_cfg(&in->p) && cb_moe_cfg(&in->p)->overlap);
  in->sms = cb_grid_sms(d->push_blocks, in->world->sm_count);
  snprintf(in->note + strlen(in->note), sizeof in->note - strlen(in->note),
           "; %d blocks (combine: %d push, %d reduce, %d-row chunks)", d->push_blocks, d->comb_push_blocks,
           d->push_blocks - d->comb_push_blocks, d->chunk_rows);
  /* how the combine's launch went (kernels/spread.cuh; the dispatch push stays plain: spread, it
   * was 0.7 % slower at 32 SMs on 2 x H200, docs/decisions/moe.md) */
  const int cluster = cb_moe_combine_cluster(d);
  if (cluster > 1)
    snprintf(in->note + strlen(in->note), sizeof in->note - strlen(in->note), "; combine in clusters of %d", cluster);
  else snprintf(in->note + strlen(in->note), sizeof in->note - strlen(in->note), "; combine plain");
  in->mem_bytes = st->dev_bytes + total;
  return 0;
}

static void run(cb_inst_t *in, int phase, cudaStream_t s) {
  cb_moe_state_t *st = in->priv;
  switch (phase) {
  case 0: cb_moe_layout(&st->dev, s); break;
  case 1:
    cb_moe_dispatch_push(&st->dev, s);
    cb_moe_expert_layout(&st->dev, s);
    break;
  default: cb_moe_combine_fused(&st->dev, s);
  }
}

const cb_algo_t cb_algo_moe_peer = {
    .name = "peer",
    .family = CB_MOE,
    .summary = "peer-memory dispatch/combine: device-side counts, row pushes, per-block completion counters",
    .dtypes = CB_DT(CB_BF16) | CB_DT(CB_FP8E4M3),
    .nphases = 3,
    .phase_names = cb_moe_phase_names,
    .graph_ok = 1,
    .supported = supported,
    .setup = cb_moe_peer_setup,
    .run = run,
    .check = cb_moe_check,
    .bytes = cb_moe_bytes,
    .teardown = cb_moe_teardown,
};
