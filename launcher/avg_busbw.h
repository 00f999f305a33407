/* `# Avg bus bandwidth`, computed as nccl-tests computes it: the arithmetic mean of the bus
 * bandwidth of every timed row (every size, data type, op, out-of-place and in-place, mode and
 * cycle), here once per algorithm. nccl-tests' src/common.cu adds each measurement's busbw into a
 * sum and counts it, and divides once at the end; a row that was not timed (skipped, not
 * supported) adds nothing. In collbench a multi-phase algorithm counts its round-trip rows (the
 * whole operation), not its phases', and a round trip measured beside a compute kernel is not a
 * row of the sweep. The drop-in binaries (launcher/ncclt_*.c) print the same numbers. */
#ifndef CB_AVG_BUSBW_H
#define CB_AVG_BUSBW_H

#include "args.h"
#include "gate.h"
#include "strbuf.h"

typedef struct cb_avg_busbw {
  int nalgos;
  struct {
    char algo[CB_NAME_MAX];
    double sum_gbs; /* busbw summed over the algorithm's timed rows */
    long rows;
  } a[CB_MAX_ALGOS];
} cb_avg_busbw_t;

/* Adds one timed row of algo (busbw in GB/s; a non-finite value counts as nccl-tests counts it:
 * it makes the mean non-finite). Algorithms appear in the order of their first row. */
void cb_avg_busbw_add(cb_avg_busbw_t *s, const char *algo, double busbw_gbs);
/* Records algo (with no row yet), so that an algorithm that never ran still gets its line. */
void cb_avg_busbw_name(cb_avg_busbw_t *s, const char *algo);

/* The mean of algorithm i (NAN without a timed row). */
double cb_avg_busbw_mean(const cb_avg_busbw_t *s, int i);

/* The lines "# Avg bus bandwidth    : 0.186264 OK  algo nccl (12 rows)" for every algorithm,
 * nccl-tests' label and number first (scripts take the 6th field), then the verdict against the
 * gate's bar (none when no bar is set) and the algorithm. */
void cb_avg_busbw_lines(const cb_avg_busbw_t *s, const cb_gate_t *g, cb_strbuf_t *out);

/* The same as a JSON array of {"algo", "gbs", "rows", "passed"} objects (no newline). */
void cb_avg_busbw_json(const cb_avg_busbw_t *s, const cb_gate_t *g, cb_strbuf_t *out);

#endif
