/* What every "auto" algorithm shares (allreduce_auto.c, alltoallv_auto.c, rooted_auto.c): the
 * algorithm it picks runs as the instance's delegate, on the instance's own state (priv), so an
 * auto keeps no state of its own, and its row's note names the pick ("auto: oneshot", with the
 * pick's own note in parentheses when it has one). Each auto file keeps only its pick rule and
 * its description. */
#ifndef CB_AUTO_DELEGATE_H
#define CB_AUTO_DELEGATE_H

#include "collective.h"

/* The pick's supported() (an algorithm without one runs everywhere). */
int cb_auto_supported(const cb_algo_t *pick, const cb_world_t *w, const cb_params_t *p, char *why, size_t n);
/* Sets the pick up on in and makes it the delegate; 0, or -1 with why. */
int cb_auto_setup(const cb_algo_t *pick, cb_inst_t *in, char *why, size_t n);
/* run and teardown of every auto: the delegate's. */
void cb_auto_run(cb_inst_t *in, int phase, cudaStream_t s);
void cb_auto_teardown(cb_inst_t *in);

#endif
