/* CPU test of the cuDNN plan key and cache (cudnn/attn_cudnn_key.c): every field of the key
 * tells two shapes apart (a plan reused for another shape would compute garbage; the forward's
 * and the backward's graph of one shape are two plans), the text names the shape and the pass, the cache finds what it
 * holds and refuses duplicates and overflow with a reason. The plans are opaque to the cache: stand-in addresses are
 * enough. */
#include <stdio.h>
#include <string.h>

#include "attn_cudnn_key.h"
#include "cb_testing.h"

static cb_cudnn_key_t base(void) {
  cb_cudnn_key_t k = {1, 32, 8, 128, 4096, 8192, 8192, 8192, 1, 1, 0};
  return k;
}

static void test_key(void) {
  cb_cudnn_key_t a = base(), b = base();
  CHECK(cb_cudnn_key_equal(&a, &b), "equal keys");
  /* padding bytes do not matter */
  cb_cudnn_key_t c;
  memset(&c, 0xab, sizeof c);
  c.batch = 1, c.heads = 32, c.kv_heads = 8, c.head_dim = 128, c.q_len = 4096, c.kv_len = 8192;
  c.q_stride_rows = 8192, c.kv_stride_rows = 8192, c.bf16 = 1, c.causal = 1, c.bwd = 0;
  CHECK(cb_cudnn_key_equal(&a, &c), "padding compared");
  for (int f = 0; f < 11; f++) {
    b = base();
    switch (f) {
    case 0: b.batch = 2; break;
    case 1: b.heads = 16; break;
    case 2: b.kv_heads = 32; break;
    case 3: b.head_dim = 64; break;
    case 4: b.q_len = 4097; break;
    case 5: b.kv_len = 4096; break;
    case 6: b.q_stride_rows = 4096; break;
    case 7: b.kv_stride_rows = 16384; break;
    case 8: b.bf16 = 0; break;
    case 9: b.causal = 0; break;
    default: b.bwd = 1; break;
    }
    CHECK(!cb_cudnn_key_equal(&a, &b), "field %d ignored", f);
  }
  char t[200];
  cb_cudnn_key_text(&a, t, sizeof t);
  CHECK_EQ_STR(t, "b 1, h 32, kv 8, s_q 4096, s_kv 8192, d 128, bfloat16, causal");
  b = base();
  b.bf16 = 0, b.causal = 0;
  cb_cudnn_key_text(&b, t, sizeof t);
  CHECK_CONTAINS(t, "half, non-causal");
  CHECK(!strstr(t, "backward"), "a forward key says backward: %s", t);
  b.bwd = 1;
  cb_cudnn_key_text(&b, t, sizeof t);
  CHECK_CONTAINS(t, "half, non-causal, backward");
}

static void test_cache(void) {
  static cb_cudnn_cache_t c; /* zeroed: empty */
  static int plans[CB_CUDNN_MAX_PLANS + 1];
  char why[256];
  cb_cudnn_key_t k = base();
  CHECK(cb_cudnn_cache_find(&c, &k) == NULL, "empty cache found something");
  for (int i = 0; i < CB_CUDNN_MAX_PLANS; i++) {
    k.q_len = 100 + i;
    CHECK(cb_cudnn_cache_add(&c, &k, &plans[i], why, sizeof why) == 0, "add %d: %s", i, why);
  }
  for (int i = CB_CUDNN_MAX_PLANS - 1; i >= 0; i--) {
    k.q_len = 100 + i;
    CHECK(cb_cudnn_cache_find(&c, &k) == &plans[i], "plan %d", i);
  }
  k.q_len = 100;
  k.causal = 0;
  CHECK(cb_cudnn_cache_find(&c, &k) == NULL, "a non-causal shape found the causal plan");
  CHECK(cb_cudnn_cache_add(&c, &k, &plans[CB_CUDNN_MAX_PLANS], why, sizeof why) == -1, "overflow accepted");
  CHECK_CONTAINS(why, "more than 32 shapes");
  /* the backward's plan of a cached forward shape is another plan */
  c.n = CB_CUDNN_MAX_PLANS - 1;
  k = base();
  k.q_len = 100;
  CHECK(cb_cudnn_cache_find(&c, &k) == &plans[0], "forward plan");
  k.bwd = 1;
  CHECK(cb_cudnn_cache_find(&c, &k) == NULL, "the backward found the forward's plan");
  CHECK(cb_cudnn_cache_add(&c, &k, &plans[CB_CUDNN_MAX_PLANS], why, sizeof why) == 0, "backward plan: %s", why);
  CHECK(cb_cudnn_cache_find(&c, &k) == &plans[CB_CUDNN_MAX_PLANS], "backward plan found");
  c.n = 1;
  k = base();
  k.q_len = 100;
  CHECK(cb_cudnn_cache_add(&c, &k, &plans[0], why, sizeof why) == -1, "duplicate accepted");
  CHECK_CONTAINS(why, "is there already");
}

int main(void) {
  test_key();
  test_cache();
  return cb_test_finish("test_cudnn_key");
}
