/* Sequence layouts of ringattn rows (attn_layout.h). */
#include "attn_layout.h"

#include <stdio.h>
#include <string.h>

static const char *const names[CB_ATTN_NLAYOUTS] = {"contiguous", "zigzag", "stripe"};

const char *cb_attn_layout_name(int layout) { return layout >= 0 && layout < CB_ATTN_NLAYOUTS ? names[layout] : "?"; }

int cb_attn_parse_layouts(const char *s, int *bits) {
  if (strcmp(s, "all") == 0) {
    *bits = CB_ATTN_LAYOUT_ALL;
    return 0;
  }
  int b = 0;
  const char *p = s;
  for (;;) {
    const char *end = strchr(p, ',');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    int found = -1;
    for (int l = 0; l < CB_ATTN_NLAYOUTS; l++)
      if (strlen(names[l]) == len && strncmp(names[l], p, len) == 0) found = l;
    if (found < 0) return -1;
    b |= CB_ATTN_LAYOUT_BIT(found);
    if (!end) break;
    p = end + 1;
  }
  *bits = b;
  return 0;
}

int cb_attn_default_layout(int causal) { return causal ? CB_ATTN_ZIGZAG : CB_ATTN_CONTIGUOUS; }

/* Rows [row0, row0 + len) of a group whose rows are the runs a (rows 0..a_len) then b. */
static cb_attn_runs_t rows_of(int64_t a_start, int64_t a_len, int64_t b_start, int64_t row0, int64_t len) {
  cb_attn_runs_t r;
  memset(&r, 0, sizeof r);
  if (row0 + len <= a_len || row0 >= a_len) { /* one run */
    r.start0 = row0 < a_len ? a_start + row0 : b_start + (row0 - a_len);
    r.len0 = len;
    r.start1 = r.start0 + len;
    return r;
  }
  r.start0 = a_start + row0;
  r.len0 = a_len - row0;
  r.start1 = b_start;
  r.len1 = len - r.len0;
  return r;
}

cb_attn_runs_t cb_attn_layout_runs(uint64_t S, int P, int r, int layout, int U) {
  const int R = P / U, g = r / U, u = r % U;
  const int64_t L = (int64_t)(S / (uint64_t)P);
  if (layout == CB_ATTN_STRIPE) { /* the group's rows g + i*R, rank u's L of them from row u*L */
    cb_attn_runs_t x;
    memset(&x, 0, sizeof x);
    x.stride = R > 1 ? R : 0;
    x.start0 = (int64_t)u * L * R + g;
    x.len0 = L;
    x.start1 = x.start0 + L * R;
    return x;
  }
  if (layout == CB_ATTN_ZIGZAG) {
    const int64_t c = (int64_t)(S / (2ull * (uint64_t)R));
    return rows_of(c * g, c, c * (2 * R - 1 - g), u * L, L);
  }
  const int64_t chunk = (int64_t)(S / (uint64_t)R);
  return rows_of(chunk * g, chunk, chunk * (g + 1), u * L, L);
}

int cb_attn_layout_seq_check(uint64_t S, int P, int layout, char *why, size_t n) {
  const int zig = layout == CB_ATTN_ZIGZAG; /* contiguous and stripe: S/P rows each */
  const uint64_t parts = zig ? 2ull * (uint64_t)P : (uint64_t)P;
  if (S == 0 || S % parts) {
    snprintf(why, n, "sequence %llu does not split into %llu equal chunks (%s over %d ranks)", (unsigned long long)S,
             (unsigned long long)parts,
             zig                        ? "zigzag: 2 chunks per rank"
             : layout == CB_ATTN_STRIPE ? "stripe: S/P rows per rank"
                                        : "one chunk per rank",
             P);
    return -1;
  }
  if (S > CB_ATTN_MAX_SEQ) {
    snprintf(why, n, "sequence %llu is longer than %llu", (unsigned long long)S, CB_ATTN_MAX_SEQ);
    return -1;
  }
  return 0;
}

/* floor(a / b) for b > 0 (C division truncates toward zero) */
static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

int cb_attn_block_pair(cb_attn_runs_t *q, cb_attn_runs_t *kv) {
  const int64_t sq = q->stride > 1 ? q->stride : 1, sk = kv->stride > 1 ? kv->stride : 1;
  if (sq == 1 && sk == 1) return 0;
  if (sq != sk || q->len1 > 0 || kv->len1 > 0) return -1;
  const int64_t a = floor_div(q->start0 - kv->start0, sq);
  const int64_t ql = q->len0, kl = kv->len0;
  memset(q, 0, sizeof *q);
  memset(kv, 0, sizeof *kv);
  q->start0 = a > 0 ? a : 0;
  kv->start0 = a < 0 ? -a : 0;
  q->len0 = ql;
  q->start1 = q->start0 + ql;
  kv->len0 = kl;
  kv->start1 = kv->start0 + kl;
  return 0;
}
