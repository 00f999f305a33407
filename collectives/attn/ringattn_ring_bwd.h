/* `ring`'s backward pass (ringattn_ring_bwd.c): its own peer allocation (two K/V slots, two
 * dK/dV slots, the home dK/dV, flags), the run, and its parts alone; ringattn_ring.c sets it up
 * for a pass with a backward and hooks it in. */
#ifndef CB_RINGATTN_RING_BWD_H
#define CB_RINGATTN_RING_BWD_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "ringattn_state.h"

struct cb_ra_ring_bwd;
/* Its peer allocation, then the pass's setup with the home dK/dV in it (cb_ra_setup_pass).
 * *out is set as soon as there is something to free (cb_ra_ring_bwd_free). Returns 0 or -1
 * with why. */
int cb_ra_ring_bwd_setup(cb_inst_t *in, cb_ra_t *x, struct cb_ra_ring_bwd **out, char *why, size_t n);
void cb_ra_ring_bwd_run(cb_inst_t *in, struct cb_ra_ring_bwd *g, cudaStream_t s);
void cb_ra_ring_bwd_compute(cb_inst_t *in, struct cb_ra_ring_bwd *g, cudaStream_t s);
void cb_ra_ring_bwd_comm(cb_inst_t *in, struct cb_ra_ring_bwd *g, cudaStream_t s);
void cb_ra_ring_bwd_free(struct cb_ra_ring_bwd *g); /* NULL: nothing */
size_t cb_ra_ring_bwd_peer_bytes(const struct cb_ra_ring_bwd *g);

#endif
