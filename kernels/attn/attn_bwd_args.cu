/* Argument checks of the backward block-pair launchers (attn_bwd.h): cb_attn_bwd and
 * cb_attn_bwd_reference both run cb_attn_bwd_check_args first and launch nothing on bad input.
 * The shape, flag, scale and position rules are the forward's (attn_args.cu, cb_attn_check_args,
 * called here on the same shape, cb_attn_bwd_fwd_args); the backward adds its own buffers. Host code. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "attn_bwd.h"

extern "C" int cb_attn_bwd_check_args(const cb_attn_bwd_args_t *a, char *why, size_t n) {
  if (!a) {
    snprintf(why, n, "attention backward: no arguments");
    return -1;
  }
  if (!a->q || !a->k || !a->v || !a->dout || !a->lse || !a->delta || !a->dq || !a->dk || !a->dv) {
    snprintf(why, n, "attention backward: missing buffer (q, k, v, dout, lse, delta, dq, dk, dv)");
    return -1;
  }
  if (((uintptr_t)a->dout | (uintptr_t)a->dq | (uintptr_t)a->dk | (uintptr_t)a->dv) % 16 != 0 ||
      ((uintptr_t)a->lse | (uintptr_t)a->delta) % 4 != 0) {
    snprintf(why, n, "attention backward: dout, dq, dk and dv must be 16-byte aligned, lse and delta 4-byte");
    return -1;
  }
  /* the forward's rules on the same shape */
  const cb_attn_args_t f = cb_attn_bwd_fwd_args(a);
  return cb_attn_check_args(&f, why, n);
}

extern "C" cb_attn_args_t cb_attn_bwd_fwd_args(const cb_attn_bwd_args_t *a) {
  cb_attn_args_t f; /* dq stands in for o (fp32, same layout and alignment) */
  memset(&f, 0, sizeof f);
  f.q = a->q, f.k = a->k, f.v = a->v, f.o = a->dq, f.lse = (float *)a->lse;
  f.batch = a->batch, f.heads = a->heads, f.kv_heads = a->kv_heads, f.head_dim = a->head_dim;
  f.q_len = a->q_len, f.kv_len = a->kv_len, f.bf16 = a->bf16, f.causal = a->causal;
  f.qpos = a->qpos, f.kvpos = a->kvpos, f.scale = a->scale, f.first = 1, f.final = 0;
  return f;
}
