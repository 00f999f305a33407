/* Host-only planning for the custom all-reduce, kept free of CUDA so CPU tests cover it:
 * which algorithm "auto" runs at a size (the thresholds measured on 2 x H200, scaled to the
 * rank count, overridable by environment knobs) and how twoshot_ce cuts a shard into chunks. */
#ifndef CB_ALLREDUCE_PLAN_H
#define CB_ALLREDUCE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "allreduce_shard.h"

/* Largest per-rank message (bytes) for which each algorithm is picked at 2 ranks; measured in
 * graph and eager mode, float and bfloat16 (docs/decisions/allreduce.md). */
#define CB_AUTO_LL_MAX_2RANKS (256ull << 10)     /* oneshot_ll: 5.5 vs 6.5 µs at 256 KiB, loses at 512 */
#define CB_AUTO_ONESHOT_MAX_2RANKS (4ull << 20)  /* oneshot: 19.7 vs 21.7 µs at 4 MiB, loses at 8 */
#define CB_AUTO_TWOSHOT_MAX_2RANKS (64ull << 20) /* twoshot; twoshot_ce wins from 128 MiB */

typedef struct cb_ar_thresholds {
  uint64_t ll_max, oneshot_max, twoshot_max; /* bytes per rank; above twoshot_max: twoshot_ce */
} cb_ar_thresholds_t;

/* The thresholds for nranks: the latency thresholds (oneshot_ll, oneshot) are their 2-rank
 * values · 2 / nranks, since one-shot traffic grows with n - 1; the copy-engine crossover is a
 * matter of chunks in flight and is not scaled. CB_AR_LL_MAX, CB_AR_ONESHOT_MAX and
 * CB_AR_TWOSHOT_MAX (bytes) override each. Returns -1 with a reason for a malformed knob. */
int cb_ar_thresholds(int nranks, cb_ar_thresholds_t *t, char *why, size_t n);

/* The algorithm auto runs for a message of `bytes` per rank: "oneshot_ll", "oneshot",
 * "twoshot" or "twoshot_ce". */
const char *cb_ar_auto_pick(const cb_ar_thresholds_t *t, uint64_t bytes);

/* twoshot_ce's chunking: default bytes per chunk of a shard (measured: 32 MiB beat 8 and 2 MiB
 * at 256 MiB – 4 GiB), at most CB_AR_CE_MAX_CHUNKS chunks (one ready flag each). */
#define CB_AR_CE_CHUNK_BYTES (32ull << 20)
#define CB_AR_CE_MAX_CHUNKS 512

/* CB_AR_CE_CHUNK (bytes, a multiple of 16) or the default; -1 with a reason if malformed. */
int cb_ar_ce_chunk_bytes(uint64_t *bytes, char *why, size_t n);

/* The chunk (elements, a multiple of 16 bytes) and chunk count for a shard of a count-element
 * message over nranks (cb_ar_shard_elems, allreduce_shard.h): chunk_bytes per chunk, grown if
 * that would make more than CB_AR_CE_MAX_CHUNKS. */
void cb_ar_ce_plan(size_t count, size_t elem_bytes, int nranks, uint64_t chunk_bytes, size_t *chunk_elems, int *chunks);

/* hier's pipeline (allreduce_hier.c): the message is cut into chunks of about
 * CB_AR_HIER_CHUNK_BYTES, at most CB_AR_HIER_MAX_CHUNKS, so the NVLink phases of one chunk
 * overlap the network phase of another; CB_AR_HIER_CHUNKS (1..CB_AR_HIER_MAX_CHUNKS) fixes the
 * count. chunk_elems is a multiple of 16 bytes; chunks = 0 for an empty message. Returns -1
 * with a reason for a malformed knob.
 * 32 MiB: every chunk costs a network round of its own (2(N-1) messages, ~130 us each on the
 * virtual cluster's socket transport, ~10-20 us on InfiniBand) and can hide at most its NVLink
 * phases (~S/200 GB/s), so a chunk must be tens of MiB before the overlap pays for it. Measured
 * on 2 x 2 virtual nodes on 2 x H200 (docs/decisions/multinode-hier.md): 1 chunk beat 2, 4 and 8 at 4, 16 and
 * 64 MiB (16 MiB: 3019 us against 3133, 3482, 4011; the old 2 MiB chunks gave 4011). */
#define CB_AR_HIER_CHUNK_BYTES (32ull << 20)
#define CB_AR_HIER_MAX_CHUNKS 16
/* CB_AR_HIER_CHUNKS (1..CB_AR_HIER_MAX_CHUNKS; unset: 0 = by size), read once at start
 * (knobs.c). Returns 0, or -1 with why naming the variable. */
int cb_ar_hier_chunks_knob(int *chunks, char *why, size_t n);
/* The pipeline plan: `knob` chunks (0: one per CB_AR_HIER_CHUNK_BYTES, at most
 * CB_AR_HIER_MAX_CHUNKS), each a whole number of 16-byte vectors. */
void cb_ar_hier_plan(size_t count, size_t elem_bytes, int knob, size_t *chunk_elems, int *chunks);

#endif
