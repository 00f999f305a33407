/* CPU test of the Hopper backward's work split (kernels/attn/attn_bwd_sm90_schedule.h) and of the
 * causal launch order both Hopper kernels use (attn_sm90_order.h), the host code the launchers
 * and the kernels share:
 *   - the order is a bijection of blocks onto (tile rank, pair), section after section, rank-major
 *     within one, the sections' sizes within one of each other;
 *   - every (batch, query head, key tile) is swept by exactly one CTA, whose kv head reads that
 *     query head, for every split that divides the group and every count of sections, causal or
 *     not, with ring offsets, in query tiles of both heights (64 rows; 128 at D 64);
 *   - a CTA's first query tile is the first that sees one of its keys (checked row by row);
 *   - causal CTAs are launched longest first within a section;
 *   - the forward's consumer warpgroups: D 64 without a mask takes the 128-row tiles where their
 *     waves finish first (32 heads at 4K on 132 SMs), the 192-row ones elsewhere; its grid is
 *     one CTA per SM at most (one per tile where there are fewer tiles or no SM count);
 *   - the split: 16 heads on 2 kv heads at S = 4K on 132 SMs (64 CTAs unsplit) splits in 2 (the
 *     model's finish times, worked out below, in 64-row tiles whatever the height), ungrouped and
 *     large shapes are not split.
 * nvcc-compiled host code; no GPU needed. */
#include <stdlib.h>
#include <string.h>

#include "attn_bwd_sm90_schedule.h"
#include "cb_testing.h"

static cb_attn_params shape(int heads, int kv_heads, int q_len, int kv_len, int causal, int q_start, int k_start) {
  cb_attn_params p;
  memset(&p, 0, sizeof p);
  p.heads = heads, p.kv_heads = kv_heads, p.group = heads / kv_heads;
  p.q_len = p.q_len0 = q_len, p.kv_len = p.k_len0 = kv_len;
  p.causal = causal, p.q_start0 = q_start, p.k_start0 = k_start;
  return p;
}

/* a zigzag pair's blocks: queries in two runs, [0, q/2) and from 3 kv_len, keys in [0, kv/2) and
 * from 2 kv_len (positions increase within each block) */
static cb_attn_params zigzag(int heads, int kv_heads, int q_len, int kv_len, int causal) {
  cb_attn_params p = shape(heads, kv_heads, q_len, kv_len, causal, 0, 0);
  p.q_len0 = q_len / 2, p.q_start1 = 3 * kv_len;
  p.k_len0 = kv_len / 2, p.k_start1 = 2 * kv_len;
  return p;
}

/* does any row of query tile i (of bm rows) see key n0? */
static int tile_sees(const cb_attn_params &p, int i, int n0, int bm) {
  for (int r = i * bm; r < p.q_len && r < (i + 1) * bm; r++)
    if (cb_attn_row_keys(p, r) > n0) return 1;
  return 0;
}

/* the section of `pair` */
static int section_of(int pairs, int sections, int pair) {
  for (int s = 0; s < sections; s++) {
    int first, n;
    cb_sm90_section_pairs(pairs, sections, s, &first, &n);
    if (pair >= first && pair < first + n) return s;
  }
  return -1;
}

