/* What both attention kernel tests (attn_kernel_test.cu, attn_bwd_test.cu) build their cases
 * from: host-side conversions between float and the 16-bit storage of bf16 / fp16 tensors (they
 * fill inputs and read outputs on the host) and the position runs of a block (attn.h). */
#ifndef CB_TEST_ATTN_TEST_UTIL_H
#define CB_TEST_ATTN_TEST_UTIL_H

#include "attn.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

static inline uint16_t to_bits(float x, int bf16) {
  if (bf16) {
    const __nv_bfloat16_raw r = __float2bfloat16_rn(x);
    return r.x;
  }
  const __half_raw r = __float2half_rn(x);
  return r.x;
}

static inline float from_bits(uint16_t u, int bf16) {
  if (bf16) {
    __nv_bfloat16_raw r;
    r.x = u;
    return __bfloat162float(__nv_bfloat16(r));
  }
  __half_raw r;
  r.x = u;
  return __half2float(__half(r));
}

/* one run of positions from start (as long as any block) */
static inline cb_attn_pos_t run1(long long start) {
  cb_attn_pos_t p = {start, 1LL << 40, 0, 0};
  return p;
}

/* zigzag over P = 2 ranks, chunks of c rows: rank r holds chunks r and 3 - r */
static inline cb_attn_pos_t zig(long long c, int r) {
  cb_attn_pos_t p = {r * c, c, (3 - r) * c, 0};
  return p;
}

#endif
