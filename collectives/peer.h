/* Peer memory for the custom algorithms: one device allocation per rank of a node, exported
 * with cudaIpcGetMemHandle, exchanged over MPI among the node's ranks and opened by every other
 * rank, so each rank holds a pointer to every peer's allocation (ptrs[local rank]).
 * Collective over the node; every rank gets the same verdict (if any rank fails, all free what
 * they made and return -1 with the failing rank's reason), so a failure becomes a "not run" row
 * instead of a hang. The allocation starts zeroed (signal pads need epoch 0). */
#ifndef CB_PEER_H
#define CB_PEER_H

#include <stddef.h>
#include <stdint.h>

#include "cb_limits.h"
#include "grid.h"
#include "world.h"

typedef struct cb_peer_mem {
  void *ptrs[CB_MAX_RANKS]; /* ptrs[q] = rank q's allocation, mapped here; ptrs[own] is local */
  size_t bytes;
  int n, me;
} cb_peer_mem_t;

int cb_peer_alloc(const cb_world_t *w, size_t bytes, cb_peer_mem_t *pm, char *why, size_t n);
/* Closes the peers' mappings and frees the local allocation. The caller makes sure no peer
 * still uses it (the bench engine synchronizes all ranks before teardown). */
void cb_peer_free(cb_peer_mem_t *pm);

/* cb_peer_alloc, then `words` zeroed 32-bit epoch counters in this rank's device memory (the
 * per-block barrier epochs of the custom kernels). Returns -1 with the reason when either
 * allocation fails, with both freed (the bench engine agrees the failure across ranks);
 * cb_peer_free_epochs frees both. */
int cb_peer_alloc_epochs(const cb_world_t *w, size_t bytes, size_t words, cb_peer_mem_t *pm, uint32_t **epochs,
                         char *why, size_t n);
void cb_peer_free_epochs(cb_peer_mem_t *pm, uint32_t **epochs);

/* The grid limits of a custom peer-memory kernel on this world: the algorithm's block cap
 * (default_max_blocks; 0 = one block per SM) unless CB_MAX_BLOCKS overrides it, the SM count
 * the world agreed on (CB_SMS or --sms caps it) and threads per SM. */
cb_grid_limits_t cb_peer_grid_limits(const cb_world_t *w, int default_max_blocks);

#endif
