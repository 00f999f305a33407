/* Online-softmax, log-sum-exp merge and position math of block attention (kernels/attn/attn.h), one copy for
 * the tensor-core kernel (attn_fwd_mma_kernel.cuh), the reference kernel (attn_reference.cu) and the CPU
 * test (tests/cpu/test_attn_merge.c). Plain C11 can include it (static inline); nvcc compiles
 * the same functions for host and device.
 *
 * Conventions. Inside a block the kernels keep, per query row, the running maximum m of the raw
 * scores q.k (unscaled) and the running sum l of exp2((s - m) * scale_log2) over the keys seen,
 * scale_log2 = scale * log2(e): one FFMA and one ex2 per score. -INFINITY stands for "no key
 * yet" (m) and "no key at all" (lse); every function below keeps -inf out of subtractions so
 * no NaN is ever produced:
 *   - cb_attn_rescale(m_old, m_new): the factor exp2((m_old - m_new) * scale_log2) that turns
 *     sums and outputs taken against m_old into sums against m_new (m_new >= m_old); 0 when
 *     m_old is -inf (nothing to rescale), 1 when both are -inf.
 *   - cb_attn_max_ref(m): the reference value exponents are taken against: m, or 0 for a row
 *     that has seen no visible key yet (then every score is -inf and exp2(-inf) = 0).
 *   - cb_attn_block_lse(m, l, scale_log2): the natural log-sum-exp of the scaled scores of a
 *     block, ln(sum exp(scale * s)) = (m * scale_log2 + log2 l) * ln 2; -inf when l == 0.
 *   - cb_attn_merge(lse_a, lse_b, &w_a, &w_b): lse' = ln(e^lse_a + e^lse_b) computed against the
 *     larger of the two, and the weights w_a = e^(lse_a - lse'), w_b = e^(lse_b - lse') with
 *     which the two normalized outputs combine: o' = o_a * w_a + o_b * w_b (w_a + w_b = 1).
 *     Both -inf: lse' = -inf, w_a = 1, w_b = 0 (the old output is kept as it is).
 * Positions (the one- or two-run rows of attn.h): cb_attn_pos_at (the position of a row),
 * cb_attn_keys_upto (how many keys of a block a causal query at position p sees: always a
 * prefix, since positions increase with the row), cb_attn_pos_slice (the positions of a part of
 * a block). */
#ifndef CB_ATTN_MERGE_H
#define CB_ATTN_MERGE_H

#include <math.h>
#include <stdint.h>

#include "hostdev.h"

#define CB_ATTN_LOG2E 1.4426950408889634f
#define CB_ATTN_LN2 0.69314718055994531f

CB_HD float cb_attn_max_ref(float m) { return m == -INFINITY ? 0.0f : m; }

CB_HD float cb_attn_rescale(float m_old, float m_new, float scale_log2) {
  if (m_old == -INFINITY) return m_new == -INFINITY ? 1.0f : 0.0f;
  return exp2f((m_old - m_new) * scale_log2);
}

CB_HD float cb_attn_block_lse(float m, float l, float scale_log2) {
  if (!(l > 0.0f)) return -INFINITY;
  return (m * scale_log2 + log2f(l)) * CB_ATTN_LN2;
}

CB_HD float cb_attn_merge(float lse_a, float lse_b, float *w_a, float *w_b) {
  const float mx = lse_a > lse_b ? lse_a : lse_b;
  if (mx == -INFINITY) {
    *w_a = 1.0f;
    *w_b = 0.0f;
    return -INFINITY;
  }
  /* one of the two exponents is exactly 0; the other is <= 0 (or -inf -> 0) */
  const float ea = expf(lse_a - mx), eb = expf(lse_b - mx);
  const float sum = ea + eb;
  *w_a = ea / sum;
  *w_b = eb / sum;
  return mx + logf(sum);
}

/* Global sequence position of row i of a block whose rows are one or two runs (attn.h):
 * rows i < len0 are at start0 + i*stride, the others at start1 + (i - len0)*stride (stride 0
 * means 1). */
CB_HD int64_t cb_attn_pos_at(int64_t start0, int64_t len0, int64_t start1, int64_t stride, int64_t i) {
  const int64_t st = stride > 1 ? stride : 1;
  return i < len0 ? start0 + i * st : start1 + (i - len0) * st;
}

/* How many of the n rows of a block (positions as above, increasing with the row) are at a
 * position <= p: the keys a causal query at position p sees form this prefix of the block. */
CB_HD int64_t cb_attn_keys_upto(int64_t start0, int64_t len0, int64_t start1, int64_t n, int64_t p) {
  const int64_t run0 = len0 < n ? len0 : n;
  if (p < start0) return 0;
  int64_t c = p - start0 + 1;
  if (c < run0) return c;
  if (run0 == n || p < start1) return run0;
  c = p - start1 + 1;
  return run0 + (c < n - run0 ? c : n - run0);
}

/* Positions of rows [a, b) of a block, as a block of their own (a K/V block split into parts):
 * the same one- or two-run form, written to *s0, *l0, *s1. */
CB_HD void cb_attn_pos_slice(int64_t start0, int64_t len0, int64_t start1, int64_t a, int64_t b, int64_t *s0,
                             int64_t *l0, int64_t *s1) {
  if (a < len0) {
    *s0 = start0 + a;
    *l0 = (b <= len0 ? b : len0) - a;
    *s1 = start1;
  } else {
    *s0 = start1 + (a - len0);
    *l0 = b - a;
    *s1 = 0;
  }
}

#endif
