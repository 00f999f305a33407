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

#include "attn_config.h"
#include "dtype.h"
#include "family.h"
#include "moe_config.h"
#include "world.h"

#define CB_MAX_PHASES 4
#define CB_SMS_COPY_ENGINE (-1) /* cb_inst_t.sms of a copy-engine-only algorithm: reported as 0 */

typedef struct cb_params {
  cb_family_t family;
  cb_dtype_t dtype;
  cb_redop_t op;   /* CB_OP_NONE for families that do not reduce */
  uint64_t bytes;  /* the size column (family.h) */
  size_t elements; /* elements of the per-rank buffer the size refers to */
  size_t count;    /* the count column (family.h) */
  int inplace;
  int graph;       /* the timed loop will be captured in a CUDA graph */
  uint64_t tokens; /* moe: tokens per rank at this sweep point */
  const cb_moe_config_t *moe;
  uint64_t seq; /* ringattn: total sequence length at this sweep point */
  int causal;   /* ringattn: 1 = causal (zigzag sharding) */
  int variant;  /* ringattn: the group's form, causal, layout and Ulysses degree (attn_variant.h) */
  const cb_attn_config_t *attn;
  uint64_t seed;
} cb_params_t;

typedef struct cb_bytes {
  double algbw_bytes;  /* bytes over time = algbw */
  double busbw_factor; /* busbw = algbw * factor */
  double remote_bytes; /* bytes that crossed to another GPU (moe; 0 = not reported) */
  /* moe hier: bytes per rank over the network and over NVLink (the net_bytes and nvlink_bytes
   * columns; link_bytes = 0: not reported) */
  int link_bytes;
  double net_bytes, nvlink_bytes;
} cb_bytes_t;

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
  double imbalance;          /* moe: max/mean received tokens (0 = not applicable) */
  char note[256];            /* informational note for the row (e.g. auto's choice) */
  unsigned long long digest; /* hash of the last checked output (cross-rank equality) */
  /* ringattn (set by check and measure; the engine reports the max over ranks) */
  double err_max, err_mean;   /* absolute error of the output against the fp32 reference */
  double compute_us, comm_us; /* one forward's attention kernels alone; its K/V transfers alone */
  double local_us;            /* the local kernel alone on one S/P block (ring_over_single) */
  double flops;               /* this rank's FLOPs in one forward (TFLOP/s per GPU) */
  void *priv;                 /* the algorithm's own state */
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
#define CB_ALL_DTYPES (CB_DT(CB_FLOAT) | CB_DT(CB_HALF) | CB_DT(CB_BF16) | CB_DT(CB_FP8E4M3) | CB_DT(CB_FP8E5M2))
#define CB_OPB(o) (1u << (o))
#define CB_ALL_OPS (CB_OPB(CB_SUM) | CB_OPB(CB_MAX) | CB_OPB(CB_MIN) | CB_OPB(CB_AVG))

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
