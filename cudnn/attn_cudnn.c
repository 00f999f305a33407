/* cuDNN's fused attention forward as a block kernel (attn_cudnn.h): the SDPA forward graph with
 * statistics, built with attn_cudnn_graph.h's backend toolkit. The graph's structure is the one
 * cuDNN's SDPA engines recognize (attn_cudnn.h); the tensor and operation settings follow what
 * cudnn-frontend sets for them (fp32 compute and intermediates, 16-byte alignment, by-value
 * scalars for the scale and the mask's -inf, the softmax output P in the input dtype). */
#include "attn_cudnn.h"

#include <math.h>

#include "attn_cudnn_graph.h"

typedef cb_cudnn_desc_t desc_t;

/* Tensor ids of the variant pack. */
enum { UID_Q = 1, UID_K, UID_V, UID_O, UID_STATS, UID_SCALE, UID_NEG_INF };

/* The SDPA forward with statistics (attn_cudnn.h), dims [b, h, s, d] over BSHD memory. */
static void sdpa_ops(cb_cudnn_graph_t *g, const cb_cudnn_key_t *k) {
  const cb_cudnn_sdpa_shape_t sh = cb_cudnn_sdpa_shape(k);
  const cudnnDataType_t io = sh.io, f32 = CUDNN_DATA_FLOAT;
  const int64_t *s_dim = sh.s_dim, *s_str = sh.s_str, *r_dim = sh.r_dim, *r_str = sh.r_str;
  desc_t q = cb_cudnn_tensor(g, UID_Q, io, sh.q_dim, sh.q_str, false, false);
  desc_t kt = cb_cudnn_tensor(g, UID_K, io, sh.kt_dim, sh.kt_str, false, false);
  desc_t v = cb_cudnn_tensor(g, UID_V, io, sh.kv_dim, sh.kv_str, false, false);
  desc_t o = cb_cudnn_tensor(g, UID_O, io, sh.q_dim, sh.q_out_str, false, false);
  desc_t stats = cb_cudnn_tensor(g, UID_STATS, f32, r_dim, r_str, false, false);
  desc_t scale = cb_cudnn_tensor(g, UID_SCALE, f32, sh.one, sh.one, false, true);

  desc_t s = cb_cudnn_virtual(g, f32, s_dim, s_str);
  cb_cudnn_matmul(g, q, kt, s);
  desc_t scaled = cb_cudnn_virtual(g, f32, s_dim, s_str);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_MUL, f32, s, scale, NULL, scaled, 0);
  /* top left: query row i sees key rows 0..i */
  desc_t masked = k->causal ? cb_cudnn_causal_mask(g, scaled, UID_NEG_INF, s_dim, s_str) : scaled;
  desc_t max = cb_cudnn_virtual(g, f32, r_dim, r_str), sub = cb_cudnn_virtual(g, f32, s_dim, s_str);
  desc_t e = cb_cudnn_virtual(g, f32, s_dim, s_str), sum = cb_cudnn_virtual(g, f32, r_dim, r_str);
  desc_t log_sum = cb_cudnn_virtual(g, f32, r_dim, r_str), p = cb_cudnn_virtual(g, io, s_dim, s_str);
  cb_cudnn_reduction(g, CUDNN_REDUCE_TENSOR_MAX, masked, max);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_SUB, f32, masked, max, NULL, sub, 0);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_EXP, f32, sub, NULL, NULL, e, 0);
  cb_cudnn_reduction(g, CUDNN_REDUCE_TENSOR_ADD, e, sum);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_LOG, f32, sum, NULL, NULL, log_sum, 0);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_ADD, f32, max, log_sum, NULL, stats, 0);
  cb_cudnn_pointwise(g, CUDNN_POINTWISE_DIV, f32, e, sum, NULL, p, 0);
  cb_cudnn_matmul(g, p, v, o);
}

/* k as the forward's plan key (the cache holds the backward's plans too) */
static cb_cudnn_key_t fwd_key(const cb_cudnn_key_t *k) {
  cb_cudnn_key_t f = *k;
  f.bwd = 0;
  return f;
}

int cb_cudnn_prepare(cb_cudnn_t *c, const cb_cudnn_key_t *k, char *why, size_t n) {
  const cb_cudnn_key_t f = fwd_key(k);
  return cb_cudnn_build(c, &f, sdpa_ops, NULL, why, n);
}

void cb_cudnn_attend(cb_cudnn_t *c, const cb_cudnn_key_t *k, float scale, const void *q, const void *kk, const void *v,
                     void *o, float *stats, cudaStream_t s) {
  const cb_cudnn_key_t f = fwd_key(k);
  const cb_cudnn_plan_t *p = cb_cudnn_plan_of(c, &f);
  /* by-value scalars: cuDNN reads them from host memory while it enqueues */
  const float neg_inf = -INFINITY;
  int64_t uids[7] = {UID_Q, UID_K, UID_V, UID_O, UID_STATS, UID_SCALE, UID_NEG_INF};
  void *ptrs[7] = {(void *)q, (void *)kk, (void *)v, o, stats, &scale, (void *)&neg_inf};
  cb_cudnn_execute(c, p, k->causal ? 7 : 6, uids, ptrs, s);
}
