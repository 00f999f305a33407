/* The collective families collbench measures, and what each means for sizes and bandwidth.
 *
 * "bytes" and "count" follow nccl-tests exactly, so numbers can be compared line by line:
 *   family         bytes (the size column)          count column      busbw = algbw x
 *   allreduce      per-rank buffer                  bytes/elem        2(n-1)/n
 *   allgather      per-rank receive buffer (total)  bytes/elem/n      (n-1)/n
 *   reducescatter  per-rank send buffer (total)     bytes/elem/n      (n-1)/n
 *   alltoall       per-rank send buffer (total)     bytes/elem/n      (n-1)/n
 *   sendrecv       per-rank send buffer             bytes/elem        1
 * algbw = bytes / time, GB = 1e9 bytes. MoE rows define their own bytes (launcher docs and
 * docs/results-format.md): logical bytes per rank moved by the phase, busbw = algbw. ringattn rows
 * sweep the total sequence length; their size column is the K/V bytes one rank sends over the
 * whole ring ((P-1) shards), busbw = algbw, and TFLOP/s is their headline (attn_config.h). */
#ifndef CB_FAMILY_H
#define CB_FAMILY_H

#include <stddef.h>

/* The largest per-rank buffer collbench plans (1 TiB): more than any GPU holds, so a size past
 * it is a usage error before any GPU work, and every buffer product (ranks x count x element
 * size, plus alignment) stays far from overflowing size_t. */
#define CB_MAX_BUFFER_BYTES (1ull << 40)

typedef enum cb_family {
  CB_ALLREDUCE = 0,
  CB_ALLGATHER,
  CB_REDUCESCATTER,
  CB_ALLTOALL,
  CB_SENDRECV,
  CB_MOE,
  CB_RINGATTN,
  CB_NFAMILIES
} cb_family_t;

typedef enum cb_sweep_kind { CB_SWEEP_BYTES, CB_SWEEP_TOKENS, CB_SWEEP_SEQ } cb_sweep_kind_t;

typedef struct cb_family_info {
  const char *name;
  int reduces;     /* takes -o */
  int has_inplace; /* in-place variant exists */
  cb_sweep_kind_t sweep;
  int count_per_rank;              /* count column = elements / nranks, and elements must divide by nranks */
  double busbw_num, busbw_den_adj; /* busbw factor = busbw_num * (n - 1 + busbw_den_adj) / n; see .c */
} cb_family_info_t;

const cb_family_info_t *cb_family_info(cb_family_t f);
const char *cb_family_name(cb_family_t f);
int cb_family_parse(const char *s, cb_family_t *out);
const char *cb_family_accepted(void);

/* busbw / algbw for the family at nranks (nccl-tests' definitions, table above). */
double cb_busbw_factor(cb_family_t f, int nranks);

/* Elements per rank buffer and the count column for a size in bytes. Returns 0, or -1 with a
 * reason when the size is not a whole number of elements or (for count_per_rank families) not
 * divisible by nranks. */
int cb_family_count(cb_family_t f, size_t bytes, size_t elem_size, int nranks, size_t *elements, size_t *count,
                    char *why, size_t n);

#endif
