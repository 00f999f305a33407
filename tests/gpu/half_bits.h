/* Host-side conversions between float and the 16-bit storage of bf16 / fp16 tensors, for the
 * attention kernel tests (attn_kernel_test.cu, attn_bwd_test.cu), which fill inputs and read
 * outputs on the host. */
#ifndef CB_TEST_HALF_BITS_H
#define CB_TEST_HALF_BITS_H

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

#endif
