/* CPU test of the block-attention math shared by the attention kernels (kernels/attn/attn_merge.h)
 * and of the tensor-core fragment maps the fast kernel derives its indices from
 * (kernels/mma_frag.h).
 *
 * Merge: random attention problems (shapes, scales, causal masks with one- and two-run zigzag
 * positions, rows that see no key at all and rows that see none in some block) are split into
 * K/V blocks; each block is computed in fp32 the way the fast kernel does (key tiles, online
 * softmax with exp2 of log2(e)-prescaled scores) and merged into a running output / log-sum-exp
 * with the header's functions; the result is compared with a naive fp64 attention.
 *
 * Fragments: the PTX m16n8k16 layouts are written here from the ISA independently of the
 * header, ldmatrix is emulated per lane from the kernel's addressing, and every register the
 * kernel feeds to mma must hold the tile element the layout says. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "attn_merge.h"
#include "cb_testing.h"
#include "mma_frag.h"

/* ---- deterministic random numbers ---- */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 11);
}
static int rnd_int(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); } /* [lo, hi] */
static float rnd_f(void) { return (float)(rnd() >> 8) / 8388608.0f - 1.0f; }               /* [-1, 1) */

typedef struct {
  int64_t start0, len0, start1;
} pos_t;

static int64_t pos(const pos_t *p, int64_t i) { return cb_attn_pos_at(p->start0, p->len0, p->start1, 0, i); }

/* ---- the merge test ---- */

static int rows_never_seeing, rows_empty_block; /* coverage: both must occur */

enum { MAXQ = 48, MAXK = 64, MAXD = 16 };

typedef struct {
  int q_len, kv_len, D, causal;
  float scale;
  pos_t qp, kp;
  float q[MAXQ][MAXD], k[MAXK][MAXD], v[MAXK][MAXD];
} problem_t;

/* fp64 truth: o and lse of every row; lse -inf and o 0 for a row that sees no key */
static void naive(const problem_t *P, double o[MAXQ][MAXD], double lse[MAXQ]) {
  for (int i = 0; i < P->q_len; i++) {
    double s[MAXK], mx = -INFINITY;
    for (int j = 0; j < P->kv_len; j++) {
      s[j] = -INFINITY;
      if (P->causal && pos(&P->kp, j) > pos(&P->qp, i)) continue;
      double dot = 0;
      for (int d = 0; d < P->D; d++) dot += (double)P->q[i][d] * P->k[j][d];
      s[j] = dot * P->scale;
      if (s[j] > mx) mx = s[j];
    }
    double sum = 0;
    for (int d = 0; d < P->D; d++) o[i][d] = 0;
    if (mx == -INFINITY) {
      lse[i] = -INFINITY;
      continue;
    }
    for (int j = 0; j < P->kv_len; j++) {
      if (s[j] == -INFINITY) continue;
      const double p = exp(s[j] - mx);
      sum += p;
      for (int d = 0; d < P->D; d++) o[i][d] += p * P->v[j][d];
    }
    for (int d = 0; d < P->D; d++) o[i][d] /= sum;
    lse[i] = mx + log(sum);
  }
}

static pos_t slice_pos(const pos_t *p, int64_t a, int64_t b) {
  pos_t r;
  cb_attn_pos_slice(p->start0, p->len0, p->start1, a, b, &r.start0, &r.len0, &r.start1);
  return r;
}

/* One K/V block [k0, k1) over all query rows, fp32, as the fast kernel computes it: keys in
 * tiles of `tile`, raw-score max m and sum l per row, then the merge into (o, lse). */
