/* How a ringattn row lays the total sequence out over its ranks (--layout). Host-only and
 * CUDA-free, so the command line, the CPU tests and the algorithms share one definition.
 *
 * The layout cuts the sequence for the ring: over R ring members (R = P / U, U the Ulysses
 * degree of the row: 1 for a pure ring, P for pure Ulysses, attn_variant.h)
 *   contiguous  R chunks; member g holds chunk g                           (one run)
 *   zigzag      2R chunks of c = S/(2R); member g holds chunks g, 2R-1-g   (two runs: every
 *               member has the same share of the causal work)
 *   stripe      member g holds positions g, g+R, g+2R, ...               (one run of stride R:
 *               ring-flash-attn's layout; the causal work is nearly even, and every block
 *               pair is a dense causal block, cb_attn_block_pair below)
 * A ring member is a group of U consecutive ranks; its rows (in the order above) are split
 * contiguously among them: rank r = g*U + u holds rows [u*L, (u+1)*L) of its group's, L = S/P
 * (TransformerEngine's and USP's order: the all-to-all inside a group then gathers exactly the
 * group's rows, in order). With U = 1 this is the ring's sharding; with U = P (R = 1) every
 * layout is the natural order, which is why a pure Ulysses row says "natural".
 *
 * With stripe, rank r = g*U + u holds u*L*R + g + i*R, i = 0..L-1 (one run, stride R).
 *
 * A rank's rows are at most two runs of global positions (attn_config.h cb_attn_runs_t). The
 * causal default stays what it was: zigzag for causal, contiguous otherwise. */
#ifndef CB_ATTN_LAYOUT_H
#define CB_ATTN_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "attn_config.h"

enum cb_attn_layout { CB_ATTN_CONTIGUOUS = 0, CB_ATTN_ZIGZAG = 1, CB_ATTN_STRIPE = 2, CB_ATTN_NLAYOUTS = 3 };
#define CB_ATTN_LAYOUT_BIT(l) (1 << (l))
#define CB_ATTN_LAYOUT_ALL ((1 << CB_ATTN_NLAYOUTS) - 1)

/* "contiguous", "zigzag", "stripe"; "?" for anything else. */
const char *cb_attn_layout_name(int layout);

/* --layout: a comma list of layout names, or "all" -> CB_ATTN_LAYOUT_BIT bits. Returns 0, or -1
 * on an empty or unknown name. */
int cb_attn_parse_layouts(const char *s, int *bits);

/* The layout a group runs without --layout: zigzag when causal, contiguous otherwise. */
int cb_attn_default_layout(int causal);

/* The positions rank r (0 <= r < P) holds, U dividing P (layout above). */
cb_attn_runs_t cb_attn_layout_runs(uint64_t S, int P, int r, int layout, int U);

/* Rejects a sequence the layout cannot split over P ranks (for every U dividing P): contiguous
 * and stripe need S a multiple of P, zigzag of 2P. Returns 0, or -1 with why. */
int cb_attn_layout_seq_check(uint64_t S, int P, int layout, char *why, size_t n);

/* A (query block, key block) pair as the block kernels take it. The fast kernels and cuDNN know
 * consecutive positions only; a stripe pair (queries at qs + i*R, keys at ks + j*R, one run
 * each) is a dense causal block: ks + j*R <= qs + i*R  <=>  j <= i + floor((qs - ks) / R), so
 * the pair becomes queries at A + i and keys at B + j, stride 1, with A - B = floor((qs-ks)/R)
 * (the smaller of A, B is 0). Pairs of stride 1 are left as they are. Returns 0, or -1 (nothing
 * changed) when the strides differ or a strided block has two runs. */
int cb_attn_block_pair(cb_attn_runs_t *q, cb_attn_runs_t *kv);

#endif
