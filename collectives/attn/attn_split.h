/* One ring step's (query block, K/V block) attention as calls of a kernel that knows only two
 * masks: none, and causal with the diagonal at the top left (query row i sees key rows 0..i),
 * which is what cuDNN's fused attention offers (attn_cudnn.h). Host-only, CUDA-free.
 *
 * A block's rows are one or two runs of global positions (attn_config.h cb_attn_runs_t; two
 * adjacent runs count as one where that works). Non-causal: one call, every query row against every key row.
 * Causal: each (query run, key run) pair is
 *   invisible  every key after every query (k.start > q.last): no call;
 *   full       every key at or before every query (k.last <= q.start): a non-causal call;
 *   diagonal   the same positions (same start, same length): a causal call;
 *   cut        one query run against one key run, the diagonal shifted (positions offset by
 *              d, the stripe layout's pairs): up to 4 calls, a full part, a causal square and
 *              a full rest, over row groups of the queries (attn_split.c cut_diagonal);
 *   other      a mask neither form expresses: cb_attn_split fails with the reason.
 * The zigzag ring's pairs are always one of the first three: every chunk has the same length
 * c, and chunk a against chunk b is diagonal (a = b), full (b < a) or invisible (b > a).
 *
 * Calls are then coalesced: a query run's full pairs over adjacent key rows become one call,
 * and two query runs with the same single full call become one call over both (their rows are
 * adjacent in the block). Each call says whether its merge into the running output is the
 * first for its rows (first) and the last (final), from the step's own first/final; a query
 * run that no call touches gets a call without keys (kv_len 0) when the step is first (o and
 * lse must be written) or final (out must be written). */
#ifndef CB_ATTN_SPLIT_H
#define CB_ATTN_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "attn_config.h"

#define CB_ATTN_MAX_CALLS 4 /* 2 query runs x 2 key runs (a run without keys has one call); a cut diagonal 4 */

typedef struct cb_attn_call {
  int64_t q_row0, q_len;   /* rows of the query block */
  int64_t kv_row0, kv_len; /* rows of the K/V block; kv_len 0: no keys (merge flags only) */
  int causal;              /* 1: diagonal pair, top-left causal mask */
  int first, final;        /* this merge is the first / last for its query rows in the step */
} cb_attn_call_t;

/* q, kv: positions of the blocks' rows (q_rows, kv_rows rows; len1 is ignored: the second run
 * is the rest of the rows). Returns the number of calls (0..CB_ATTN_MAX_CALLS), or -1 with why
 * ("not supported: cuDNN has no mask for ..."). */
int cb_attn_split(cb_attn_runs_t q, int64_t q_rows, cb_attn_runs_t kv, int64_t kv_rows, int causal, int first,
                  int final, cb_attn_call_t *calls, char *why, size_t n);

#endif
