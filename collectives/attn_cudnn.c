/* cuDNN's fused attention as a block kernel (attn_cudnn.h), against the cuDNN 9 backend API in
 * C (cudnn_graph.h): descriptors made, set and finalized one attribute at a time, as the
 * backend documentation describes; no cudnn-frontend. The graph's structure is the one
 * cuDNN's SDPA engines recognize (attn_cudnn.h); the tensor and operation settings follow what
 * cudnn-frontend sets for them (fp32 compute and intermediates, 16-byte alignment, by-value
 * scalars for the scale and the mask's -inf, the softmax output P in the input dtype). */
#include "attn_cudnn.h"

#include <cudnn_graph.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "error_gpu.h"

/* descriptors one plan owns: ~20 tensors, 2 per operation (~15), the graph, the engine
 * heuristics and their configurations (MAX_CONFIGS per mode, 2 modes) */
#define MAX_DESCS 96
#define MAX_OPS 20
#define MAX_CONFIGS 8
#define ALIGNMENT 16 /* bytes: every buffer is cudaMalloc'ed; row offsets are heads x d x 2 bytes */

typedef cudnnBackendDescriptor_t desc_t;

typedef struct plan {
  desc_t exec;
  desc_t owned[MAX_DESCS]; /* everything the plan's graph was made of, kept alive with it */
  int nowned;
  int64_t workspace;
} plan_t;

struct cb_cudnn {
  cudnnHandle_t handle;
  cb_cudnn_cache_t cache; /* plans as plan_t * */
  void *workspace;
  size_t workspace_bytes;
};

/* Tensor ids of the variant pack; virtual tensors count up from UID_VIRTUAL. */
enum { UID_Q = 1, UID_K, UID_V, UID_O, UID_STATS, UID_SCALE, UID_NEG_INF, UID_VIRTUAL = 100 };

static void check_cudnn(cudnnStatus_t st, const char *call, const char *file, int line) {
  if (st == CUDNN_STATUS_SUCCESS) return;
  char last[512] = "";
  cudnnGetLastErrorString(last, sizeof last);
  cb_fatal(CB_EXIT_RUNTIME, file, line, "%s failed: %s (%s)", call, cudnnGetErrorString(st),
           last[0] ? last : "cuDNN gave no detail");
}
#define CB_CUDNN(call) check_cudnn((call), #call, __FILE__, __LINE__)
#define SET(d, attr, type, count, value) CB_CUDNN(cudnnBackendSetAttribute((d), (attr), (type), (count), (value)))

/* The non-fatal form, for what a shape may legitimately fail (graph, heuristics, plan). */
static int try_cudnn(cudnnStatus_t st, const char *what, char *why, size_t n) {
  if (st == CUDNN_STATUS_SUCCESS) return 0;
  char last[384] = "";
  cudnnGetLastErrorString(last, sizeof last);
  snprintf(why, n, "%s: %s%s%s", what, cudnnGetErrorString(st), last[0] ? ": " : "", last);
  return -1;
}

int cb_cudnn_version(char *buf, size_t n) {
  const size_t v = cudnnGetVersion();
  snprintf(buf, n, "%zu.%zu.%zu (headers %d.%d.%d)", v / 10000, v / 100 % 100, v % 100, CUDNN_MAJOR, CUDNN_MINOR,
           CUDNN_PATCHLEVEL);
  return 1;
}

int cb_cudnn_available(char *why, size_t n) {
  (void)why, (void)n;
  return 1;
}

/* ---- the graph ---------------------------------------------------------------------------- */

typedef struct graph {
  plan_t *p;
  desc_t ops[MAX_OPS];
  int nops;
  int64_t next_uid;
} graph_t;

static desc_t own(graph_t *g, cudnnBackendDescriptorType_t type) {
  if (g->p->nowned == MAX_DESCS) CB_DIE(CB_EXIT_RUNTIME, "cuDNN attention graph: more than %d descriptors", MAX_DESCS);
  desc_t d;
  CB_CUDNN(cudnnBackendCreateDescriptor(type, &d));
  g->p->owned[g->p->nowned++] = d;
  return d;
}

