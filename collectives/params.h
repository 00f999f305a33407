/* One sweep point's parameters, as the bench engine hands them to an algorithm and to its
 * family's describer (family.h), and an algorithm's byte accounting at that point. CUDA-free,
 * so the describers and the CPU tests use them without the CUDA headers; collective.h builds
 * the algorithm interface on top. What point, variant and config mean is the family's own:
 * its describer and its algorithms read them through accessors (moe_family.h, attn_family.h). */
#ifndef CB_PARAMS_H
#define CB_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "family.h"

typedef struct cb_params {
  cb_family_t family;
  cb_dtype_t dtype;
  cb_redop_t op;   /* CB_OP_NONE for families that do not reduce */
  uint64_t bytes;  /* the size column (family.h; the family's plan() sets it) */
  size_t elements; /* elements of the per-rank buffer the size refers to */
  size_t count;    /* the count column (family.h) */
  int inplace;
  int graph;          /* the timed loop will be captured in a CUDA graph */
  uint64_t point;     /* the sweep point, in the family's unit: bytes, tokens per rank, total sequence length */
  int variant;        /* the family's form at this point (family.h nvariants; 0 for a family with one) */
  const void *config; /* the family's configuration (its options; NULL for a family without one) */
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

#endif