static void block_fp32(const problem_t *P, int k0, int k1, int tile, int first, float o[MAXQ][MAXD], float lse[MAXQ]) {
  const pos_t kp = slice_pos(&P->kp, k0, k1);
  const int n = k1 - k0;
  const float sl2 = P->scale * CB_ATTN_LOG2E;
  for (int i = 0; i < P->q_len; i++) {
    const int64_t qp = pos(&P->qp, i);
    /* the visible keys of a causal row are a prefix of the block: check the kernel's count */
    int nvis = n;
    if (P->causal) {
      int brute = 0;
      for (int j = 0; j < n; j++) brute += pos(&kp, j) <= qp;
      nvis = (int)cb_attn_keys_upto(kp.start0, kp.len0, kp.start1, n, qp);
      CHECK(nvis == brute, "keys_upto %d, brute force %d", nvis, brute);
      for (int j = 0; j < nvis; j++) CHECK(pos(&kp, j) <= qp, "key %d of the prefix is masked", j);
    }
    float m = -INFINITY, l = 0, acc[MAXD] = {0};
    for (int t0 = 0; t0 < n; t0 += tile) {
      float s[MAXK], mx = m;
      const int t1 = t0 + tile < n ? t0 + tile : n;
      for (int j = t0; j < t1; j++) {
        s[j] = -INFINITY;
        if (j >= nvis) continue;
        float dot = 0;
        for (int d = 0; d < P->D; d++) dot += P->q[i][d] * P->k[k0 + j][d];
        s[j] = dot;
        if (dot > mx) mx = dot;
      }
      const float alpha = cb_attn_rescale(m, mx, sl2);
      CHECK(isfinite(alpha), "rescale from %g to %g gave %g", m, mx, alpha);
      m = mx;
      const float mref = cb_attn_max_ref(mx) * sl2;
      l *= alpha;
      for (int d = 0; d < P->D; d++) acc[d] *= alpha;
      for (int j = t0; j < t1; j++) {
        const float p = exp2f(fmaf(s[j], sl2, -mref));
        CHECK(!isnan(p), "probability NaN (score %g, max %g)", s[j], mx);
        l += p;
        for (int d = 0; d < P->D; d++) acc[d] += p * P->v[k0 + j][d];
      }
    }
    const float lse_blk = cb_attn_block_lse(m, l, sl2);
    CHECK((l > 0) == (nvis > 0) && (nvis > 0) == (lse_blk != -INFINITY), "row %d: %d visible keys, l %g, lse %g", i,
          nvis, l, lse_blk);
    const float lse_old = first ? -INFINITY : lse[i];
    float w_old, w_blk;
    const float lse_new = cb_attn_merge(lse_old, lse_blk, &w_old, &w_blk);
    if (!first && lse_blk == -INFINITY) {
      /* a row that sees no key here: the merge must be the identity (the kernel skips it) */
      CHECK(lse_new == lse_old && w_old == 1.0f && w_blk == 0.0f, "empty block changed row %d", i);
      rows_empty_block++;
      continue;
    }
    const float inv = l > 0 ? 1.0f / l : 0.0f;
    for (int d = 0; d < P->D; d++) o[i][d] = (first ? 0.0f : o[i][d] * w_old) + acc[d] * inv * w_blk;
    lse[i] = lse_new;
  }
}

static void random_pos(pos_t *p, int rows, int two_runs, long long base) {
  p->start0 = base + rnd_int(0, 8);
  p->len0 = two_runs && rows > 1 ? rnd_int(1, rows - 1) : rows + rnd_int(0, 3);
  p->start1 = p->start0 + p->len0 + rnd_int(0, 40);
}