static desc_t tensor(graph_t *g, int64_t uid, cudnnDataType_t dt, const int64_t *dim, const int64_t *stride,
                     bool is_virtual, bool by_value) {
  const int64_t align = ALIGNMENT;
  desc_t t = own(g, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  SET(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
  SET(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dim);
  SET(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, stride);
  SET(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
  SET(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
  SET(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &is_virtual);
  if (by_value) SET(t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value);
  CB_CUDNN(cudnnBackendFinalize(t));
  return t;
}

static desc_t virtual_tensor(graph_t *g, cudnnDataType_t dt, const int64_t *dim, const int64_t *stride) {
  return tensor(g, g->next_uid++, dt, dim, stride, true, false);
}

static void add_op(graph_t *g, desc_t op) {
  if (g->nops == MAX_OPS) CB_DIE(CB_EXIT_RUNTIME, "cuDNN attention graph: more than %d operations", MAX_OPS);
  CB_CUDNN(cudnnBackendFinalize(op));
  g->ops[g->nops++] = op;
}

/* y = mode(x [, b [, t]]); axis: GEN_INDEX's dimension. */
static void pointwise(graph_t *g, cudnnPointwiseMode_t mode, cudnnDataType_t prec, desc_t x, desc_t b, desc_t t,
                      desc_t y, int64_t axis) {
  const float one = 1.0f;
  desc_t pw = own(g, CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  SET(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
  SET(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec);
  if (mode == CUDNN_POINTWISE_GEN_INDEX) SET(pw, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis);
  CB_CUDNN(cudnnBackendFinalize(pw));
  desc_t op = own(g, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  SET(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw);
  SET(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  if (b) SET(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
  if (t) SET(op, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t);
  SET(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
  SET(op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, 1, &one);
  SET(op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, 1, &one);
  add_op(g, op);
}

static void matmul(graph_t *g, desc_t a, desc_t b, desc_t c) {
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  desc_t mm = own(g, CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  SET(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32);
  CB_CUDNN(cudnnBackendFinalize(mm));
  desc_t op = own(g, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  SET(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a);
  SET(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
  SET(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
  SET(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &mm);
  add_op(g, op);
}

/* y = reduction of x over the dimensions where y has extent 1 (here: the keys) */
static void reduction(graph_t *g, cudnnReduceTensorOp_t red, desc_t x, desc_t y) {
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  desc_t rd = own(g, CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
  SET(rd, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &red);
  SET(rd, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32);
  CB_CUDNN(cudnnBackendFinalize(rd));
  desc_t op = own(g, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
  SET(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  SET(op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
  SET(op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &rd);
  add_op(g, op);
}

/* The SDPA forward with statistics (attn_cudnn.h), dims [b, h, s, d] over BSHD memory. */
static void sdpa_ops(graph_t *g, const cb_cudnn_key_t *k) {
  const int64_t b = k->batch, h = k->heads, hk = k->kv_heads, d = k->head_dim, sq = k->q_len, skv = k->kv_len;
  const int64_t qs = k->q_stride_rows, ks = k->kv_stride_rows;
  const cudnnDataType_t io = k->bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF, f32 = CUDNN_DATA_FLOAT;
  const int64_t q_dim[4] = {b, h, sq, d}, q_str[4] = {qs * h * d, d, h * d, 1};
  const int64_t kt_dim[4] = {b, hk, d, skv}, kt_str[4] = {ks * hk * d, d, 1, hk * d}; /* K^T: a view of K */
  const int64_t v_dim[4] = {b, hk, skv, d}, v_str[4] = {ks * hk * d, d, hk * d, 1};
  const int64_t o_str[4] = {sq * h * d, d, h * d, 1};
  const int64_t s_dim[4] = {b, h, sq, skv}, s_str[4] = {h * sq * skv, sq * skv, skv, 1};
  const int64_t r_dim[4] = {b, h, sq, 1}, r_str[4] = {h * sq, sq, 1, 1}; /* per query row */
  const int64_t one[4] = {1, 1, 1, 1};
  desc_t q = tensor(g, UID_Q, io, q_dim, q_str, false, false);
  desc_t kt = tensor(g, UID_K, io, kt_dim, kt_str, false, false);
  desc_t v = tensor(g, UID_V, io, v_dim, v_str, false, false);
  desc_t o = tensor(g, UID_O, io, q_dim, o_str, false, false);
  desc_t stats = tensor(g, UID_STATS, f32, r_dim, r_str, false, false);
  desc_t scale = tensor(g, UID_SCALE, f32, one, one, false, true);

  desc_t s = virtual_tensor(g, f32, s_dim, s_str);
  matmul(g, q, kt, s);
  desc_t scaled = virtual_tensor(g, f32, s_dim, s_str);
  pointwise(g, CUDNN_POINTWISE_MUL, f32, s, scale, NULL, scaled, 0);
  desc_t masked = scaled;
  if (k->causal) { /* top left: query row i sees key rows 0..i */
    desc_t neg_inf = tensor(g, UID_NEG_INF, f32, one, one, false, true);
    desc_t row = virtual_tensor(g, CUDNN_DATA_INT32, s_dim, s_str);
    desc_t col = virtual_tensor(g, CUDNN_DATA_INT32, s_dim, s_str);
    desc_t visible = virtual_tensor(g, CUDNN_DATA_BOOLEAN, s_dim, s_str);
    masked = virtual_tensor(g, f32, s_dim, s_str);
    pointwise(g, CUDNN_POINTWISE_GEN_INDEX, f32, scaled, NULL, NULL, row, 2);
    pointwise(g, CUDNN_POINTWISE_GEN_INDEX, f32, scaled, NULL, NULL, col, 3);
    pointwise(g, CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, row, col, NULL, visible, 0);
    pointwise(g, CUDNN_POINTWISE_BINARY_SELECT, f32, scaled, neg_inf, visible, masked, 0);
  }
  desc_t max = virtual_tensor(g, f32, r_dim, r_str), sub = virtual_tensor(g, f32, s_dim, s_str);
  desc_t e = virtual_tensor(g, f32, s_dim, s_str), sum = virtual_tensor(g, f32, r_dim, r_str);
  desc_t log_sum = virtual_tensor(g, f32, r_dim, r_str), p = virtual_tensor(g, io, s_dim, s_str);
  reduction(g, CUDNN_REDUCE_TENSOR_MAX, masked, max);
  pointwise(g, CUDNN_POINTWISE_SUB, f32, masked, max, NULL, sub, 0);
  pointwise(g, CUDNN_POINTWISE_EXP, f32, sub, NULL, NULL, e, 0);
  reduction(g, CUDNN_REDUCE_TENSOR_ADD, e, sum);
  pointwise(g, CUDNN_POINTWISE_LOG, f32, sum, NULL, NULL, log_sum, 0);
  pointwise(g, CUDNN_POINTWISE_ADD, f32, max, log_sum, NULL, stats, 0);
  pointwise(g, CUDNN_POINTWISE_DIV, f32, e, sum, NULL, p, 0);
  matmul(g, p, v, o);
}

/* ---- plans -------------------------------------------------------------------------------- */

static void plan_free(plan_t *p) {
  if (p->exec) CB_CUDNN(cudnnBackendDestroyDescriptor(p->exec));
  for (int i = p->nowned - 1; i >= 0; i--) CB_CUDNN(cudnnBackendDestroyDescriptor(p->owned[i]));
  free(p);
}

/* The first engine configuration of the heuristics (mode A, then the fallback list) whose
 * plan finalizes. Returns 0, or -1 with the last failure in why. */
static int pick_engine(cudnnHandle_t handle, graph_t *g, desc_t opgraph, char *why, size_t n) {
  const cudnnBackendHeurMode_t modes[2] = {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK};
  snprintf(why, n, "the heuristics listed no engine");
  for (int m = 0; m < 2; m++) {
    desc_t heur = own(g, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    SET(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &opgraph);
    SET(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &modes[m]);
    if (try_cudnn(cudnnBackendFinalize(heur), "engine heuristics", why, n)) continue;
    int64_t count = 0;
    CB_CUDNN(
        cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, NULL));
    if (count > MAX_CONFIGS) count = MAX_CONFIGS;
    desc_t cfg[MAX_CONFIGS];
    for (int64_t i = 0; i < count; i++) cfg[i] = own(g, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    int64_t got = 0;
    if (count)
      CB_CUDNN(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got,
                                        cfg));
    for (int64_t i = 0; i < got; i++) {
      desc_t plan;
      CB_CUDNN(cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
      SET(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
      SET(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg[i]);
      if (try_cudnn(cudnnBackendFinalize(plan), "execution plan", why, n) == 0) {
        int64_t one = 0;
        g->p->exec = plan;
        CB_CUDNN(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &one,
                                          &g->p->workspace));
        return 0;
      }
      CB_CUDNN(cudnnBackendDestroyDescriptor(plan));
    }
  }
  return -1;
}

int cb_cudnn_create(cb_cudnn_t **ctx, char *why, size_t n) {
  *ctx = NULL;
  /* libcudnn.so loads its graph library by name: one from another cuDNN on the loader's path
   * (LD_LIBRARY_PATH should name CUDNN_ROOT's lib) is caught here, not as wrong results */
  if (try_cudnn(cudnnGraphVersionCheck(), "cudnnGraphVersionCheck (cuDNN's libraries disagree on the version)", why, n))
    return -1;
  cb_cudnn_t *c = calloc(1, sizeof *c);
  if (!c) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  cudnnStatus_t st = cudnnCreate(&c->handle);
  if (try_cudnn(st, "cudnnCreate", why, n)) {
    free(c);
    return -1;
  }
  *ctx = c;
  return 0;
}

void cb_cudnn_destroy(cb_cudnn_t *c) {
  if (!c) return;
  for (int i = 0; i < c->cache.n; i++) plan_free(c->cache.plan[i]);
  if (c->workspace) CB_CUDA(cudaFree(c->workspace));
  CB_CUDNN(cudnnDestroy(c->handle));
  free(c);
}

size_t cb_cudnn_mem(const cb_cudnn_t *c) { return c ? c->workspace_bytes : 0; }

int cb_cudnn_prepare(cb_cudnn_t *c, const cb_cudnn_key_t *k, char *why, size_t n) {
  if (cb_cudnn_cache_find(&c->cache, k)) return 0;
  plan_t *p = calloc(1, sizeof *p);
  if (!p) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  graph_t g = {.p = p, .nops = 0, .next_uid = UID_VIRTUAL};
  sdpa_ops(&g, k);
  desc_t opgraph = own(&g, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  SET(opgraph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, g.nops, g.ops);
  SET(opgraph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &c->handle);
  char e[512] = "", shape[160];
  cb_cudnn_key_text(k, shape, sizeof shape);
  if (try_cudnn(cudnnBackendFinalize(opgraph), "operation graph", e, sizeof e) ||
      pick_engine(c->handle, &g, opgraph, e, sizeof e)) {
    snprintf(why, n, "not supported: cuDNN has no engine for %s (%s)", shape, e);
    plan_free(p);
    return -1;
  }
  if ((size_t)p->workspace > c->workspace_bytes) {
    char ce[200] = "";
    if (c->workspace) CB_CUDA(cudaFree(c->workspace));
    c->workspace = NULL;
    c->workspace_bytes = 0;
    if (CB_TRY_CUDA(cudaMalloc(&c->workspace, (size_t)p->workspace), ce, sizeof ce)) {
      snprintf(why, n, "cuDNN workspace of %lld bytes for %s: %s", (long long)p->workspace, shape, ce);
      c->workspace = NULL;
      plan_free(p);
      return -1;
    }
    c->workspace_bytes = (size_t)p->workspace;
  }
  if (cb_cudnn_cache_add(&c->cache, k, p, why, n)) {
    plan_free(p);
    return -1;
  }
  return 0;
}

void cb_cudnn_attend(cb_cudnn_t *c, const cb_cudnn_key_t *k, float scale, const void *q, const void *kk, const void *v,
                     void *o, float *stats, cudaStream_t s) {
  plan_t *p = cb_cudnn_cache_find(&c->cache, k);
  if (!p) {
    char shape[160];
    cb_cudnn_key_text(k, shape, sizeof shape);
    CB_DIE(CB_EXIT_RUNTIME, "cuDNN attention: no plan for %s (setup did not prepare this shape)", shape);
  }
  /* by-value scalars: cuDNN reads them from host memory while it enqueues */
  const float neg_inf = -INFINITY;
  int64_t uids[7] = {UID_Q, UID_K, UID_V, UID_O, UID_STATS, UID_SCALE, UID_NEG_INF};
  void *ptrs[7] = {(void *)q, (void *)kk, (void *)v, o, stats, &scale, (void *)&neg_inf};
  const int64_t nt = k->causal ? 7 : 6;
  CB_CUDNN(cudnnSetStream(c->handle, s));
  desc_t pack;
  CB_CUDNN(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
  SET(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, nt, uids);
  SET(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, nt, ptrs);
  SET(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &c->workspace);
  CB_CUDNN(cudnnBackendFinalize(pack));
  CB_CUDNN(cudnnBackendExecute(c->handle, p->exec, pack));
  CB_CUDNN(cudnnBackendDestroyDescriptor(pack));
}
