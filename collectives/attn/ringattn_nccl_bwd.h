/* `nccl_ring`'s backward pass (ringattn_nccl_bwd.c) over the forward's two receive slots
 * (reused: the backward's first receive is ordered after the forward's last read on the same
 * streams), with its own two dK/dV receive slots and step 0's sums; ringattn_nccl.c sets it up
 * for a pass with a backward and hooks it in. */
#ifndef CB_RINGATTN_NCCL_BWD_H
#define CB_RINGATTN_NCCL_BWD_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "ringattn_state.h"

struct cb_ra_nccl_bwd;
/* Its buffers and events, then the pass's setup (cb_ra_setup_pass). *out is set first (freed by
 * cb_ra_nccl_bwd_free whatever fails next). Returns 0 or -1 with why. */
int cb_ra_nccl_bwd_setup(cb_inst_t *in, cb_ra_t *x, void *const slot[2], struct cb_ra_nccl_bwd **out, char *why,
                         size_t n);
void cb_ra_nccl_bwd_run(cb_inst_t *in, struct cb_ra_nccl_bwd *g, cudaStream_t s);
void cb_ra_nccl_bwd_compute(cb_inst_t *in, struct cb_ra_nccl_bwd *g, cudaStream_t s);
void cb_ra_nccl_bwd_comm(cb_inst_t *in, struct cb_ra_nccl_bwd *g, cudaStream_t s);
void cb_ra_nccl_bwd_free(struct cb_ra_nccl_bwd *g); /* NULL: nothing */

#endif
