/* cuDNN's SDPA backward as a block kernel (attn_cudnn_bwd.h): the graph, built with
 * attn_cudnn_graph.h's backend toolkit, and its execution. Tensor settings follow what
 * cudnn-frontend's composite SDPA backward node gives them: fp32 intermediates, P^T and dS^T
 * as views in the input dtype (the matmuls with dO and Q read them so), the grouped heads'
 * full-head dK/dV in the input dtype, and the reshape of K^T back to K an fp32 view (what the
 * frontend's inference gives a virtual tensor it does not type). */
#include "attn_cudnn_bwd.h"

#include <math.h>
#include <stdio.h>

#include "attn_cudnn_graph.h"

typedef cb_cudnn_desc_t desc_t;

/* Tensor ids of the variant pack. */
enum {
  UID_Q = 1,
  UID_K,
  UID_V,
  UID_O,
  UID_DO,
  UID_STATS,
  UID_DQ,
  UID_DK,
  UID_DV,
  UID_SCALE,
  UID_ONE,
  UID_NEG_INF,
  UID_DQ_ACCUM,
  UID_SOFTMAX_SUM,
  NUM_UIDS = UID_SOFTMAX_SUM
};

/* Workspace after the engine's: dQ_accum fp32 [b][h][s_q][d], then softmax_sum fp32 [b][h][s_q]. */
static int64_t dq_accum_bytes(const cb_cudnn_key_t *k) {
  return k->batch * k->heads * k->q_len * k->head_dim * (int64_t)sizeof(float);
}
static int64_t extra_bytes(const cb_cudnn_key_t *k) {
  return cb_cudnn_ws_align(dq_accum_bytes(k)) + k->batch * k->heads * k->q_len * (int64_t)sizeof(float);
}

/* dK or dV = x^T y over every query head, summed per kv head when heads are grouped (the
 * frontend's full-head product, then a reduction over the heads' groups). */
static void head_sum_matmul(cb_cudnn_graph_t *g, const cb_cudnn_key_t *k, cudnnDataType_t io, desc_t xt, desc_t y,
                            desc_t out) {
  if (k->heads == k->kv_heads) {
    cb_cudnn_matmul(g, xt, y, out);
    return;
  }
  const int64_t b = k->batch, h = k->heads, d = k->head_dim, skv = k->kv_len;
  const int64_t full_dim[4] = {b, h, skv, d}, full_str[4] = {h * skv * d, skv * d, d, 1};
  desc_t full = cb_cudnn_virtual(g, io, full_dim, full_str);
  cb_cudnn_matmul(g, xt, y, full);
  cb_cudnn_reduction(g, CUDNN_REDUCE_TENSOR_ADD, full, out);
}

