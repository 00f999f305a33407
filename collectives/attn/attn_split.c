/* A block pair as calls with the masks cuDNN has (attn_split.h). */
#include "attn_split.h"

#include <stdio.h>

typedef struct run {
  int64_t row0, len, pos0; /* rows [row0, row0 + len) at positions pos0.. */
} run_t;

/* The runs of a block of `rows` rows (at most 2; empty ones left out; adjacent ones joined
 * when join). */
static int runs_of(cb_attn_runs_t r, int64_t rows, int join, run_t *out) {
  int64_t len0 = r.len0 < rows ? r.len0 : rows;
  if (len0 < 0) len0 = 0;
  int nr = 0;
  if (len0 > 0) out[nr++] = (run_t){0, len0, r.start0};
  if (rows > len0) {
    if (nr && join && r.start1 == r.start0 + len0) out[0].len = rows;
    else out[nr++] = (run_t){len0, rows - len0, r.start1};
  }
  return nr;
}

typedef struct entry {
  int64_t kv_row0, kv_len;
  int causal;
} entry_t;

/* The calls of one query run against the key runs, full pairs over adjacent key rows joined.
 * Returns how many, or -1 with why. */
static int run_entries(run_t q, const run_t *kv, int nkv, entry_t *e, char *why, size_t n) {
  int m = 0;
  const int64_t q_last = q.pos0 + q.len - 1;
  for (int j = 0; j < nkv; j++) {
    const run_t k = kv[j];
    const int64_t k_last = k.pos0 + k.len - 1;
    if (k.pos0 > q_last) continue; /* invisible */
    if (k_last <= q.pos0) {        /* full */
      if (m && !e[m - 1].causal && e[m - 1].kv_row0 + e[m - 1].kv_len == k.row0) e[m - 1].kv_len += k.len;
      else e[m++] = (entry_t){k.row0, k.len, 0};
    } else if (k.pos0 == q.pos0 && k.len == q.len) {
      e[m++] = (entry_t){k.row0, k.len, 1};
    } else {
      snprintf(why, n,
               "not supported: cuDNN has no mask for queries at positions %lld..%lld against keys at %lld..%lld "
               "(neither all visible nor the same positions)",
               (long long)q.pos0, (long long)q_last, (long long)k.pos0, (long long)k_last);
      return -1;
    }
  }
  return m;
}

/* A cut diagonal: one query run against one key run whose positions are offset by d = q.pos0 -
 * k.pos0 (query row i sees key row j iff j <= i + d), neither invisible, full nor diagonal (the
 * stripe layout's pairs, attn_layout.h cb_attn_block_pair: d = -1 between ring members g < g').
 * The query rows fall into three groups, each with its own calls (first on a group's first,
 * final on its last):
 *   rows [0, i0)        d >= 0: keys [0, d] (row 0, i0 = 1); d < 0: none (i0 = -d)
 *   rows [i0, i0 + m)   keys [0, j0) in full (d >= 0), then the causal square of m rows from key
 *                       j0 = max(d + 1, 0): row i0 + t sees keys j0 .. j0 + t
 *   rows [i0 + m, ...)  every key (only when the square used them all)
 * so at most 4 calls. */
static int cut_diagonal(run_t q, run_t k, int first, int final, cb_attn_call_t *calls) {
  const int64_t d = q.pos0 - k.pos0, j0 = d + 1 > 0 ? d + 1 : 0, i0 = j0 - d;
  const int64_t m = q.len - i0 < k.len - j0 ? q.len - i0 : k.len - j0, a = i0 < q.len ? i0 : q.len;
  int nc = 0;
  if (d >= 0) calls[nc++] = (cb_attn_call_t){q.row0, a, k.row0, j0 < k.len ? j0 : k.len, 0, first, final};
  else if (first || final) calls[nc++] = (cb_attn_call_t){q.row0, a, 0, 0, 0, first, final};
  if (m <= 0) return nc; /* (the first group holds every query row) */
  if (j0 > 0) calls[nc++] = (cb_attn_call_t){q.row0 + i0, m, k.row0, j0, 0, first, 0};
  calls[nc++] = (cb_attn_call_t){q.row0 + i0, m, k.row0 + j0, m, 1, first && j0 == 0, final};
  if (i0 + m < q.len) calls[nc++] = (cb_attn_call_t){q.row0 + i0 + m, q.len - i0 - m, k.row0, k.len, 0, first, final};
  return nc;
}

static int split_runs(cb_attn_runs_t q, int64_t q_rows, cb_attn_runs_t kv, int64_t kv_rows, int causal, int first,
                      int final, int join, cb_attn_call_t *calls, char *why, size_t n) {
  run_t qr[2], kr[2];
  int nq = runs_of(q, q_rows, join, qr), nk = runs_of(kv, kv_rows, join, kr);
  entry_t e[2][2];
  int m[2] = {0, 0};
  if (!causal && nq) { /* positions do not matter: one query run, one key range */
    qr[0] = (run_t){0, q_rows, 0};
    nq = 1;
    if (kv_rows > 0) e[0][m[0]++] = (entry_t){0, kv_rows, 0};
  }
  for (int i = 0; causal && i < nq; i++)
    if ((m[i] = run_entries(qr[i], kr, nk, e[i], why, n)) < 0) return -1;
  /* two query runs with the same single full call: one call over both (rows [0, q_rows)) */
  if (nq == 2 && m[0] == 1 && m[1] == 1 && !e[0][0].causal && !e[1][0].causal && e[0][0].kv_row0 == e[1][0].kv_row0 &&
      e[0][0].kv_len == e[1][0].kv_len) {
    qr[0].len = q_rows;
    nq = 1;
  }
  int nc = 0;
  for (int i = 0; i < nq; i++) {
    if (m[i] == 0) {
      if (first || final) calls[nc++] = (cb_attn_call_t){qr[i].row0, qr[i].len, 0, 0, 0, first, final};
      continue;
    }
    for (int j = 0; j < m[i]; j++)
      calls[nc++] = (cb_attn_call_t){qr[i].row0,     qr[i].len,       e[i][j].kv_row0,       e[i][j].kv_len,
                                     e[i][j].causal, first && j == 0, final && j == m[i] - 1};
  }
  return nc;
}

/* Adjacent runs joined first (the P = 1 ring's two chunks are one diagonal call, not three);
 * joining can also hide a diagonal pair (two query runs against one key run equal to the
 * first), so a refusal is retried with the runs as given; a pair of one run each that both
 * refuse is a cut diagonal (so the cheaper forms win where they apply). */
int cb_attn_split(cb_attn_runs_t q, int64_t q_rows, cb_attn_runs_t kv, int64_t kv_rows, int causal, int first,
                  int final, cb_attn_call_t *calls, char *why, size_t n) {
  int nc = split_runs(q, q_rows, kv, kv_rows, causal, first, final, 1, calls, why, n);
  if (nc < 0) nc = split_runs(q, q_rows, kv, kv_rows, causal, first, final, 0, calls, why, n);
  run_t qr[2], kr[2];
  if (nc < 0 && runs_of(q, q_rows, 1, qr) == 1 && runs_of(kv, kv_rows, 1, kr) == 1) /* a cut diagonal, last */
    nc = cut_diagonal(qr[0], kr[0], first, final, calls);
  return nc;
}
