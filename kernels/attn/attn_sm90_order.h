/* Launch order of the causal Hopper attention kernels' work (forward, attn_fwd_sm90_kernel.cuh,
 * whose CTAs take query tiles in this order from its scheduler; backward,
 * attn_bwd_sm90_schedule.h, one CTA each): longest first, in sections that fit in L2.
 *
 * A causal CTA's work depends on its tile: the forward's last query tiles see the most keys, the
 * backward's first key tiles the most queries. Launched longest first, the short CTAs fill in
 * behind the long ones and the GPU's last wave is short (on an H200 the forward at D 64, S 4K went
 * from 0.88 to 0.99 of cuDNN's speed, the backward of 32 heads on 8 kv heads at 4K from 0.86 to
 * 1.2). Over every (head, batch) pair at once, though, the CTAs running together read the
 * operands every tile shares (the forward's K and V, the backward's Q and dO) of all heads,
 * more than L2 holds at long sequences; so the pairs are cut into sections whose shared operands
 * fit a part of L2, and the order is longest first within a section, section after section
 * (FlashAttention-3's LPT scheduler does the same). A section of one pair is the order a tile
 * loop per head would have. The sections are of equal sizes (+-1): the last section's longest CTAs
 * start only once the others are under way, and a short last section (15 + 15 + 2 pairs) left
 * them alone at the end (the forward at D 64, S 4K: 0.82 of cuDNN's speed against 0.99 without
 * sections). The forward's sections fit half of L2 and hold at least two waves of CTAs; the
 * backward's, whose CTAs reach a Q tile at different times (each from its own diagonal), fit a
 * quarter with no floor (at S 32K, D 128, sections of two heads ran at 0.965 of cuDNN's speed,
 * of one head at 1.017). Figures: docs/decisions/attention-hopper.md. */
#ifndef CB_ATTN_SM90_ORDER_H
#define CB_ATTN_SM90_ORDER_H

#include <stddef.h>

#include "hostdev.h"

/* The pairs of section s of `sections`: its first and its count (the sections' sizes differ by
 * at most one, the larger first). */
CB_HD void cb_sm90_section_pairs(int pairs, int sections, int s, int *first, int *n) {
  const int base = pairs / sections, extra = pairs % sections;
  *first = s * base + (s < extra ? s : extra), *n = base + (s < extra);
}

/* CTA `block`'s tile rank (0: the longest) and (head, batch) pair, of `tiles` tiles x `pairs`
 * pairs in `sections` sections (1 <= sections <= pairs; tiles x pairs fits int, and so does every
 * product below: the larger sections' blocks are at most all of them). */
CB_HD void cb_sm90_order(int block, int tiles, int pairs, int sections, int *rank, int *pair) {
  const int base = pairs / sections, extra = pairs % sections;
  const int big = extra ? (base + 1) * tiles : 0, head = extra * big; /* the larger sections' blocks */
  int s, in;
  if (block < head) s = block / big, in = block % big;
  else s = extra + (block - head) / (base * tiles), in = (block - head) % (base * tiles);
  int first, n;
  cb_sm90_section_pairs(pairs, sections, s, &first, &n);
  *rank = in / n, *pair = first + in % n;
}

/* Sections: as few as keep each one's pairs, sharing `shared_bytes` each, in `budget_bytes` of
 * L2, with at least `min_pairs` pairs per section; at least 1, at most `pairs`. */
static inline int cb_sm90_sections(size_t shared_bytes, size_t budget_bytes, int pairs, int min_pairs) {
  size_t fit = shared_bytes ? budget_bytes / shared_bytes : (size_t)pairs;
  if (fit < (size_t)min_pairs) fit = (size_t)min_pairs;
  if (fit < 1) fit = 1;
  if (fit >= (size_t)pairs) return 1;
  return (int)(((size_t)pairs + fit - 1) / fit);
}

#endif
