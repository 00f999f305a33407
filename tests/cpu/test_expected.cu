/* CPU test of the check's expected values (kernels/check.cu through cb_expected_host and
 * cb_element_ok_host, host paths) and of the op arithmetic it shares with the kernels
 * (kernels/redop.cuh), for every type and op:
 *   - the expected all-reduce value equals an independent model computed here in long long /
 *     double from the pattern's inputs (sum, prod, max, min; avg: the floating types divide,
 *     the integers divide truncating toward zero as NCCL's ncclAvg does);
 *   - for the integers the model is representable in the type and is never the poison value,
 *     and for the exact ops of the floating types it survives a round trip through the type;
 *   - the element comparison accepts the right value in the type's own bytes and refuses the
 *     poison bytes, and (integers, exact ops) refuses a value one off;
 *   - integer sum and prod wrap as C's unsigned arithmetic, avg truncates toward zero.
 * nvcc-compiled host code; no GPU needed. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cb_testing.h"
#include "check.h"
#include "dtype.cuh"
#include "pattern.cuh"
#include "redop.cuh"

/* value (an integer, or a double for avg) as dtype's bytes into raw; returns the bytes used */
static size_t encode(int dt, double v, unsigned char *raw) {
  memset(raw, 0, 8);
  switch (dt) {
  case CB_FLOAT: {
    float x = (float)v;
    memcpy(raw, &x, 4);
    return 4;
  }
  case CB_HALF: {
    __half x = __float2half_rn((float)v);
    memcpy(raw, &x, 2);
    return 2;
  }
  case CB_BF16: {
    __nv_bfloat16 x = __float2bfloat16_rn((float)v);
    memcpy(raw, &x, 2);
    return 2;
  }
  case CB_FP8E4M3: raw[0] = cb_float_to_e4m3((float)v); return 1;
  case CB_FP8E5M2: raw[0] = cb_float_to_e5m2((float)v); return 1;
  case CB_INT8: {
    int8_t x = (int8_t)(long long)v;
    memcpy(raw, &x, 1);
    return 1;
  }
  case CB_UINT8: {
    uint8_t x = (uint8_t)(long long)v;
    memcpy(raw, &x, 1);
    return 1;
  }
  case CB_INT32: {
    int32_t x = (int32_t)(long long)v;
    memcpy(raw, &x, 4);
    return 4;
  }
  case CB_UINT32: {
    uint32_t x = (uint32_t)(long long)v;
    memcpy(raw, &x, 4);
    return 4;
  }
  case CB_INT64: {
    int64_t x = (int64_t)(long long)v;
    memcpy(raw, &x, 8);
    return 8;
  }
  case CB_UINT64: {
    uint64_t x = (uint64_t)(long long)v;
    memcpy(raw, &x, 8);
    return 8;
  }
  default: memcpy(raw, &v, 8); return 8;
  }
}

/* the range of an integer type as long long (uint64 capped: the pattern stays far below) */
static void int_range(int dt, long long *lo, long long *hi) {
  switch (dt) {
  case CB_INT8: *lo = INT8_MIN, *hi = INT8_MAX; break;
  case CB_UINT8: *lo = 0, *hi = UINT8_MAX; break;
  case CB_INT32: *lo = INT32_MIN, *hi = INT32_MAX; break;
  case CB_UINT32: *lo = 0, *hi = UINT32_MAX; break;
  case CB_INT64: *lo = INT64_MIN, *hi = INT64_MAX; break;
  default: *lo = 0, *hi = INT64_MAX; break;
  }
}

/* the poison bytes read as the integer type (sign-extended for the signed types) */
static long long poison_value(int dt) {
  unsigned char raw[8];
  memset(raw, cb_pattern_poison_byte(dt), sizeof raw);
  switch (dt) {
  case CB_INT8: return (int8_t)raw[0];
  case CB_UINT8: return raw[0];
  case CB_INT32: {
    int32_t x;
    memcpy(&x, raw, 4);
    return x;
  }
  case CB_UINT32: {
    uint32_t x;
    memcpy(&x, raw, 4);
    return x;
  }
  default: {
    int64_t x;
    memcpy(&x, raw, 8);
    return x;
  }
  }
}

