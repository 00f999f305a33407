/* Argument checks of the block-attention launchers (attn.h): cb_attn_fwd and cb_attn_reference
 * both run cb_attn_check_args first and launch nothing on bad input. Host code. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "attn.h"

/* Positions of a block of `rows` rows (attn.h), checked for the causal mask: non-negative, the
 * second run after the first, every position below INT_MAX (the kernel narrows them to int). */
static int cb_attn_check_pos(const cb_attn_pos_t *ps, int rows, const char *what, char *why, size_t n) {
  if (ps->start0 < 0 || ps->len0 < 0 || ps->stride < 0 || ps->stride > INT_MAX) {
    snprintf(why, n, "attention: %s positions start0 %lld, len0 %lld, stride %lld must be >= 0 (stride <= %d)", what,
             (long long)ps->start0, (long long)ps->len0, (long long)ps->stride, INT_MAX);
    return -1;
  }
  const long long run0 = ps->len0 < rows ? ps->len0 : rows, st = ps->stride > 1 ? ps->stride : 1;
  long long last = ps->start0 + run0 * st;
  if (run0 < rows) {
    if (ps->start1 < ps->start0 + run0 * st) {
      snprintf(why, n, "attention: %s second run starts at %lld, inside the first (%lld + %lld x %lld)", what,
               (long long)ps->start1, (long long)ps->start0, run0, st);
      return -1;
    }
    last = ps->start1 + (rows - run0) * st;
  }
  if (last >= INT_MAX) {
    snprintf(why, n, "attention: %s positions reach %lld, beyond %d", what, last - 1, INT_MAX - 1);
    return -1;
  }
  return 0;
}

extern "C" int cb_attn_check_consecutive(const cb_attn_pos_t *qpos, const cb_attn_pos_t *kvpos, int causal, char *why,
                                         size_t n) {
  if (causal && (qpos->stride > 1 || kvpos->stride > 1)) {
    snprintf(why, n,
             "attention: the fast kernels take consecutive positions only (query stride %lld, key stride %lld: hand "
             "a stripe pair over as a dense one)",
             (long long)qpos->stride, (long long)kvpos->stride);
    return -1;
  }
  return 0;
}

/* Argument checks shared by the fast kernel and the reference (attn_reference.cu). */
extern "C" int cb_attn_check_args(const cb_attn_args_t *a, char *why, size_t n) {
  if (!a) {
    snprintf(why, n, "attention: no arguments");
    return -1;
  }
  if (a->head_dim != 64 && a->head_dim != 128) {
    snprintf(why, n, "attention: head dim %d unsupported (64 or 128)", a->head_dim);
    return -1;
  }
  if (a->batch < 1 || a->batch > 65535 || a->heads < 1 || a->heads > 65535 || a->kv_heads < 1) {
    snprintf(why, n, "attention: batch %d, heads %d, kv heads %d out of range (1..65535)", a->batch, a->heads,
             a->kv_heads);
    return -1;
  }
  if (a->heads % a->kv_heads != 0) {
    snprintf(why, n, "attention: %d heads not divisible by %d kv heads", a->heads, a->kv_heads);
    return -1;
  }
  if (a->q_len < 0 || a->kv_len < 0) {
    snprintf(why, n, "attention: negative length (q %d, kv %d)", a->q_len, a->kv_len);
    return -1;
  }
  if ((a->bf16 != 0 && a->bf16 != 1) || (a->causal != 0 && a->causal != 1) || (a->first != 0 && a->first != 1) ||
      (a->final != 0 && a->final != 1)) {
    snprintf(why, n, "attention: bf16, causal, first and final must be 0 or 1");
    return -1;
  }
  if (!(a->scale > 0.0f) || !isfinite(a->scale)) {
    snprintf(why, n, "attention: softmax scale %g must be positive and finite", (double)a->scale);
    return -1;
  }
  if (a->causal && (cb_attn_check_pos(&a->qpos, a->q_len, "query", why, n) < 0 ||
                    cb_attn_check_pos(&a->kvpos, a->kv_len, "key", why, n) < 0))
    return -1;
  if (!a->q || !a->k || !a->v || !a->o || !a->lse || (a->final && !a->out)) {
    snprintf(why, n, "attention: missing buffer (q, k, v, o, lse%s)", a->final ? ", out" : "");
    return -1;
  }
  if (((uintptr_t)a->q | (uintptr_t)a->k | (uintptr_t)a->v | (uintptr_t)a->o) % 16 != 0 || (uintptr_t)a->lse % 4 != 0 ||
      (a->final && (uintptr_t)a->out % 16 != 0)) {
    snprintf(why, n, "attention: q, k, v, o and out must be 16-byte aligned, lse 4-byte");
    return -1;
  }
  return 0;
}