static void merge_case(int c) {
  static problem_t P;
  P.q_len = rnd_int(1, MAXQ);
  P.kv_len = rnd_int(1, MAXK);
  P.D = rnd_int(1, MAXD);
  P.causal = c % 3 != 0;
  P.scale = (0.2f + (float)rnd_int(0, 100) / 25.0f) / sqrtf((float)P.D);
  for (int i = 0; i < P.q_len; i++)
    for (int d = 0; d < P.D; d++) P.q[i][d] = rnd_f();
  for (int j = 0; j < P.kv_len; j++)
    for (int d = 0; d < P.D; d++) {
      P.k[j][d] = rnd_f();
      P.v[j][d] = rnd_f();
    }
  /* zigzag-like: two runs each, keys possibly starting after some queries (rows with no key) */
  random_pos(&P.qp, P.q_len, c % 2, 0);
  random_pos(&P.kp, P.kv_len, c % 4 < 2, rnd_int(0, 20));

  static double o_ref[MAXQ][MAXD], lse_ref[MAXQ];
  static float o[MAXQ][MAXD], lse[MAXQ];
  naive(&P, o_ref, lse_ref);
  for (int i = 0; i < P.q_len; i++) {
    lse[i] = NAN; /* poison: first must write every row without reading */
    for (int d = 0; d < P.D; d++) o[i][d] = NAN;
  }
  /* split into 1-4 blocks at random cuts */
  const int nblk = rnd_int(1, 4), tile = rnd_int(1, 9);
  int cuts[6] = {0};
  for (int b = 1; b < nblk; b++) cuts[b] = rnd_int(0, P.kv_len);
  cuts[nblk] = P.kv_len;
  for (int b = 1; b < nblk; b++) /* sort */
    for (int e = b + 1; e < nblk; e++)
      if (cuts[e] < cuts[b]) {
        const int x = cuts[e];
        cuts[e] = cuts[b];
        cuts[b] = x;
      }
  for (int b = 0; b < nblk; b++) block_fp32(&P, cuts[b], cuts[b + 1], tile, b == 0, o, lse);

  for (int i = 0; i < P.q_len; i++) {
    if (lse_ref[i] == -INFINITY) {
      rows_never_seeing++;
      CHECK(lse[i] == -INFINITY, "case %d row %d sees no key: lse %g", c, i, lse[i]);
      for (int d = 0; d < P.D; d++) CHECK(o[i][d] == 0.0f, "case %d row %d sees no key: o %g", c, i, o[i][d]);
      continue;
    }
    CHECK(fabs(lse[i] - lse_ref[i]) <= 2e-6 * (1 + fabs(lse_ref[i])), "case %d row %d: lse %.9g, fp64 %.9g", c, i,
          lse[i], lse_ref[i]);
    for (int d = 0; d < P.D; d++)
      CHECK(fabs(o[i][d] - o_ref[i][d]) <= 2e-6, "case %d row %d dim %d: o %.9g, fp64 %.9g (%d blocks)", c, i, d,
            o[i][d], o_ref[i][d], nblk);
  }
}

static void merge_rules(void) {
  float wa, wb;
  CHECK(cb_attn_merge(-INFINITY, -INFINITY, &wa, &wb) == -INFINITY && wa == 1 && wb == 0, "both empty");
  CHECK(cb_attn_merge(1.5f, -INFINITY, &wa, &wb) == 1.5f && wa == 1 && wb == 0, "empty block");
  CHECK(cb_attn_merge(-INFINITY, -2.25f, &wa, &wb) == -2.25f && wa == 0 && wb == 1, "empty running state");
  const float l = cb_attn_merge(3.0f, 3.0f, &wa, &wb);
  CHECK(fabsf(l - (3.0f + logf(2.0f))) < 1e-6f && wa == 0.5f && wb == 0.5f, "equal halves: %g %g %g", l, wa, wb);
  /* far apart: no overflow, the small side vanishes */
  CHECK(cb_attn_merge(200.0f, -200.0f, &wa, &wb) == 200.0f && wa == 1 && wb == 0, "far apart: %g %g", wa, wb);
  CHECK(cb_attn_rescale(-INFINITY, -INFINITY, 1.0f) == 1.0f, "rescale empty to empty");
  CHECK(cb_attn_rescale(-INFINITY, 3.0f, 1.0f) == 0.0f, "rescale empty to a max");
  CHECK(cb_attn_rescale(2.0f, 3.0f, 1.0f) == 0.5f, "rescale by one binade");
  CHECK(cb_attn_block_lse(-INFINITY, 0.0f, 1.0f) == -INFINITY, "block lse of nothing");
  CHECK(fabsf(cb_attn_block_lse(1.0f, 1.0f, CB_ATTN_LOG2E) - 1.0f) < 1e-6f, "block lse of one key");
  CHECK(cb_attn_max_ref(-INFINITY) == 0.0f && cb_attn_max_ref(-5.0f) == -5.0f, "max reference");
  /* keys_upto on a two-run block: rows 0..3 at 10..13, rows 4..6 at 30..32 */
  const long long want[][2] = {{9, 0}, {10, 1}, {13, 4}, {20, 4}, {29, 4}, {30, 5}, {32, 7}, {99, 7}};
  for (int i = 0; i < 8; i++) CHECK_EQ_INT(cb_attn_keys_upto(10, 4, 30, 7, want[i][0]), want[i][1]);
  CHECK_EQ_INT(cb_attn_keys_upto(10, 100, 0, 7, 12), 3); /* one run: len0 beyond the rows */
}