/* The SDPA backward (attn_cudnn_bwd.h), dims [b, h, s, d] over BSHD memory. */
static void sdpa_bwd_ops(cb_cudnn_graph_t *g, const cb_cudnn_key_t *k) {
  const cb_cudnn_sdpa_shape_t sh = cb_cudnn_sdpa_shape(k);
  const int64_t b = k->batch, h = k->heads, d = k->head_dim, sq = k->q_len, skv = k->kv_len;
  const cudnnDataType_t io = sh.io, f32 = CUDNN_DATA_FLOAT;
  const int64_t *q_dim = sh.q_dim, *q_str = sh.q_str; /* Q, O, dO */
  const int64_t *s_dim = sh.s_dim, *s_str = sh.s_str, *r_dim = sh.r_dim, *r_str = sh.r_str;
  const int64_t st_dim[4] = {b, h, skv, sq}, st_str[4] = {h * sq * skv, sq * skv, 1, skv}; /* transposed views */
  const int64_t doo_str[4] = {h * sq * d, sq * d, h * d, 1}; /* dO * O: the frontend's strides */
  const int64_t acc_str[4] = {h * sq * d, sq * d, d, 1};     /* dQ_accum: BHSD */
  desc_t q = cb_cudnn_tensor(g, UID_Q, io, q_dim, q_str, false, false);
  desc_t kt = cb_cudnn_tensor(g, UID_K, io, sh.kt_dim, sh.kt_str, false, false); /* K^T, V^T: views */
  desc_t vt = cb_cudnn_tensor(g, UID_V, io, sh.kt_dim, sh.kt_str, false, false);
  desc_t o = cb_cudnn_tensor(g, UID_O, io, q_dim, q_str, false, false);
  desc_t dout = cb_cudnn_tensor(g, UID_DO, io, q_dim, q_str, false, false);
  desc_t stats = cb_cudnn_tensor(g, UID_STATS, f32, r_dim, r_str, false, false);
  desc_t dq = cb_cudnn_tensor(g, UID_DQ, io, q_dim, sh.q_out_str, false, false);
  desc_t dk = cb_cudnn_tensor(g, UID_DK, io, sh.kv_dim, sh.kv_out_str, false, false);
  desc_t dv = cb_cudnn_tensor(g, UID_DV, io, sh.kv_dim, sh.kv_out_str, false, false);
  desc_t scale = cb_cudnn_tensor(g, UID_SCALE, f32, sh.one, sh.one, false, true);
  desc_t unit = cb_cudnn_tensor(g, UID_ONE, f32, sh.one, sh.one, false, true);
  desc_t dq_accum = cb_cudnn_tensor(g, UID_DQ_ACCUM, f32, q_dim, acc_str, false, false);
  desc_t softmax_sum = cb_cudnn_tensor(g, UID_SOFTMAX_SUM, f32, r_dim, r_str, false, false);

  /* softmax_sum = rowsum(dO * O) * 1 (the frontend's dropout-scale product, 1 without dropout) */
  desc_t doo = cb_cudnn_virtual(g, f32, q_dim, doo_str), rowsum = cb_cudnn_virtual(g, f32, r_dim, r_str);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_MUL, f32, dout, o, NULL, doo, 0);
  cb_cudnn_reduction(g, CUDNN_REDUCE_TENSOR_ADD, doo, rowsum);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_MUL, f32, rowsum, unit, NULL, softmax_sum, 0);

  /* P = exp(Q K^T * scale - Stats), masked */
  desc_t s = cb_cudnn_virtual(g, f32, s_dim, s_str), scaled = cb_cudnn_virtual(g, f32, s_dim, s_str);
  desc_t centered = cb_cudnn_virtual(g, f32, s_dim, s_str);
  cb_cudnn_matmul(g, q, kt, s);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_MUL, f32, s, scale, NULL, scaled, 0);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_SUB, f32, scaled, stats, NULL, centered, 0);
  /* top left: query row i sees key rows 0..i (after Stats, where the frontend masks) */
  desc_t masked = k->causal ? cb_cudnn_causal_mask(g, centered, UID_NEG_INF, s_dim, s_str) : centered;
  desc_t p = cb_cudnn_virtual(g, f32, s_dim, s_str);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_EXP, f32, masked, NULL, NULL, p, 0);

  /* dV = P^T dO */
  desc_t pt = cb_cudnn_virtual(g, io, st_dim, st_str);
  cb_cudnn_reshape(g, p, pt);
  head_sum_matmul(g, k, io, pt, dout, dv);

  /* dS = (dO V^T - softmax_sum) * P * scale */
  desc_t dp = cb_cudnn_virtual(g, f32, s_dim, s_str), centered_dp = cb_cudnn_virtual(g, f32, s_dim, s_str);
  desc_t dsu = cb_cudnn_virtual(g, f32, s_dim, s_str), ds = cb_cudnn_virtual(g, f32, s_dim, s_str);
  cb_cudnn_matmul(g, dout, vt, dp);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_SUB, f32, dp, softmax_sum, NULL, centered_dp, 0);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_MUL, f32, centered_dp, p, NULL, dsu, 0);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_MUL, f32, dsu, scale, NULL, ds, 0);

  /* dK = dS^T Q */
  desc_t dst = cb_cudnn_virtual(g, io, st_dim, st_str);
  cb_cudnn_reshape(g, ds, dst);
  head_sum_matmul(g, k, io, dst, q, dk);

  /* dQ = dS K through the fp32 accumulator */
  desc_t kk = cb_cudnn_virtual(g, f32, sh.kv_dim, sh.kv_str);
  cb_cudnn_reshape(g, kt, kk);
  cb_cudnn_matmul(g, ds, kk, dq_accum);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_IDENTITY, f32, dq_accum, NULL, NULL, dq, 0);
}

