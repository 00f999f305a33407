/* The cuDNN plan key and cache (attn_cudnn_key.h). */
#include "attn_cudnn_key.h"

#include <stdio.h>

int cb_cudnn_key_equal(const cb_cudnn_key_t *a, const cb_cudnn_key_t *b) {
  /* field by field: the struct has padding that memcmp would compare */
  return a->batch == b->batch && a->heads == b->heads && a->kv_heads == b->kv_heads && a->head_dim == b->head_dim &&
         a->q_len == b->q_len && a->kv_len == b->kv_len && a->q_stride_rows == b->q_stride_rows &&
         a->kv_stride_rows == b->kv_stride_rows && a->bf16 == b->bf16 && a->causal == b->causal && a->bwd == b->bwd;
}

void cb_cudnn_key_text(const cb_cudnn_key_t *k, char *buf, size_t n) {
  snprintf(buf, n, "b %lld, h %lld, kv %lld, s_q %lld, s_kv %lld, d %lld, %s, %s%s", (long long)k->batch,
           (long long)k->heads, (long long)k->kv_heads, (long long)k->q_len, (long long)k->kv_len,
           (long long)k->head_dim, k->bf16 ? "bfloat16" : "half", k->causal ? "causal" : "non-causal",
           k->bwd ? ", backward" : "");
}

void *cb_cudnn_cache_find(const cb_cudnn_cache_t *c, const cb_cudnn_key_t *k) {
  for (int i = 0; i < c->n; i++)
    if (cb_cudnn_key_equal(&c->key[i], k)) return c->plan[i];
  return NULL;
}

int cb_cudnn_cache_add(cb_cudnn_cache_t *c, const cb_cudnn_key_t *k, void *plan, char *why, size_t n) {
  char t[160];
  cb_cudnn_key_text(k, t, sizeof t);
  if (cb_cudnn_cache_find(c, k)) {
    snprintf(why, n, "cuDNN plan cache: a plan for %s is there already", t);
    return -1;
  }
  if (c->n == CB_CUDNN_MAX_PLANS) {
    snprintf(why, n, "cuDNN plan cache: more than %d shapes (%s)", CB_CUDNN_MAX_PLANS, t);
    return -1;
  }
  c->key[c->n] = *k;
  c->plan[c->n++] = plan;
  return 0;
}
