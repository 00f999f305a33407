/* Seeded test data, usable on host and device, so a rank can compute any peer's input and the
 * exact expected output itself (no host reference, no transfers): nccl-tests' idea.
 *
 * Value of element `index` of rank `rank`'s input at check iteration `iter`: a small integer
 * in [-R, R], R = cb_pattern_range(dtype, nranks). Integers are exact in every dtype up to a
 * limit L (float 2^24, half 2^11, bfloat16 2^8, fp8e4m3 16, fp8e5m2 8), and R is chosen so that
 * any partial sum over ranks stays within L: sums, maxima and minima are then exact in the
 * dtype whatever the reduction order, and the check compares bit-exactly. When nranks > L only
 * the first L ranks contribute non-zero values.
 *
 * avg is the one inexact op: expected = sum / nranks, compared within
 * cb_check_tolerance = (nranks + 1) * eps(dtype) * R — one rounding of the result plus one
 * per rank for implementations that pre-scale each input by 1/nranks (NCCL's PreMulSum). */
#ifndef CB_PATTERN_CUH
#define CB_PATTERN_CUH

#include <stdint.h>

#include "dtype.h"
#include "hostdev.h"
#include "mix64.h"

/* Largest integer L such that all integers in [-L, L] are exact in the dtype: 2^(significand
 * bits), i.e. 2 / cb_dtype_eps. */
CB_HD int cb_pattern_limit(int dtype) {
  switch (dtype) {
  case CB_FLOAT: return 1 << 24;
  case CB_HALF: return 1 << 11;
  case CB_BF16: return 1 << 8;
  case CB_FP8E4M3: return 16;
  default: return 8;
  }
}

CB_HD int cb_pattern_range(int dtype, int nranks) {
  int r = cb_pattern_limit(dtype) / (nranks > 0 ? nranks : 1);
  if (r > 64) r = 64;
  return r < 1 ? 1 : r;
}

CB_HD float cb_pattern_value(uint64_t seed, int rank, int iter, uint64_t index, int dtype, int nranks) {
  if (rank >= cb_pattern_limit(dtype)) return 0.0f;
  int r = cb_pattern_range(dtype, nranks);
  uint64_t h =
      cb_mix64(seed ^ cb_mix64(((uint64_t)(uint32_t)rank << 32) | (uint32_t)iter) ^ cb_mix64(index + 0x51ed27));
  return (float)((int)(h % (uint64_t)(2 * r + 1)) - r);
}

/* Allowed |got - expected| for op (a cb_redop_t). 0 = bit-exact. */
CB_HD float cb_check_tolerance(int dtype, int op, int nranks) {
  if (!cb_redop_is_avg(op)) return 0.0f;
  return (float)(nranks + 1) * cb_dtype_eps(dtype) * (float)cb_pattern_range(dtype, nranks);
}

#endif