template <int BM>
static void check_cover(const cb_attn_params &p, int batch, int split, int sections) {
  const int bm = BM;
  const int tiles = cb_bwd_key_tiles(p), qt = cb_bwd_query_tiles(p, bm), ctas = tiles * p.kv_heads * batch * split;
  const size_t cells = (size_t)batch * p.heads * tiles;
  int *seen = (int *)calloc(cells, sizeof(int));
  const cb_bwd_sm90_grid g = {batch, split, sections, bm};
  int bad = 0, order_bad = 0, prev = 1 << 30, prev_sec = -1;
  for (int blk = 0; blk < ctas; blk++) {
    const cb_bwd_sm90_work<BM> w = cb_bwd_sm90_work_of<BM>(p, g, blk);
    if (p.causal) { /* a new section starts longest first again */
      const int unit = (w.b * p.kv_heads + w.hk) * split + (w.h0 - w.hk * p.group) / (p.group / split);
      const int sec = section_of(p.kv_heads * batch * split, sections, unit);
      if (sec != prev_sec) prev = 1 << 30;
      if (sec < prev_sec) order_bad++;
      prev_sec = sec;
    }
    if (w.n0 % CB_BWD_BLOCK_N || w.n0 >= p.kv_len || w.b >= batch || w.hk >= p.kv_heads || w.i_lo < 0 || w.i_lo > qt ||
        w.ntile != qt - w.i_lo || w.iters != p.group / split * w.ntile ||
        (w.ntile && w.row0(w.ntile - 1) != (qt - 1) * bm)) {
      bad++;
      continue;
    }
    /* the first query tile: the first that sees a key of the tile's first (lowest) position */
    int first = 0;
    while (first < qt && !tile_sees(p, first, w.n0, bm)) first++;
    if (w.i_lo != (p.causal ? first : 0)) bad++;
    for (int j = 0; j < p.group / split; j++) { /* (no query tile sees the keys: the CTA owns them, adds nothing) */
      const int h = w.ntile ? w.head(j * w.ntile) : w.h0 + j;
      if (h / p.group != w.hk) bad++;
      else seen[((size_t)w.b * p.heads + h) * tiles + w.n0 / CB_BWD_BLOCK_N]++;
    }
    if (p.causal && w.iters > prev) order_bad++;
    prev = w.iters;
  }
  int wrong = 0;
  for (size_t i = 0; i < cells; i++) wrong += seen[i] != 1;
  CHECK(bad == 0 && wrong == 0,
        "heads %d/%d, S %d x %d, causal %d, batch %d, split %d, sections %d, %d-row tiles: %d bad CTAs, %d cells not "
        "swept once",
        p.heads, p.kv_heads, p.q_len, p.kv_len, p.causal, batch, split, sections, bm, bad, wrong);
  CHECK(order_bad == 0, "causal CTAs not launched longest first (%d inversions)", order_bad);
  free(seen);
}

/* the cover of one shape (2 kv heads x group, 2 x split units at batch 1): plain, a ring step's
 * offsets (the queries after the keys, or half-way through them) and zigzag blocks (two runs each,
 * the second far after the first) */
template <int BM>
static void check_covers(int q_len, int kv_len, int causal, int group, int split, int sections) {
  check_cover<BM>(shape(2 * group, 2, q_len, kv_len, causal, 0, 0), 2, split, 2 * sections - 1);
  check_cover<BM>(shape(2 * group, 2, q_len, kv_len, causal, kv_len, 0), 1, split, sections);
  check_cover<BM>(shape(2 * group, 2, q_len, kv_len, causal, kv_len / 2, 0), 1, split, sections);
  check_cover<BM>(zigzag(2 * group, 2, q_len, kv_len, causal), 1, split, sections);
}

/* cb_sm90_order: every (rank, pair) once; section after section, rank-major within one; the
 * sections' sizes within one of each other */
static void check_order(int tiles, int pairs, int sections) {
  int *seen = (int *)calloc((size_t)tiles * pairs, sizeof(int)), bad = 0, lo = pairs, hi = 0;
  for (int s = 0, next = 0; s < sections; s++) {
    int first, n;
    cb_sm90_section_pairs(pairs, sections, s, &first, &n);
    if (first != next) bad++;
    next = first + n, lo = n < lo ? n : lo, hi = n > hi ? n : hi;
  }
  for (int blk = 0, prev_rank = 0, prev_sec = 0; blk < tiles * pairs; blk++) {
    int rank = -1, pair = -1;
    cb_sm90_order(blk, tiles, pairs, sections, &rank, &pair);
    if (rank < 0 || rank >= tiles || pair < 0 || pair >= pairs) {
      bad++;
      continue;
    }
    seen[(size_t)rank * pairs + pair]++;
    const int sec = section_of(pairs, sections, pair);
    if (sec < prev_sec || (sec == prev_sec && rank < prev_rank)) bad++;
    prev_rank = sec == prev_sec ? rank : 0, prev_sec = sec;
  }
  int wrong = 0;
  for (int i = 0; i < tiles * pairs; i++) wrong += seen[i] != 1;
  CHECK(bad == 0 && wrong == 0 && hi - lo <= 1,
        "order of %d tiles x %d pairs in %d sections: %d out of order, %d not once, sizes %d-%d", tiles, pairs,
        sections, bad, wrong, lo, hi);
  free(seen);
}

