/* The performance bar a user sets for a run (exit code 6, "below the performance bar the user
 * set"): CB_MIN_BUSBW=GB/s, collbench's own, fails a run where any algorithm's `# Avg bus
 * bandwidth` (avg_busbw.h) is below it; NCCL_TESTS_MIN_BW=GB/s keeps nccl-tests' meaning, which
 * fails an average below 0.9 times the value (its writeResultFooter: bw < min_bw * 0.9). With
 * both set the higher bar holds. An algorithm with no timed row cannot show it reached the bar:
 * it fails it. Wrong results come first: a run with a wrong element exits 1 whatever its speed. */
#ifndef CB_GATE_H
#define CB_GATE_H

#include <stddef.h>

typedef struct cb_gate {
  int set;         /* a bar was given */
  double bar_gbs;  /* the bar itself (NCCL_TESTS_MIN_BW's value times 0.9) */
  char source[96]; /* "CB_MIN_BUSBW=40" or "NCCL_TESTS_MIN_BW=100, x 0.9" */
} cb_gate_t;

/* The bar from the two variables' values (NULL: unset). A value that is empty, not a decimal
 * number or negative is refused: -1 with one line in why naming the variable. */
int cb_gate_parse(cb_gate_t *g, const char *cb_min_busbw, const char *ncclt_min_bw, char *why, size_t n);
/* The same from the environment. */
int cb_gate_from_env(cb_gate_t *g, char *why, size_t n);

/* 1 when an average of avg_gbs meets the bar (always without a bar; never when not finite). */
int cb_gate_passes(const cb_gate_t *g, double avg_gbs);

/* The run's exit code from its results: 1 with a wrong element or a failed validation, else 6
 * when an algorithm's average (avg[i], n of them) misses the bar, else 0. */
int cb_gate_exit_code(const cb_gate_t *g, long long wrong, int validate_failures, const double *avg, int n);

#endif
