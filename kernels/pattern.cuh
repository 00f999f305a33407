/* Seeded test data, usable on host and device, so a rank can compute any peer's input and the
 * exact expected output itself (no host reference, no transfers): nccl-tests' idea.
 *
 * Value of element `index` of rank `rank`'s input at check iteration `iter` (cb_pattern_op_value):
 *
 * sum, max, min, avg and the families that do not reduce: a small integer in [-R, R] (the
 * unsigned types: [0, R]), R = cb_pattern_range(dtype, nranks) <= 64. Integers are exact in
 * every floating dtype up to a limit L (float 2^24, half 2^11, bfloat16 2^8, fp8e4m3 16,
 * fp8e5m2 8, double 2^53), and R is chosen so that any partial sum over ranks stays within L:
 * sums, maxima and minima are then exact in the dtype whatever the reduction order, and the
 * check compares bit-exactly. When nranks > L only the first L ranks contribute non-zero
 * values. The integer types take L as the largest sum they must hold without wrapping:
 * int8 64, uint8 127 (so the poison value below is never a right answer), the wider ones 2^30.
 * Integer arithmetic wraps (redop.cuh), so any sum would still be exact; the limits keep every
 * expected value representable as the plain mathematical one, which a reader can check by hand.
 *
 * prod: +-1 or +-2 (the unsigned types: 1 or 2), 2 only on the first P ranks with
 * 2^P <= min(L, 64) (cb_pattern_prod_twos: int8 6, uint8 6, fp8e4m3 4, fp8e5m2 3, others 6):
 * every product is a power of two of magnitude at most L, exact and representable in every
 * dtype, and never 0 (a zero would hide a wrong factor).
 *
 * avg: the floating types expect sum / nranks, compared within
 * cb_check_tolerance = (nranks + 1) * eps(dtype) * R — one rounding of the result plus one
 * per rank for implementations that pre-scale each input by 1/nranks (NCCL's PreMulSum). The
 * integers expect the sum divided by nranks truncating toward zero (NCCL's SumPostDiv),
 * exactly: their tolerance is 0. */
#ifndef CB_PATTERN_CUH
#define CB_PATTERN_CUH

#include <stdint.h>

#include "dtype.h"
#include "hostdev.h"
#include "mix64.h"

/* Largest integer L such that all integers in [-L, L] are exact in the dtype, 2^(significand
 * bits) (double: capped at 2^30, far above any sum of the pattern), or for an integer type
 * the largest sum it holds without wrapping or reaching the poison value. */
CB_HD int cb_pattern_limit(int dtype) {
  switch (dtype) {
  case CB_FLOAT: return 1 << 24;
  case CB_HALF: return 1 << 11;
  case CB_BF16: return 1 << 8;
  case CB_FP8E4M3: return 16;
  case CB_FP8E5M2: return 8;
  case CB_INT8: return 64;
  case CB_UINT8: return 127;
  default: return 1 << 30; /* int32, uint32, int64, uint64, double */
  }
}

CB_HD int cb_pattern_range(int dtype, int nranks) {
  int r = cb_pattern_limit(dtype) / (nranks > 0 ? nranks : 1);
  if (r > 64) r = 64;
  return r < 1 ? 1 : r;
}

/* P: the ranks whose prod value may be +-2 (2^P <= min(L, 64)). */
CB_HD int cb_pattern_prod_twos(int dtype) {
  int p = 0;
  while (p < 6 && (2 << p) <= cb_pattern_limit(dtype)) p++;
  return p;
}

/* The byte the generic check fills outputs with before a run (collectives/check.c): 0xFF makes
 * every floating element NaN, which no comparison accepts; for the integers 0x80 gives int8
 * -128, uint8 128 and huge values for the wider types, none of them an expected value under
 * the limits above. */
CB_HD int cb_pattern_poison_byte(int dtype) { return cb_dtype_is_int(dtype) ? 0x80 : 0xFF; }

CB_HD uint64_t cb_pattern_hash(uint64_t seed, int rank, int iter, uint64_t index) {
  return cb_mix64(seed ^ cb_mix64(((uint64_t)(uint32_t)rank << 32) | (uint32_t)iter) ^ cb_mix64(index + 0x51ed27));
}

/* The input value for op (a cb_redop_t; CB_OP_NONE and every op but prod share one pattern). */
CB_HD long long cb_pattern_op_value(uint64_t seed, int rank, int iter, uint64_t index, int dtype, int nranks, int op) {
  uint64_t h = cb_pattern_hash(seed, rank, iter, index);
  int is_unsigned = cb_dtype_is_int(dtype) && !cb_dtype_is_signed_int(dtype);
  if (op == CB_PROD) {
    long long mag = rank < cb_pattern_prod_twos(dtype) ? 1 + (long long)(h & 1) : 1;
    return !is_unsigned && (h & 2) ? -mag : mag;
  }
  if (rank >= cb_pattern_limit(dtype)) return 0;
  int r = cb_pattern_range(dtype, nranks);
  if (is_unsigned) return (long long)(h % (uint64_t)(r + 1));
  return (long long)(h % (uint64_t)(2 * r + 1)) - r;
}

/* The sum/max/min/avg pattern as a float (every value is a small integer, exact in float). */
CB_HD float cb_pattern_value(uint64_t seed, int rank, int iter, uint64_t index, int dtype, int nranks) {
  return (float)cb_pattern_op_value(seed, rank, iter, index, dtype, nranks, CB_SUM);
}

/* Allowed |got - expected| for op (a cb_redop_t). 0 = bit-exact. */
CB_HD double cb_check_tolerance(int dtype, int op, int nranks) {
  if (!cb_redop_is_avg(op) || cb_dtype_is_int(dtype)) return 0.0;
  return (double)(nranks + 1) * cb_dtype_eps(dtype) * (double)cb_pattern_range(dtype, nranks);
}

#endif
