/* Work split of the Hopper backward block-attention kernel (attn_bwd_sm90_kernel.cuh): which
 * keys, kv head, batch and query heads each CTA sweeps, in which order the CTAs are launched, and
 * into how many CTAs one kv head's query heads are split. The launcher (attn_bwd_sm90.cu) picks
 * the split on the host with the same functions the kernel decodes its share with.
 *
 * A CTA owns BLOCK_N keys of one kv head and keeps their dK and dV in registers while it sweeps
 * the query tiles of its query heads. With the whole group of query heads in one CTA, a grouped
 * shape has few CTAs: 16 heads on 2 kv heads at S = 4K are 32 key tiles x 2 = 64 CTAs, half of an
 * H200's 132 SMs. Splitting the group into `split` parts of group / split heads gives split times
 * as many CTAs; their dK and dV partials are then added with atomics (attn_bwd_sm90_epilogue.cuh),
 * unsplit CTAs keep their plain, ordered read-add-write.
 *
 * Order. Causal: longest first (the first key tiles see the most queries) in sections of
 * (kv head, batch, part) units whose Q and dO fit a quarter of L2 (attn_sm90_order.h). Not causal: key
 * tile fastest, every CTA having the same work.
 *
 * The split is the one (a divisor of the group) whose model of the block scheduler finishes first:
 * CTAs in launch order each go to the SM that frees first and cost their query tiles (in 64-row
 * units: a 128-row tile costs 2) plus a fixed CB_BWD_CTA_COST for K and V, the pipeline's fill
 * and the dK / dV write; ties go to the smaller split. */
#ifndef CB_ATTN_BWD_SM90_SCHEDULE_H
#define CB_ATTN_BWD_SM90_SCHEDULE_H

#include <stddef.h>

#include "attn_params.h"
#include "attn_sm90_order.h"
#include "attn_sm90_tile.h"
#include "hostdev.h"

/* a CTA's fixed cost, in 64-row query tiles of work (the model's only constant) */
static constexpr int CB_BWD_CTA_COST = 2;
/* splits are tried while the CTAs fit this many waves */
static constexpr int CB_BWD_SPLIT_WAVES = 4;
/* causal: query heads one CTA sweeps at most (fewer heads, a shorter reuse distance of Q and dO
 * in L2: H200, 32 heads on 8 kv heads, S 8K-32K, two heads per CTA 4-8 % faster than four) */
static constexpr int CB_BWD_CAUSAL_HEADS = 2;
/* the sections' check runs the model on grids of this many waves at most */
static constexpr int CB_BWD_MODEL_WAVES = 16;
/* the model's SMs at most (its scratch is on the launcher's stack) */
static constexpr int CB_BWD_MODEL_SMS = 1024;

CB_HD int cb_bwd_key_tiles(const cb_attn_params &p) { return (p.kv_len + CB_BWD_BLOCK_N - 1) / CB_BWD_BLOCK_N; }
/* query tiles of bm rows */
CB_HD int cb_bwd_query_tiles(const cb_attn_params &p, int bm) { return (p.q_len + bm - 1) / bm; }

/* The first query tile (of bm rows) whose last row sees key n0 (0 when not causal); positions
 * increase with the row, so a binary search. */