static void test_expected_values(void) {
  const int ns[] = {1, 2, 3, 4, 5, 7, 8, 16, 64};
  const int ops[] = {CB_SUM, CB_PROD, CB_MAX, CB_MIN, CB_AVG};
  const uint64_t seed = 42;
  const int iter = 3;
  for (int dt = 0; dt < CB_NDTYPES; dt++)
    for (int oi = 0; oi < 5; oi++)
      for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        const int op = ops[oi], n = ns[ni];
        for (uint64_t i = 0; i < 200; i++) {
          long long sum = 0, prod = 1, mx = 0, mn = 0;
          for (int r = 0; r < n; r++) {
            long long v = cb_pattern_op_value(seed, r, iter, i, dt, n, op);
            sum += v;
            prod *= v;
            mx = r == 0 || v > mx ? v : mx;
            mn = r == 0 || v < mn ? v : mn;
          }
          double model;
          switch (op) {
          case CB_SUM: model = (double)sum; break;
          case CB_PROD: model = (double)prod; break;
          case CB_MAX: model = (double)mx; break;
          case CB_MIN: model = (double)mn; break;
          default: model = cb_dtype_is_int(dt) ? (double)(sum / n) : (double)sum / n; /* C truncates toward 0 */
          }
          const double want = cb_expected_host(CB_LAYOUT_ALLREDUCE, dt, op, i, 1, 0, n, 0, seed, iter);
          CHECK(want == model, "%s %s n=%d i=%llu: expected %.17g, model %.17g", cb_dtype_name((cb_dtype_t)dt),
                cb_redop_name((cb_redop_t)op), n, (unsigned long long)i, want, model);
          unsigned char raw[8];
          if (cb_dtype_is_int(dt)) {
            long long lo, hi;
            int_range(dt, &lo, &hi);
            CHECK(model >= (double)lo && model <= (double)hi && (long long)model != poison_value(dt),
                  "%s %s n=%d: %g not representable or the poison", cb_dtype_name((cb_dtype_t)dt),
                  cb_redop_name((cb_redop_t)op), n, model);
            encode(dt, model + 1, raw);
            CHECK(!cb_element_ok_host(dt, op, n, raw, want), "%s %s: one off accepted", cb_dtype_name((cb_dtype_t)dt),
                  cb_redop_name((cb_redop_t)op));
          } else if (op != CB_AVG) {
            /* exact: the model round-trips through the type */
            encode(dt, model, raw);
            double back = cb_read_element_host(dt, raw);
            CHECK(back == model, "%s %s n=%d: %g not exact (%g)", cb_dtype_name((cb_dtype_t)dt),
                  cb_redop_name((cb_redop_t)op), n, model, back);
          }
          encode(dt, model, raw);
          CHECK(cb_element_ok_host(dt, op, n, raw, want), "%s %s n=%d i=%llu: the right value %g refused",
                cb_dtype_name((cb_dtype_t)dt), cb_redop_name((cb_redop_t)op), n, (unsigned long long)i, model);
          memset(raw, cb_pattern_poison_byte(dt), sizeof raw);
          CHECK(!cb_element_ok_host(dt, op, n, raw, want), "%s %s n=%d: the poison accepted",
                cb_dtype_name((cb_dtype_t)dt), cb_redop_name((cb_redop_t)op), n);
        }
      }
}

/* redop.cuh: C's unsigned arithmetic for the integers, NCCL's truncating avg */
static void test_integer_arithmetic(void) {
  CHECK_EQ_INT(cb_combine<uint8_t>(CB_SUM, 200, 100), 44);
  CHECK_EQ_INT(cb_combine<int8_t>(CB_SUM, 127, 1), -128);
  CHECK_EQ_INT(cb_combine<int8_t>(CB_PROD, -128, -1), -128);
  CHECK_EQ_INT(cb_combine<int32_t>(CB_PROD, 65536, 65536), 0);
  CHECK_EQ_INT(cb_combine<uint32_t>(CB_SUM, 4294967295u, 2u), 1);
  CHECK(cb_combine<uint64_t>(CB_PROD, 1ull << 63, 2) == 0, "uint64 prod wraps");
  CHECK(cb_combine<int64_t>(CB_SUM, INT64_MAX, 1) == INT64_MIN, "int64 sum wraps");
  CHECK_EQ_INT(cb_combine<int32_t>(CB_MAX, -5, 3), 3);
  CHECK_EQ_INT(cb_combine<uint32_t>(CB_MIN, 7u, 4294967295u), 7);
  CHECK_EQ_INT(cb_finish_op<int32_t>(CB_AVG, -7, 2), -3);
  CHECK_EQ_INT(cb_finish_op<int8_t>(CB_AVG, -128, 200), 0);
  CHECK_EQ_INT(cb_finish_op<uint8_t>(CB_AVG, 255, 2), 127);
  CHECK(cb_finish_op<uint64_t>(CB_AVG, UINT64_MAX, 3) == UINT64_MAX / 3, "uint64 avg");
  CHECK_EQ_INT(cb_finish_op<int64_t>(CB_SUM, -7, 2), -7);
  CHECK(cb_finish_op<double>(CB_AVG, 1.0, 3) == 1.0 / 3.0, "double avg divides in double");
  CHECK(cb_combine<double>(CB_SUM, 9007199254740992.0, 2.0) == 9007199254740994.0, "double sums in double");
}

/* the arithmetic types: fp32 only for the narrow floating types */
static void test_accumulators(void) {
  CHECK(sizeof(cb_acc_t<double>) == 8 && sizeof(cb_acc_t<int64_t>) == 8 && sizeof(cb_acc_t<uint64_t>) == 8,
        "64-bit types accumulate in 64 bits");
  CHECK(sizeof(cb_acc_t<__half>) == 4 && sizeof(cb_acc_t<cb_e4m3_t>) == 4, "narrow floats accumulate in fp32");
  CHECK(cb_vec<int64_t>::N == 2 && cb_vec<int8_t>::N == 16 && cb_vec<double>::N == 2 && cb_vec<uint32_t>::N == 4,
        "lanes per 16 bytes");
}

int main(void) {
  test_expected_values();
  test_integer_arithmetic();
  test_accumulators();
  return cb_test_finish("test_expected");
}
