/* The cuDNN 9 backend API (C, cudnn_graph.h) as the two attention graphs need it: the context
 * of attn_cudnn.h (handle, plan cache, one workspace), tensors and operations made, set and
 * finalized one attribute at a time as the backend documentation describes (no cudnn-frontend),
 * the engine choice, the plan's build and its execution. The graphs themselves live in
 * attn_cudnn.c (SDPA forward with statistics) and attn_cudnn_bwd.c (SDPA backward).
 *
 * Settings follow what cudnn-frontend sets for its SDPA nodes: fp32 compute and intermediates,
 * 16-byte alignment, by-value scalars (scale, 1, the mask's -inf) read from host memory while
 * the plan is enqueued.
 *
 * Workspace: one allocation per context, the largest any plan needs: the engine's workspace,
 * then (256-byte aligned) the plan's own extra bytes, tensors the graph materializes that the
 * caller never sees (the backward's dQ accumulator and rowsum(dO * O), as cudnn-frontend puts
 * them in its workspace). Only built with cuDNN (CMake: CB_HAVE_CUDNN). */
#ifndef CB_ATTN_CUDNN_GRAPH_H
#define CB_ATTN_CUDNN_GRAPH_H

#include <cudnn_graph.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attn_cudnn.h"

/* descriptors one plan owns: ~30 tensors, 2 per operation (~25 in the backward), the graph,
 * the engine heuristics and their configurations (MAX_CONFIGS per mode, 2 modes) */
#define CB_CUDNN_MAX_DESCS 128
#define CB_CUDNN_MAX_OPS 32
#define CB_CUDNN_WS_ALIGN 256    /* bytes between the engine's workspace and the extra tensors */
#define CB_CUDNN_UID_VIRTUAL 100 /* virtual tensors' ids count up from here; a graph's own use 1..99 */

/* bytes rounded up to CB_CUDNN_WS_ALIGN: where the extra tensors start after the engine's
 * workspace, and between them (the one formula both sides of that layout use) */
static inline int64_t cb_cudnn_ws_align(int64_t bytes) {
  return (bytes + CB_CUDNN_WS_ALIGN - 1) / CB_CUDNN_WS_ALIGN * CB_CUDNN_WS_ALIGN;
}

typedef cudnnBackendDescriptor_t cb_cudnn_desc_t;

typedef struct cb_cudnn_plan {
  cb_cudnn_desc_t exec;
  cb_cudnn_desc_t owned[CB_CUDNN_MAX_DESCS]; /* everything the plan's graph was made of, kept alive with it */
  int nowned;
  int64_t workspace; /* the engine's */
  int64_t extra;     /* the graph's materialized tensors, after the engine's workspace */
} cb_cudnn_plan_t;

struct cb_cudnn {
  cudnnHandle_t handle;
  cb_cudnn_cache_t cache; /* plans as cb_cudnn_plan_t * */
  void *workspace;
  size_t workspace_bytes;
};

/* A graph under construction: its plan (which owns the descriptors) and operations. */
typedef struct cb_cudnn_graph {
  cb_cudnn_plan_t *p;
  cb_cudnn_desc_t ops[CB_CUDNN_MAX_OPS];
  int nops;
  int64_t next_uid; /* virtual tensors' ids */
} cb_cudnn_graph_t;

/* The dims and strides both SDPA graphs use, [b, h, s, d] over BSHD memory: the key's rows of
 * buffers with q_stride_rows / kv_stride_rows rows (Q, K, V, and O, dO in the backward), the
 * packed outputs (the forward's O, dQ, dK, dV), the scores and the per-row statistics. */
typedef struct cb_cudnn_sdpa_shape {
  cudnnDataType_t io;           /* the inputs' dtype */
  int64_t q_dim[4], q_str[4];   /* Q: rows of the query buffer */
  int64_t q_out_str[4];         /* a packed [b, s_q, h, d] output of Q's dims */
  int64_t kt_dim[4], kt_str[4]; /* K^T (V^T): a view of K */
  int64_t kv_dim[4], kv_str[4]; /* K, V: rows of the key buffer */
  int64_t kv_out_str[4];        /* a packed [b, s_kv, h_kv, d] output of K's dims */
  int64_t s_dim[4], s_str[4];   /* scores [b, h, s_q, s_kv] */
  int64_t r_dim[4], r_str[4];   /* per query row [b, h, s_q, 1] */
  int64_t one[4];               /* a scalar's dims and strides */
} cb_cudnn_sdpa_shape_t;
cb_cudnn_sdpa_shape_t cb_cudnn_sdpa_shape(const cb_cudnn_key_t *k);