CB_HD int cb_bwd_first_query_tile(const cb_attn_params &p, int n0, int bm) {
  int lo = 0, hi = cb_bwd_query_tiles(p, bm);
  if (!p.causal) return 0;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    const int last = mid * bm + bm - 1;
    if (cb_attn_row_keys(p, last < p.q_len - 1 ? last : p.q_len - 1) > n0) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/* One CTA's work: its 128 keys from n0 of kv head hk, batch b, against `iters` query tiles of BM
 * rows: for each of its `nh` query heads from h0, the ntile tiles from i_lo on. */
template <int BM>
struct cb_bwd_sm90_work {
  int hk, b, n0, h0, i_lo, ntile, iters;
  CB_HD int head(int it) const { return h0 + it / ntile; }
  CB_HD int row0(int it) const { return (i_lo + it % ntile) * BM; }
};

/* Bytes of Q and dO (16-bit) one (kv head, batch, part) unit's query heads read. */
static inline size_t cb_bwd_unit_bytes(const cb_attn_params &p, int split, int head_dim) {
  return (size_t)(p.group / split) * p.q_len * head_dim * 4;
}

/* The share of CTA `block` (of key tiles x kv heads x batch x split, in the order above), in
 * query tiles of BM rows (the kernel's, g.block_m: a template parameter, so that the tile
 * arithmetic is shifts and the struct one register smaller in the producer's 24). */
template <int BM>
CB_HD cb_bwd_sm90_work<BM> cb_bwd_sm90_work_of(const cb_attn_params &p, const cb_bwd_sm90_grid &g, int block) {
  const int tiles = cb_bwd_key_tiles(p), units = p.kv_heads * g.batch * g.split;
  int tile, unit;
  if (p.causal) cb_sm90_order(block, tiles, units, g.sections, &tile, &unit);
  else tile = block % tiles, unit = block / tiles;
  const int part = unit % g.split, rest = unit / g.split;
  cb_bwd_sm90_work<BM> w;
  w.hk = rest % p.kv_heads, w.b = rest / p.kv_heads, w.n0 = tile * CB_BWD_BLOCK_N;
  const int nh = p.group / g.split;
  w.h0 = w.hk * p.group + part * nh;
  w.i_lo = cb_bwd_first_query_tile(p, w.n0, BM);
  w.ntile = cb_bwd_query_tiles(p, BM) - w.i_lo, w.iters = nh * w.ntile;
  return w;
}

/* The model's finish time of grid g (in 64-row query tiles of work): CTAs in launch order, each to the
 * SM that frees first. Not causal, every CTA costs the same: whole waves. Causal, the CTAs of one
 * key tile in a section (consecutive in the order) cost the same and the SMs' free times are a
 * min-heap. `free_at` holds `sms` entries. */
static inline long cb_bwd_sm90_makespan(const cb_attn_params &p, const cb_bwd_sm90_grid &g, int sms, long *free_at) {
  const int tiles = cb_bwd_key_tiles(p), units = p.kv_heads * g.batch * g.split, nh = p.group / g.split;
  const int bm = g.block_m, w = bm / 64; /* a tile's work in 64-row tiles */
  if (!p.causal) {
    const long ctas = (long)tiles * units;
    return (ctas + sms - 1) / sms * ((long)nh * cb_bwd_query_tiles(p, bm) * w + CB_BWD_CTA_COST);
  }
  long end = 0;
  for (int s = 0; s < sms; s++) free_at[s] = 0;
  for (int s = 0; s < g.sections; s++) {
    int first, n;
    cb_sm90_section_pairs(units, g.sections, s, &first, &n);
    (void)first;
    for (int tile = 0; tile < tiles; tile++) {
      const long cost =
          (long)nh * (cb_bwd_query_tiles(p, bm) - cb_bwd_first_query_tile(p, tile * CB_BWD_BLOCK_N, bm)) * w +
          CB_BWD_CTA_COST;
      for (int i = 0; i < n; i++) {
        const long t = free_at[0] + cost;
        if (t > end) end = t;
        int at = 0; /* the root (the SM that frees first) takes the CTA: sift its new time down */
        for (;;) {
          int c = 2 * at + 1;
          if (c >= sms) break;
          if (c + 1 < sms && free_at[c + 1] < free_at[c]) c++;
          if (free_at[c] >= t) break;
          free_at[at] = free_at[c], at = c;
        }
        free_at[at] = t;
      }
    }
  }
  return end;
}

/* The grid of `split` with its sections: those whose Q and dO fit a quarter of L2, unless the
 * model finishes more than 2 % later with them than with one section (short sequences: a CTA's
 * work is a large part of the whole, and the last section's longest CTAs would start late). The
 * model runs on grids of up to CB_BWD_MODEL_WAVES waves (its time grows with the grid: longer,
 * the last section is a small part of the whole). */
static inline cb_bwd_sm90_grid cb_bwd_sm90_grid_with(const cb_attn_params &p, int batch, int split, int head_dim,
                                                     int sms, size_t l2_bytes, long *free_at) {
  const int units = p.kv_heads * batch * split;
  cb_bwd_sm90_grid g = {batch, split, cb_sm90_sections(cb_bwd_unit_bytes(p, split, head_dim), l2_bytes / 4, units, 1),
                        cb_bwd_block_m(head_dim)};
  if (p.causal && g.sections > 1 && sms >= 1 && (long)cb_bwd_key_tiles(p) * units <= (long)CB_BWD_MODEL_WAVES * sms) {
    const cb_bwd_sm90_grid one = {batch, split, 1, g.block_m};
    if (cb_bwd_sm90_makespan(p, g, sms, free_at) * 50 > cb_bwd_sm90_makespan(p, one, sms, free_at) * 51) g = one;
  }
  return g;
}

/* The grid for this shape (head dim D, `batch`) on `sms` SMs with `l2_bytes` of L2: the split
 * the model finishes first with, and its sections; `free_at` holds `sms` entries (the model's
 * scratch). Causal grids sweep at most CB_BWD_CAUSAL_HEADS query heads per CTA whatever the
 * model says. The caller has bounded key tiles x heads x batch (the largest grid) to int. */
static inline cb_bwd_sm90_grid cb_bwd_sm90_grid_of(const cb_attn_params &p, int batch, int head_dim, int sms,
                                                   size_t l2_bytes, long *free_at) {
  int first = 1; /* the smallest split: causal, the first that leaves at most CB_BWD_CAUSAL_HEADS per CTA */
  while (p.causal && (p.group % first || p.group / first > CB_BWD_CAUSAL_HEADS)) first++;
  cb_bwd_sm90_grid best = cb_bwd_sm90_grid_with(p, batch, first, head_dim, sms, l2_bytes, free_at);
  const long base = (long)cb_bwd_key_tiles(p) * p.kv_heads * batch;
  if (first == p.group || sms < 1 || base * first * 2 > (long)CB_BWD_SPLIT_WAVES * sms) return best;
  long best_end = cb_bwd_sm90_makespan(p, best, sms, free_at);
  for (int split = first + 1; split <= p.group && base * split <= (long)CB_BWD_SPLIT_WAVES * sms; split++) {
    if (p.group % split) continue;
    const cb_bwd_sm90_grid g = cb_bwd_sm90_grid_with(p, batch, split, head_dim, sms, l2_bytes, free_at);
    const long end = cb_bwd_sm90_makespan(p, g, sms, free_at);
    if (end < best_end) best = g, best_end = end;
  }
  return best;
}

#endif
