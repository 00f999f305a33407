/* The cuDNN backend toolkit of the attention graphs and the context of attn_cudnn.h
 * (attn_cudnn_graph.h). */
#include "attn_cudnn_graph.h"

#include <stdio.h>
#include <stdlib.h>

#include "error_gpu.h"

#define SET(d, attr, type, count, value) CB_CUDNN(cudnnBackendSetAttribute((d), (attr), (type), (count), (value)))
#define ALIGNMENT 16 /* bytes: every buffer is cudaMalloc'ed; row offsets are heads x d x 2 bytes */
#define MAX_CONFIGS 8

void cb_cudnn_check(cudnnStatus_t st, const char *call, const char *file, int line) {
  if (st == CUDNN_STATUS_SUCCESS) return;
  char last[512] = "";
  cudnnGetLastErrorString(last, sizeof last);
  cb_fatal(CB_EXIT_RUNTIME, file, line, "%s failed: %s (%s)", call, cudnnGetErrorString(st),
           last[0] ? last : "cuDNN gave no detail");
}

int cb_cudnn_try(cudnnStatus_t st, const char *what, char *why, size_t n) {
  if (st == CUDNN_STATUS_SUCCESS) return 0;
  char last[384] = "";
  cudnnGetLastErrorString(last, sizeof last);
  snprintf(why, n, "%s: %s%s%s", what, cudnnGetErrorString(st), last[0] ? ": " : "", last);
  return -1;
}

void cb_cudnn_loaded(char *buf, size_t n) {
  const size_t v = cudnnGetVersion();
  snprintf(buf, n, "%zu.%zu.%zu", v / 10000, v / 100 % 100, v % 100);
}

int cb_cudnn_version(char *buf, size_t n) {
  char loaded[32];
  cb_cudnn_loaded(loaded, sizeof loaded);
  snprintf(buf, n, "%s (headers %d.%d.%d)", loaded, CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL);
  return 1;
}

int cb_cudnn_available(char *why, size_t n) {
  (void)why, (void)n;
  return 1;
}

/* ---- descriptors and operations ----------------------------------------------------------- */

static cb_cudnn_desc_t own(cb_cudnn_graph_t *g, cudnnBackendDescriptorType_t type) {
  if (g->p->nowned == CB_CUDNN_MAX_DESCS)
    CB_DIE(CB_EXIT_RUNTIME, "cuDNN attention graph: more than %d descriptors", CB_CUDNN_MAX_DESCS);
  cb_cudnn_desc_t d;
  CB_CUDNN(cudnnBackendCreateDescriptor(type, &d));
  g->p->owned[g->p->nowned++] = d;
  return d;
}

