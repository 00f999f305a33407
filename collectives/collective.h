/* The algorithm interface. Every algorithm, NCCL baseline or custom kernel, is one
 * `const cb_algo_t` with designated initializers, listed in the NULL-terminated registry
 * (registry.c). The bench engine (launcher/bench.c) drives all of them alike:
 *
 *   supported(world, params)  can it run here? (dtype, op, node count, peer access, ...)
 *   setup(inst)               allocate, exchange IPC handles; may fail with a reason (OOM)
 *   run(inst, phase, stream)  enqueue one iteration of one phase; graph-capturable when
 *                             graph_ok, never synchronizes the host unless graph_ok = 0
 *   check(inst, stream, ...)  fresh seeded inputs, poisoned outputs, run, count wrong
 *                             elements (NULL: the generic check for the family's layout)
 *   bytes(inst, phase, ...)   algbw bytes and busbw factor (NULL: the family's nccl-tests
 *                             definition, family.h)
 *   teardown(inst)            free everything setup made
 *
 *   measure(inst, stream)     optional, after the check: times the algorithm's parts on their
 *                             own (ringattn: compute alone, communication alone) into inst
 *
 * A run with several phases (moe: layout, dispatch, combine) is timed per phase and as a
 * round trip. */
#ifndef CB_COLLECTIVE_H
#define CB_COLLECTIVE_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "family.h"
#include "params.h"
#include "world.h"

#define CB_SMS_COPY_ENGINE (-1) /* cb_inst_t.sms of a copy-engine-only algorithm: reported as 0 */

struct cb_algo;

/* One algorithm set up at one sweep point. send/recv are where the generic check writes
 * inputs and reads outputs; for in-place runs send points into recv as nccl-tests lays it out
 * (allgather: recv + rank * count). */
typedef struct cb_inst {
  const struct cb_algo *algo;
  const cb_world_t *world;
  cb_params_t p;
  void *send, *recv;
  size_t send_elems, recv_elems;
  size_t mem_bytes; /* device memory setup allocated, reported in the mem_bytes column */
  /* SMs the algorithm's kernels occupy (the sms column): the largest of its kernels' grids,
   * capped at the device's SMs (kernels/grid.h cb_grid_sms); set by setup. 0: not reported
   * (NCCL: 2.28 has no public API for its channel count); CB_SMS_COPY_ENGINE: no kernel moves
   * the data (the copy engine does). */
  int sms;
  char note[256];            /* informational note for the row (e.g. auto's choice) */
  unsigned long long digest; /* hash of the last checked output (cross-rank equality) */
  /* the family's per-rank metrics (family.h metrics: their meaning and how the engine combines
   * them over ranks), set by setup, check or measure; 0 until then */
  double metric[CB_MAX_METRICS];
  void *priv; /* the algorithm's own state */
  /* An algorithm that runs another one in its place (auto) names it here after setup; priv is
   * then the delegate's own state, untouched. NULL otherwise. */
  const struct cb_algo *delegate;
} cb_inst_t;

typedef struct cb_algo {
  const char *name;
  cb_family_t family;
  const char *summary;
  unsigned dtypes; /* bit (1u << cb_dtype_t) per supported dtype */
  unsigned ops;    /* bit (1u << cb_redop_t) per supported op; ignored for non-reducing families */
  int nphases;     /* 1, or the number of entries in phase_names */
  const char *const *phase_names;
  int graph_ok; /* run() can be captured in a CUDA graph */
  int (*supported)(const cb_world_t *w, const cb_params_t *p, char *why, size_t n); /* NULL: yes */
  int (*setup)(cb_inst_t *in, char *why, size_t n);
  void (*run)(cb_inst_t *in, int phase, cudaStream_t s);
  long long (*check)(cb_inst_t *in, cudaStream_t s, uint64_t seed, int iter);
  void (*bytes)(const cb_inst_t *in, int phase, cb_bytes_t *out);
  void (*teardown)(cb_inst_t *in);
  void (*measure)(cb_inst_t *in, cudaStream_t s); /* NULL: nothing extra */
  /* Optional: one line for the run header (e.g. auto's thresholds). */
  void (*describe)(const cb_world_t *w, char *buf, size_t n);
} cb_algo_t;

#define CB_DT(t) (1u << (t))
#define CB_ALL_DTYPES ((1u << CB_NDTYPES) - 1u) /* every cb_dtype_t: NCCL's types */
#define CB_OPB(o) (1u << (o))
#define CB_ALL_OPS ((1u << CB_NREDOPS) - 1u) /* every cb_redop_t: sum, max, min, avg, prod */

/* The registry (registry.c). */
extern const cb_algo_t *const cb_registry[];
const cb_algo_t *cb_algo_find(cb_family_t f, const char *name);
/* "nccl, oneshot, twoshot": the names of family f, for messages. */
void cb_algo_names(cb_family_t f, char *buf, size_t n);

/* The generic check (check.c): fill inputs from (seed, rank, iter), poison outputs, run every
 * phase, verify against the expected values of the family's layout; logs the first mismatch to
 * stderr. Returns the number of wrong elements on this rank. */
long long cb_check_generic(cb_inst_t *in, cudaStream_t s, uint64_t seed, int iter);

/* The family's nccl-tests byte accounting (family.h), for bytes == NULL. */
void cb_bytes_default(const cb_inst_t *in, int phase, cb_bytes_t *out);

/* Common supported() for custom peer-memory algorithms (peer.c): one node, at most
 * CB_MAX_RANKS ranks, and the peer-access probe passed. */
int cb_peer_supported(const cb_world_t *w, char *why, size_t n);
/* The same with the supported() signature. */
int cb_peer_supported_params(const cb_world_t *w, const cb_params_t *p, char *why, size_t n);
/* Common supported() part of the hierarchical (multi-node) algorithms (peer.c): two or more
 * nodes (on one node `one_node` names the algorithm to use instead), the same rank count on
 * every node, at most CB_MAX_RANKS per node, peer access inside each node. */
int cb_hier_supported(const cb_world_t *w, const char *one_node, char *why, size_t n);

#endif
