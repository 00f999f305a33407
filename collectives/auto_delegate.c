/* The "auto" algorithms' delegation (auto_delegate.h). */
#include "auto_delegate.h"

#include <stdio.h>

int cb_auto_supported(const cb_algo_t *pick, const cb_world_t *w, const cb_params_t *p, char *why, size_t n) {
  return pick->supported ? pick->supported(w, p, why, n) : 1;
}

int cb_auto_setup(const cb_algo_t *pick, cb_inst_t *in, char *why, size_t n) {
  if (pick->setup(in, why, n)) return -1;
  in->delegate = pick;
  char inner[sizeof in->note];
  snprintf(inner, sizeof inner, "%s", in->note);
  snprintf(in->note, sizeof in->note, "auto: %s%s%.200s%s", pick->name, inner[0] ? " (" : "", inner,
           inner[0] ? ")" : "");
  return 0;
}

void cb_auto_run(cb_inst_t *in, int phase, cudaStream_t s) { in->delegate->run(in, phase, s); }

void cb_auto_teardown(cb_inst_t *in) {
  if (in->delegate) in->delegate->teardown(in);
  in->delegate = NULL;
}