/* ---- fragment maps, from the PTX ISA (written here independently of mma_frag.h) ---- */

/* A 16x16: a0 (g, 2t..), a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..) */
static void isa_a(int lane, int reg, int h, int *r, int *c) {
  const int g = lane >> 2, t = lane & 3;
  const int rows[4] = {g, g + 8, g, g + 8}, cols[4] = {2 * t, 2 * t, 2 * t + 8, 2 * t + 8};
  *r = rows[reg];
  *c = cols[reg] + h;
}
/* B 16x8: b0 (k = 2t.., n = g), b1 (k = 2t+8.., n = g) */
static void isa_b(int lane, int reg, int h, int *k, int *n) {
  *k = 2 * (lane & 3) + 8 * reg + h;
  *n = lane >> 2;
}
/* C 16x8: c0 c1 (g, 2t, 2t+1), c2 c3 (g+8, 2t, 2t+1) */
static void isa_c(int lane, int reg, int *r, int *c) {
  const int g = lane >> 2, t = lane & 3;
  const int rows[4] = {g, g, g + 8, g + 8};
  *r = rows[reg];
  *c = 2 * t + (reg & 1);
}

/* ldmatrix.x4 emulation: register i of `lane` receives element h of the pair at (row g,
 * cols 2t, 2t+1) of matrix i (no .trans), whose row g address came from lane 8 i + g; with
 * .trans, element (row 2t + h, col g) of matrix i, whose row 2t + h address came from lane
 * 8 i + 2t + h. Returns the providing lane and the column within the 8-column row. */
static void ldm(int lane, int i, int h, int trans, int *src_lane, int *col) {
  const int g = lane >> 2, t = lane & 3;
  if (!trans) {
    *src_lane = 8 * i + g;
    *col = 2 * t + h;
  } else {
    *src_lane = 8 * i + 2 * t + h;
    *col = g;
  }
}