cb_cudnn_desc_t cb_cudnn_tensor(cb_cudnn_graph_t *g, int64_t uid, cudnnDataType_t dt, const int64_t *dim,
                                const int64_t *stride, bool is_virtual, bool by_value) {
  const int64_t align = ALIGNMENT;
  cb_cudnn_desc_t t = own(g, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
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

cb_cudnn_sdpa_shape_t cb_cudnn_sdpa_shape(const cb_cudnn_key_t *k) {
  const int64_t b = k->batch, h = k->heads, hk = k->kv_heads, d = k->head_dim, sq = k->q_len, skv = k->kv_len;
  const int64_t qs = k->q_stride_rows, ks = k->kv_stride_rows;
  return (cb_cudnn_sdpa_shape_t){
      .io = k->bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF,
      .q_dim = {b, h, sq, d},
      .q_str = {qs * h * d, d, h * d, 1},
      .q_out_str = {sq * h * d, d, h * d, 1},
      .kt_dim = {b, hk, d, skv},
      .kt_str = {ks * hk * d, d, 1, hk * d},
      .kv_dim = {b, hk, skv, d},
      .kv_str = {ks * hk * d, d, hk * d, 1},
      .kv_out_str = {skv * hk * d, d, hk * d, 1},
      .s_dim = {b, h, sq, skv},
      .s_str = {h * sq * skv, sq * skv, skv, 1},
      .r_dim = {b, h, sq, 1},
      .r_str = {h * sq, sq, 1, 1},
      .one = {1, 1, 1, 1},
  };
}

cb_cudnn_desc_t cb_cudnn_virtual(cb_cudnn_graph_t *g, cudnnDataType_t dt, const int64_t *dim, const int64_t *stride) {
  return cb_cudnn_tensor(g, g->next_uid++, dt, dim, stride, true, false);
}

static void add_op(cb_cudnn_graph_t *g, cb_cudnn_desc_t op) {
  if (g->nops == CB_CUDNN_MAX_OPS)
    CB_DIE(CB_EXIT_RUNTIME, "cuDNN attention graph: more than %d operations", CB_CUDNN_MAX_OPS);
  CB_CUDNN(cudnnBackendFinalize(op));
  g->ops[g->nops++] = op;
}

void cb_cudnn_pointwise(cb_cudnn_graph_t *g, cudnnPointwiseMode_t mode, cudnnDataType_t prec, cb_cudnn_desc_t x,
                        cb_cudnn_desc_t b, cb_cudnn_desc_t t, cb_cudnn_desc_t y, int64_t axis) {
  const float one = 1.0f;
  cb_cudnn_desc_t pw = own(g, CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  SET(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
  SET(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec);
  if (mode == CUDNN_POINTWISE_GEN_INDEX) SET(pw, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis);
  CB_CUDNN(cudnnBackendFinalize(pw));
  cb_cudnn_desc_t op = own(g, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  SET(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw);
  SET(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  if (b) SET(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
  if (t) SET(op, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t);
  SET(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
  SET(op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, 1, &one);
  SET(op, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, 1, &one);
  add_op(g, op);
}

void cb_cudnn_matmul(cb_cudnn_graph_t *g, cb_cudnn_desc_t a, cb_cudnn_desc_t b, cb_cudnn_desc_t c) {
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  cb_cudnn_desc_t mm = own(g, CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  SET(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32);
  CB_CUDNN(cudnnBackendFinalize(mm));
  cb_cudnn_desc_t op = own(g, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  SET(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a);
  SET(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
  SET(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
  SET(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &mm);
  add_op(g, op);
}

void cb_cudnn_reduction(cb_cudnn_graph_t *g, cudnnReduceTensorOp_t red, cb_cudnn_desc_t x, cb_cudnn_desc_t y) {
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  cb_cudnn_desc_t rd = own(g, CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
  SET(rd, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &red);
  SET(rd, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32);
  CB_CUDNN(cudnnBackendFinalize(rd));
  cb_cudnn_desc_t op = own(g, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
  SET(op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  SET(op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
  SET(op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &rd);
  add_op(g, op);
}

void cb_cudnn_reshape(cb_cudnn_graph_t *g, cb_cudnn_desc_t x, cb_cudnn_desc_t y) {
  cb_cudnn_desc_t op = own(g, CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
  SET(op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  SET(op, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
  add_op(g, op);
}

cb_cudnn_desc_t cb_cudnn_causal_mask(cb_cudnn_graph_t *g, cb_cudnn_desc_t x, int64_t uid_neg_inf, const int64_t *dim,
                                     const int64_t *stride) {
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  const int64_t one[4] = {1, 1, 1, 1};
  cb_cudnn_desc_t neg_inf = cb_cudnn_tensor(g, uid_neg_inf, f32, one, one, false, true);
  cb_cudnn_desc_t row = cb_cudnn_virtual(g, CUDNN_DATA_INT32, dim, stride);
  cb_cudnn_desc_t col = cb_cudnn_virtual(g, CUDNN_DATA_INT32, dim, stride);
  cb_cudnn_desc_t visible = cb_cudnn_virtual(g, CUDNN_DATA_BOOLEAN, dim, stride);
  cb_cudnn_desc_t masked = cb_cudnn_virtual(g, f32, dim, stride);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_GEN_INDEX, f32, x, NULL, NULL, row, 2);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_GEN_INDEX, f32, x, NULL, NULL, col, 3);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, row, col, NULL, visible, 0);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_BINARY_SELECT, f32, x, neg_inf, visible, masked, 0);
  return masked;
}

/* ---- plans -------------------------------------------------------------------------------- */

static void plan_free(cb_cudnn_plan_t *p) {
  if (p->exec) CB_CUDNN(cudnnBackendDestroyDescriptor(p->exec));
  for (int i = p->nowned - 1; i >= 0; i--) CB_CUDNN(cudnnBackendDestroyDescriptor(p->owned[i]));
  free(p);
}

/* The first engine configuration of the heuristics (mode A, then the fallback list) whose
 * plan finalizes. Returns 0, or -1 with the last failure in why. */
static int pick_engine(cudnnHandle_t handle, cb_cudnn_graph_t *g, cb_cudnn_desc_t opgraph, char *why, size_t n) {
  const cudnnBackendHeurMode_t modes[2] = {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK};
  snprintf(why, n, "the heuristics listed no engine");
  for (int m = 0; m < 2; m++) {
    cb_cudnn_desc_t heur = own(g, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    SET(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &opgraph);
    SET(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &modes[m]);
    if (cb_cudnn_try(cudnnBackendFinalize(heur), "engine heuristics", why, n)) continue;
    int64_t count = 0;
    CB_CUDNN(
        cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, NULL));
    if (count > MAX_CONFIGS) count = MAX_CONFIGS;
    cb_cudnn_desc_t cfg[MAX_CONFIGS];
    for (int64_t i = 0; i < count; i++) cfg[i] = own(g, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    int64_t got = 0;
    if (count)
      CB_CUDNN(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got,
                                        cfg));
    for (int64_t i = 0; i < got; i++) {
      cb_cudnn_desc_t plan;
      CB_CUDNN(cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
      SET(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
      SET(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg[i]);
      if (cb_cudnn_try(cudnnBackendFinalize(plan), "execution plan", why, n) == 0) {
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
  if (cb_cudnn_try(cudnnGraphVersionCheck(), "cudnnGraphVersionCheck (cuDNN's libraries disagree on the version)", why,
                   n))
    return -1;
  cb_cudnn_t *c = calloc(1, sizeof *c);
  if (!c) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  cudnnStatus_t st = cudnnCreate(&c->handle);
  if (cb_cudnn_try(st, "cudnnCreate", why, n)) {
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

int cb_cudnn_build(cb_cudnn_t *c, const cb_cudnn_key_t *k, void (*build)(cb_cudnn_graph_t *g, const cb_cudnn_key_t *k),
                   int64_t (*extra)(const cb_cudnn_key_t *k), char *why, size_t n) {
  if (cb_cudnn_cache_find(&c->cache, k)) return 0;
  cb_cudnn_plan_t *p = calloc(1, sizeof *p);
  if (!p) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  cb_cudnn_graph_t g = {.p = p, .nops = 0, .next_uid = CB_CUDNN_UID_VIRTUAL};
  build(&g, k);
  p->extra = extra ? extra(k) : 0;
  cb_cudnn_desc_t opgraph = own(&g, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  SET(opgraph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, g.nops, g.ops);
  SET(opgraph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &c->handle);
  char e[512] = "", shape[180];
  cb_cudnn_key_text(k, shape, sizeof shape);
  if (cb_cudnn_try(cudnnBackendFinalize(opgraph), "operation graph", e, sizeof e) ||
      pick_engine(c->handle, &g, opgraph, e, sizeof e)) {
    snprintf(why, n, "not supported: cuDNN has no engine for %s (%s)", shape, e);
    plan_free(p);
    return -1;
  }
  const int64_t need = p->extra ? cb_cudnn_ws_align(p->workspace) + p->extra : p->workspace;
  if ((size_t)need > c->workspace_bytes) {
    char ce[200] = "";
    if (c->workspace) CB_CUDA(cudaFree(c->workspace));
    c->workspace = NULL;
    c->workspace_bytes = 0;
    if (CB_TRY_CUDA(cudaMalloc(&c->workspace, (size_t)need), ce, sizeof ce)) {
      snprintf(why, n, "cuDNN workspace of %lld bytes for %s: %s", (long long)need, shape, ce);
      c->workspace = NULL;
      plan_free(p);
      return -1;
    }
    c->workspace_bytes = (size_t)need;
  }
  if (cb_cudnn_cache_add(&c->cache, k, p, why, n)) {
    plan_free(p);
    return -1;
  }
  return 0;
}

const cb_cudnn_plan_t *cb_cudnn_plan_of(const cb_cudnn_t *c, const cb_cudnn_key_t *k) {
  const cb_cudnn_plan_t *p = cb_cudnn_cache_find(&c->cache, k);
  if (!p) {
    char shape[180];
    cb_cudnn_key_text(k, shape, sizeof shape);
    CB_DIE(CB_EXIT_RUNTIME, "cuDNN attention: no plan for %s (setup did not prepare this shape)", shape);
  }
  return p;
}

char *cb_cudnn_extra_base(const cb_cudnn_t *c, const cb_cudnn_plan_t *p) {
  return (char *)c->workspace + cb_cudnn_ws_align(p->workspace);
}

void cb_cudnn_execute(cb_cudnn_t *c, const cb_cudnn_plan_t *p, int64_t nt, const int64_t *uids, void *const *ptrs,
                      cudaStream_t s) {
  CB_CUDNN(cudnnSetStream(c->handle, s));
  cb_cudnn_desc_t pack;
  CB_CUDNN(cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
  SET(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, nt, uids);
  SET(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, nt, ptrs);
  SET(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &c->workspace);
  CB_CUDNN(cudnnBackendFinalize(pack));
  CB_CUDNN(cudnnBackendExecute(c->handle, p->exec, pack));
  CB_CUDNN(cudnnBackendDestroyDescriptor(pack));
}