static cb_cudnn_key_t bwd_key(const cb_cudnn_key_t *k) {
  cb_cudnn_key_t b = *k;
  b.bwd = 1;
  return b;
}

int cb_cudnn_bwd_supported(char *why, size_t n) {
  const size_t v = cudnnGetVersion();
  if (v >= 91002) return 1;
  char loaded[32];
  cb_cudnn_loaded(loaded, sizeof loaded);
  snprintf(why, n, "not supported: the cuDNN backward needs cuDNN 9.10.2 or newer (loaded: %s)", loaded);
  return 0;
}

/* The shapes attn_cudnn_bwd.h excludes on this version: 0, or -1 with why. */
static int shape_supported(const cb_cudnn_key_t *k, char *why, size_t n) {
  const size_t v = cudnnGetVersion();
  char shape[180];
  cb_cudnn_key_text(k, shape, sizeof shape);
  if (v <= 91500 && k->kv_len % 128) {
    char loaded[32];
    cb_cudnn_loaded(loaded, sizeof loaded);
    snprintf(why, n,
             "not supported: cuDNN %s's SDPA backward needs s_kv a multiple of 128 (%s; cudnn-frontend adds "
             "a padding mask there, collbench does not: use cuDNN 9.16 or newer)",
             loaded, shape);
    return -1;
  }
  if (k->q_len == 1 && k->kv_len == 1) { /* cudnn-frontend refuses it */
    snprintf(why, n, "not supported: cuDNN has no engine for %s (s_q = s_kv = 1)", shape);
    return -1;
  }
  return 0;
}

int cb_cudnn_prepare_bwd(cb_cudnn_t *c, const cb_cudnn_key_t *k, char *why, size_t n) {
  const cb_cudnn_key_t bk = bwd_key(k);
  if (!cb_cudnn_bwd_supported(why, n) || shape_supported(&bk, why, n)) return -1;
  return cb_cudnn_build(c, &bk, sdpa_bwd_ops, extra_bytes, why, n);
}

void cb_cudnn_attend_bwd(cb_cudnn_t *c, const cb_cudnn_key_t *k, float scale, const cb_cudnn_bwd_io_t *io,
                         cudaStream_t s) {
  const cb_cudnn_key_t bk = bwd_key(k);
  const cb_cudnn_plan_t *p = cb_cudnn_plan_of(c, &bk);
  char *extra = cb_cudnn_extra_base(c, p);
  /* by-value scalars: cuDNN reads them from host memory while it enqueues */
  float unit = 1.0f;
  const float neg_inf = -INFINITY;
  int64_t uids[NUM_UIDS] = {UID_Q,  UID_K,  UID_V,     UID_O,   UID_DO,       UID_STATS,       UID_DQ,
                            UID_DK, UID_DV, UID_SCALE, UID_ONE, UID_DQ_ACCUM, UID_SOFTMAX_SUM, UID_NEG_INF};
  void *ptrs[NUM_UIDS] = {(void *)io->q,
                          (void *)io->k,
                          (void *)io->v,
                          (void *)io->o,
                          (void *)io->dout,
                          (void *)io->stats,
                          io->dq,
                          io->dk,
                          io->dv,
                          &scale,
                          &unit,
                          extra,
                          extra + cb_cudnn_ws_align(dq_accum_bytes(&bk)),
                          (void *)&neg_inf};
  cb_cudnn_execute(c, p, k->causal ? NUM_UIDS : NUM_UIDS - 1, uids, ptrs, s);
}