int main(void) {
  for (int tiles = 1; tiles <= 9; tiles += 4)
    for (int pairs = 1; pairs <= 13; pairs += 3)
      for (int sections = 1; sections <= pairs; sections++) check_order(tiles, pairs, sections);
  CHECK_EQ_INT(cb_sm90_sections(1 << 20, 25 << 20, 64, 1), 3); /* 25 MB hold 25 pairs of 1 MB: 22 + 21 + 21 */
  CHECK_EQ_INT(cb_sm90_sections(1 << 20, 25 << 20, 8, 1), 1);  /* every pair fits */
  CHECK_EQ_INT(cb_sm90_sections(64 << 20, 25 << 20, 8, 0), 8); /* none fits: one pair each */
  CHECK_EQ_INT(cb_sm90_sections(64 << 20, 25 << 20, 8, 3), 3); /* at least min_pairs: 3 + 3 + 2 */
  CHECK_EQ_INT(cb_sm90_sections(2 << 20, 30 << 20, 32, 1), 3); /* 15 fit: 11 + 11 + 10, not 15 + 15 + 2 */
  static const int lens[][2] = {{4096, 4096}, {1000, 1000}, {300, 700}, {700, 300}, {64, 129}};
  for (int causal = 0; causal < 2; causal++)
    for (const auto &l : lens)
      for (int group = 1; group <= 8; group *= 2)
        for (int split = 1; split <= group; split *= 2)
          for (int sections = 1; sections <= 2 * split; sections++) { /* both head dims' query tiles */
            check_covers<cb_bwd_block_m(64)>(l[0], l[1], causal, group, split, sections);
            check_covers<cb_bwd_block_m(128)>(l[0], l[1], causal, group, split, sections);
          }

  long free_at[CB_BWD_MODEL_SMS];
  /* 16 / 2 heads, 4K, not causal, 132 SMs. Finish times (64-row query tiles): unsplit 64 CTAs of
   * 8 x 64 + 2 = 514; split 2: 128 of 258 = 258; 4: 256 of 130 on 132 SMs = 260; 8: 512 of 66 = 264 */
  const cb_attn_params g16 = shape(16, 2, 4096, 4096, 0, 0, 0);
  static const int splits[] = {1, 2, 4, 8}, finish[] = {514, 258, 260, 264};
  for (int i = 0; i < 4; i++) {
    const cb_bwd_sm90_grid g = {1, splits[i], 1, 64};
    CHECK_EQ_INT(cb_bwd_sm90_makespan(g16, g, 132, free_at), finish[i]);
  }
  const size_t l2 = 50 << 20; /* an H200's */
  CHECK_EQ_INT(cb_bwd_sm90_grid_of(g16, 1, 128, 132, l2, free_at).split, 2);
  /* causal 4 / 2 heads (two per CTA allowed unsplit: the model decides), 4K: 64 CTAs unsplit, the
   * longest (key tile 0) 2 x 64 + 2 = 130 tiles; split 2: 128 CTAs, at most one per SM, the
   * longest 64 + 2 = 66 */
  const cb_attn_params c4 = shape(4, 2, 4096, 4096, 1, 0, 0);
  const cb_bwd_sm90_grid c4_one = {1, 1, 1, 64}, c4_two = {1, 2, 1, 64};
  CHECK_EQ_INT(cb_bwd_sm90_makespan(c4, c4_one, 132, free_at), 130);
  CHECK_EQ_INT(cb_bwd_sm90_makespan(c4, c4_two, 132, free_at), 66);
  CHECK_EQ_INT(cb_bwd_sm90_grid_of(c4, 1, 128, 132, l2, free_at).split, 2);
  /* not split: no group; a grid of many waves; one SM (every split only adds CTA costs) */
  CHECK_EQ_INT(cb_bwd_sm90_grid_of(shape(32, 32, 4096, 4096, 1, 0, 0), 1, 128, 132, l2, free_at).split, 1);
  CHECK_EQ_INT(cb_bwd_sm90_grid_of(shape(32, 8, 32768, 32768, 0, 0, 0), 1, 128, 132, l2, free_at).split, 1);
  /* 40 SMs: unsplit 64 CTAs in 2 waves of 514 = 1028; split 2, 128 CTAs in 4 waves of 258 = 1032:
   * a split that adds waves only adds CTA costs */
  CHECK_EQ_INT(cb_bwd_sm90_grid_of(g16, 1, 128, 40, l2, free_at).split, 1);
  /* the sections: 32 kv heads at 32K, D 128: Q and dO 16 MB per unit, one unit each in a quarter
   * of L2; 16 / 2 heads at 4K: 3 by L2, but the model finishes later with them than without */
  const cb_bwd_sm90_grid short_causal =
      cb_bwd_sm90_grid_of(shape(16, 2, 4096, 4096, 1, 0, 0), 1, 128, 132, l2, free_at);
  CHECK_EQ_INT(cb_sm90_sections(cb_bwd_unit_bytes(shape(16, 2, 4096, 4096, 1, 0, 0), short_causal.split, 128), l2 / 4,
                                2 * short_causal.split, 1),
               3);
  CHECK_EQ_INT(short_causal.sections, 1);
  CHECK_EQ_INT(cb_bwd_sm90_grid_of(shape(32, 32, 32768, 32768, 1, 0, 0), 1, 128, 132, l2, free_at).sections, 32);
  /* causal: at most two query heads per CTA, however large */
  CHECK_EQ_INT(cb_bwd_sm90_grid_of(shape(32, 8, 32768, 32768, 1, 0, 0), 4, 128, 132, l2, free_at).split, 2);
  CHECK_EQ_INT(cb_bwd_sm90_grid_of(shape(24, 8, 4096, 4096, 1, 0, 0), 1, 128, 132, l2, free_at).split, 3);
  /* D 64's 128-row tiles: the model's costs stay in 64-row tiles (16 / 2 heads, 4K, split 2: 128
   * CTAs of 4 heads x 32 tiles x 2, + 2); at 4160 rows the heights differ: 33 key tiles x 2 x 2 =
   * 132 CTAs, one wave, of 4 x 33 x 2 + 2 = 266 (128-row tiles) against 4 x 65 + 2 = 262 */
  const cb_bwd_sm90_grid g128 = {1, 2, 1, 128}, g64 = {1, 2, 1, 64};
  CHECK_EQ_INT(cb_bwd_sm90_makespan(g16, g128, 132, free_at), 258);
  const cb_attn_params g16_4160 = shape(16, 2, 4160, 4160, 0, 0, 0);
  CHECK_EQ_INT(cb_bwd_sm90_makespan(g16_4160, g128, 132, free_at), 266);
  CHECK_EQ_INT(cb_bwd_sm90_makespan(g16_4160, g64, 132, free_at), 262);
  CHECK_EQ_INT(cb_bwd_sm90_grid_of(g16, 1, 64, 132, l2, free_at).block_m, 128);
  CHECK_EQ_INT(cb_bwd_sm90_grid_of(g16, 1, 128, 132, l2, free_at).block_m, 64);
  /* causal, 128-row tiles: key tile 0 of 4 / 2 heads at 4K sees 32 tiles x 2 = 64 of work, + 2 */
  const cb_bwd_sm90_grid c4_128 = {1, 2, 1, 128};
  CHECK_EQ_INT(cb_bwd_sm90_makespan(c4, c4_128, 132, free_at), 66);
  CHECK_EQ_INT(cb_fwd_wgs(64, 0, 4096, 32, 132), 2);  /* 6 waves x 192 rows against 8 x 128 / 0.958 */
  CHECK_EQ_INT(cb_fwd_wgs(64, 0, 8192, 32, 132), 3);  /* 11 x 192 = 2112 against 16 x 133.6 = 2138 */
  CHECK_EQ_INT(cb_fwd_wgs(64, 1, 4096, 32, 132), 3);  /* causal: longest first, the default */
  CHECK_EQ_INT(cb_fwd_wgs(128, 0, 4096, 32, 132), 2); /* D 128: two warpgroups always */
  CHECK_EQ_INT(cb_fwd_grid(1024, 132), 132);          /* one CTA per SM, taking tiles in turn */
  CHECK_EQ_INT(cb_fwd_grid(40, 132), 40);             /* fewer tiles than SMs: one each */
  CHECK_EQ_INT(cb_fwd_grid(1024, 0), 1024);           /* no SM count known: one CTA per tile */
  return cb_test_finish("test_attn_bwd_schedule");
}
