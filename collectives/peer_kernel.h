/* What the host side of every custom peer-memory kernel sets up alike (all-reduce and
 * all-to-all): one peer allocation per rank laid out the same on every rank,
 *
 *   [ data: send | recv (buffers.h) ][ staging (the algorithm's, 256-B aligned) ][ signal pad ]
 *                                    ^staging_off                                ^pad_off
 *
 * and per-block epoch counters in this rank's device memory. Every failure (out of memory,
 * IPC) returns -1 with a reason instead of ending the job: the bench engine agrees across ranks
 * and turns it into a row note on every rank, so all ranks take the same path. */
#ifndef CB_PEER_KERNEL_H
#define CB_PEER_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "buffers.h"
#include "collective.h"
#include "peer.h"

typedef struct cb_peer_kernel_mem {
  cb_peer_mem_t pm;
  uint32_t *epoch; /* CB_SIGNAL_MAX_BLOCKS words, zeroed */
  cb_buffer_plan_t plan;
  size_t staging_off, pad_off;
} cb_peer_kernel_mem_t;

/* Allocates k for in's parameters with staging_bytes of staging, points in->send/recv into the
 * data region and sets in->mem_bytes. Returns 0, or -1 with why (nothing left allocated). */
int cb_peer_kernel_setup(cb_inst_t *in, size_t staging_bytes, cb_peer_kernel_mem_t *k, char *why, size_t n);
void cb_peer_kernel_teardown(cb_peer_kernel_mem_t *k);

#endif