static void fragments(void) {
  for (int lane = 0; lane < 32; lane++) {
    for (int reg = 0; reg < 4; reg++)
      for (int h = 0; h < 2; h++) {
        int r0, c0, r1, c1;
        isa_a(lane, reg, h, &r0, &c0);
        cb_mma_a_pos(lane, reg, h, &r1, &c1);
        CHECK(r0 == r1 && c0 == c1, "A lane %d reg %d", lane, reg);
        if (reg < 2) {
          isa_b(lane, reg, h, &r0, &c0);
          cb_mma_b_pos(lane, reg, h, &r1, &c1);
          CHECK(r0 == r1 && c0 == c1, "B lane %d reg %d", lane, reg);
        }
      }
    for (int reg = 0; reg < 4; reg++) {
      int r0, c0, r1, c1;
      isa_c(lane, reg, &r0, &c0);
      cb_mma_c_pos(lane, reg, &r1, &c1);
      CHECK(r0 == r1 && c0 == c1, "C lane %d reg %d", lane, reg);
    }
  }

  /* P reuse: A element of step kk must be the score of the same (row, key) */
  for (int kk = 0; kk < 4; kk++)
    for (int lane = 0; lane < 32; lane++)
      for (int reg = 0; reg < 4; reg++)
        for (int h = 0; h < 2; h++) {
          int ra, ca, nt, c, rc, cc;
          isa_a(lane, reg, h, &ra, &ca);
          cb_attn_p_source(kk, reg, h, &nt, &c);
          isa_c(lane, c, &rc, &cc);
          CHECK(nt >= 0 && nt < 8 && c >= 0 && c < 4 && (h == 0 || c % 2 == 1), "P source out of range");
          CHECK(ra == rc && 16 * kk + ca == 8 * nt + cc, "P kk %d lane %d reg %d h %d: A (%d,%d) <- S (%d,%d)", kk,
                lane, reg, h, ra, 16 * kk + ca, rc, 8 * nt + cc);
        }

  /* Q (A operand, row-major [row][dim]): register i must hold A element (row, kk*16 + col) */
  for (int kk = 0; kk < 8; kk++)
    for (int lane = 0; lane < 32; lane++)
      for (int i = 0; i < 4; i++)
        for (int h = 0; h < 2; h++) {
          int src, col, r, c;
          ldm(lane, i, h, 0, &src, &col);
          const int row = cb_ldm_row(src), dim = (kk * 2 + cb_ldm_chunk(src)) * 8 + col;
          isa_a(lane, i, h, &r, &c);
          CHECK(row == r && dim == kk * 16 + c, "Q lane %d reg %d", lane, i);
        }

  /* K ([key][dim], B(k = dim, n = key)): registers 0, 1 -> b0, b1 of n tile nt; 2, 3 -> nt + 1 */
  for (int kk = 0; kk < 8; kk++)
    for (int nt = 0; nt < 8; nt += 2)
      for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < 4; i++)
          for (int h = 0; h < 2; h++) {
            int src, col, k, n;
            ldm(lane, i, h, 0, &src, &col);
            const int key = nt * 8 + cb_ldm_b_row(src), dim = (kk * 2 + cb_ldm_b_chunk(src)) * 8 + col;
            isa_b(lane, i & 1, h, &k, &n);
            CHECK(key == (nt + (i >> 1)) * 8 + n && dim == kk * 16 + k, "K lane %d reg %d", lane, i);
          }

  /* V ([key][dim], B(k = key, n = dim)) through .trans */
  for (int kk = 0; kk < 4; kk++)
    for (int dt = 0; dt < 16; dt += 2)
      for (int lane = 0; lane < 32; lane++)
        for (int i = 0; i < 4; i++)
          for (int h = 0; h < 2; h++) {
            int src, col, k, n;
            ldm(lane, i, h, 1, &src, &col);
            const int key = kk * 16 + cb_ldm_row(src), dim = (dt + cb_ldm_chunk(src)) * 8 + col;
            isa_b(lane, i & 1, h, &k, &n);
            CHECK(key == kk * 16 + k && dim == (dt + (i >> 1)) * 8 + n, "V lane %d reg %d", lane, i);
          }

  /* the kernel's stepping: one offset per operand, chunk steps by XOR, row steps by add */
  for (int D = 64; D <= 128; D += 64)
    for (int r = 0; r < 32; r++)
      for (int c0 = 0; c0 < 2; c0++)
        for (int K = 0; c0 + K < D / 8; K += 2)
          for (int m = 0; m < 16; m++)
            CHECK(cb_swz_offset(r + 8 * m, c0 + K, D) == (cb_swz_offset(r, c0, D) ^ (8 * K)) + 8 * m * D,
                  "D %d row %d chunk %d + %d, rows + %d", D, r, c0, K, 8 * m);

  /* swizzle: a permutation of each row's chunks; 8 consecutive rows at one logical chunk hit
   * 8 distinct 16-byte bank groups (128-byte rows and 256-byte rows alike) */
  for (int chunks = 8; chunks <= 16; chunks += 8)
    for (int r = 0; r < 16; r++) {
      int seen = 0, banks = 0;
      for (int c = 0; c < chunks; c++) seen |= 1 << cb_swz_chunk(r, c);
      CHECK(seen == (1 << chunks) - 1, "swizzle of row %d is not a permutation", r);
      for (int c = 0; c < chunks; c++) {
        banks = 0;
        for (int rr = r & ~7; rr < (r & ~7) + 8; rr++) banks |= 1 << (cb_swz_chunk(rr, c) & 7);
        CHECK(banks == 0xff, "rows %d..+7, chunk %d: bank conflict", r & ~7, c);
      }
    }
}

int main(void) {
  merge_rules();
  for (int c = 0; c < 3000; c++) merge_case(c);
  CHECK(rows_never_seeing > 100 && rows_empty_block > 100, "coverage: %d rows never see a key, %d skip a block",
        rows_never_seeing, rows_empty_block);
  printf("merge: 3000 problems, %d rows that see no key, %d row-blocks with no key\n", rows_never_seeing,
         rows_empty_block);
  fragments();
  return cb_test_finish("test_attn_merge");
}
