/* Host side shared by the one-shot peer-memory rooted algorithms (broadcast_peer.c,
 * reduce_peer.c): the peer allocation with no staging (kernels/rooted_oneshot.h), the launch
 * arguments with the sweep point's root, the grid, the size up to which the forms are offered,
 * and `auto`'s rule between them and NCCL (rooted_auto.c). */
#ifndef CB_ROOTED_PEER_H
#define CB_ROOTED_PEER_H

#include "collective.h"
#include "rooted_oneshot.h"

/* The one-shot forms pull the whole message through the root's link ((n-1)·S out for broadcast,
 * in for reduce) where NCCL's pipelines move S: they are for latency-bound sizes and offered up to
 * this per-rank size (they stage nothing, so memory is not the limit). */
#define CB_ROOTED_PEER_MAX_BYTES (32ull << 20)

/* auto: the peer form up to this size, NCCL above. A guess, not measured for these forms: 256 KiB
 * is where the all-reduce's latency-bound one-shot (LL) form stops beating its flag one-shot on
 * 2 x H200 (docs/decisions/allreduce.md), i.e. the size up to which one pass over NVLink is still
 * ruled by latency. A sweep with --algo nccl,peer on 2, 4 and 8 GPUs should replace it. */
#define CB_ROOTED_AUTO_PEER_MAX_BYTES (256ull << 10)

/* supported(): peer memory on one node (cb_peer_supported) and the size at most
 * CB_ROOTED_PEER_MAX_BYTES. */
int cb_rooted_peer_supported(const cb_world_t *w, const cb_params_t *p, char *why, size_t n);
/* setup() with the kernel launcher the algorithm runs. */
int cb_rooted_peer_setup(cb_inst_t *in, void (*launch)(const cb_rooted_launch_t *, cudaStream_t), char *why, size_t n);
void cb_rooted_peer_run(cb_inst_t *in, int phase, cudaStream_t s);
void cb_rooted_peer_teardown(cb_inst_t *in);

#endif