/* A failed cuDNN call ends the job with the call, cudnnGetErrorString and cudnnGetLastErrorString. */
void cb_cudnn_check(cudnnStatus_t st, const char *call, const char *file, int line);
#define CB_CUDNN(call) cb_cudnn_check((call), #call, __FILE__, __LINE__)
/* The non-fatal form, for what a shape may legitimately fail (graph, heuristics, plan): 0, or
 * -1 with "what: error: detail" in why. */
int cb_cudnn_try(cudnnStatus_t st, const char *what, char *why, size_t n);
/* "9.19.0": the version of the cuDNN library this process loaded (cudnnGetVersion). */
void cb_cudnn_loaded(char *buf, size_t n);

/* A finalized tensor descriptor [4 dims, strides]; virtual ones get the next free id. */
cb_cudnn_desc_t cb_cudnn_tensor(cb_cudnn_graph_t *g, int64_t uid, cudnnDataType_t dt, const int64_t *dim,
                                const int64_t *stride, bool is_virtual, bool by_value);
cb_cudnn_desc_t cb_cudnn_virtual(cb_cudnn_graph_t *g, cudnnDataType_t dt, const int64_t *dim, const int64_t *stride);

/* Operations, each finalized and added to the graph. */
/* y = mode(x [, b [, t]]); axis: GEN_INDEX's dimension */
void cb_cudnn_pointwise(cb_cudnn_graph_t *g, cudnnPointwiseMode_t mode, cudnnDataType_t prec, cb_cudnn_desc_t x,
                        cb_cudnn_desc_t b, cb_cudnn_desc_t t, cb_cudnn_desc_t y, int64_t axis);
void cb_cudnn_matmul(cb_cudnn_graph_t *g, cb_cudnn_desc_t a, cb_cudnn_desc_t b, cb_cudnn_desc_t c); /* fp32 compute */
/* y = reduction of x over the dimensions where y is smaller (1: all of it; a divisor: groups) */
void cb_cudnn_reduction(cb_cudnn_graph_t *g, cudnnReduceTensorOp_t red, cb_cudnn_desc_t x, cb_cudnn_desc_t y);
void cb_cudnn_reshape(cb_cudnn_graph_t *g, cb_cudnn_desc_t x, cb_cudnn_desc_t y); /* a view: y's dims/strides */
/* The top-left causal mask of scores x [b, h, s_q, s_kv] (dim, stride): row >= col ? x : -inf, as
 * cudnn-frontend's diagonal band mask with right bound 0 (GEN_INDEX of both axes, CMP_GE,
 * BINARY_SELECT), the -inf a by-value scalar of id uid_neg_inf. Returns the masked scores. */
cb_cudnn_desc_t cb_cudnn_causal_mask(cb_cudnn_graph_t *g, cb_cudnn_desc_t x, int64_t uid_neg_inf, const int64_t *dim,
                                     const int64_t *stride);

/* Builds the plan of k with build(g, k) adding the graph's operations and extra(k) the bytes of
 * its materialized tensors (NULL: none), grows the context's workspace to what it needs and
 * caches the plan; nothing when the cache has k. Returns 0, or -1 with why ("not supported:
 * cuDNN has no engine for <shape> (...)", or the workspace out of memory). */
int cb_cudnn_build(cb_cudnn_t *c, const cb_cudnn_key_t *k, void (*build)(cb_cudnn_graph_t *g, const cb_cudnn_key_t *k),
                   int64_t (*extra)(const cb_cudnn_key_t *k), char *why, size_t n);

/* The prepared plan of k; a shape setup did not prepare ends the job (an internal error). */
const cb_cudnn_plan_t *cb_cudnn_plan_of(const cb_cudnn_t *c, const cb_cudnn_key_t *k);

/* The extra tensors' region of the workspace (cb_cudnn_build's layout). */
char *cb_cudnn_extra_base(const cb_cudnn_t *c, const cb_cudnn_plan_t *p);

/* Enqueues plan p on s with the variant pack (nt ids and their pointers). */
void cb_cudnn_execute(cb_cudnn_t *c, const cb_cudnn_plan_t *p, int64_t nt, const int64_t *uids, void *const *ptrs,
                      cudaStream_t s);

#endif
