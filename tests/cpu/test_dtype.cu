/* CPU test of kernels/dtype.cuh and kernels/pattern.cuh host paths: our fp8 conversions against
 * CUDA's own cuda_fp8.h host conversions (all 256 codes decoded; encoding of every code's
 * value, midpoints between neighbours (ties to even), NaN, ±0, ±inf, subnormals, saturation),
 * half/bfloat16 round trips, and the exactness promise of the test pattern. Runs without a GPU. */
#include <cuda_fp8.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.cuh"
#include "pattern.cuh"

static int failures;
#define EXPECT(cond, ...)                                    \
  do {                                                       \
    if (!(cond)) {                                           \
      failures++;                                            \
      if (failures < 20) {                                   \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                        \
        fprintf(stderr, "\n");                               \
      }                                                      \
    }                                                        \
  } while (0)

static float cuda_decode(uint8_t c, __nv_fp8_interpretation_t k) {
  __half_raw h = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)c, k);
  __half hh = h;
  return __half2float(hh);
}

static uint8_t cuda_encode(float x, __nv_fp8_interpretation_t k) {
  return (uint8_t)__nv_cvt_float_to_fp8(x, __NV_SATFINITE, k);
}

static int same_float(float a, float b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  return a == b && signbit(a) == signbit(b);
}

static void check_format(const char *name, __nv_fp8_interpretation_t k, float (*dec)(uint8_t), uint8_t (*enc)(float)) {
  /* decode: all 256 codes */
  for (int c = 0; c < 256; c++) {
    float ours = dec((uint8_t)c), ref = cuda_decode((uint8_t)c, k);
    EXPECT(same_float(ours, ref), "%s decode 0x%02x: ours %g cuda %g", name, c, ours, ref);
  }
  /* encode: each code's value, the midpoints to the next code, and nudges around them */
  for (int c = 0; c < 256; c++) {
    float v = cuda_decode((uint8_t)c, k);
    if (isnan(v)) continue;
    float probes[6] = {v, nextafterf(v, INFINITY), nextafterf(v, -INFINITY), v * 1.0625f, v * 0.96875f, -v};
    for (int i = 0; i < 6; i++) {
      uint8_t ours = enc(probes[i]), ref = cuda_encode(probes[i], k);
      EXPECT(ours == ref, "%s encode %.9g: ours 0x%02x cuda 0x%02x", name, probes[i], ours, ref);
    }
    if (c + 1 < 256) {
      float w = cuda_decode((uint8_t)(c + 1), k);
      if (!isnan(w) && !isinf(w) && !isinf(v) && (c & 0x7f) != 0x7f) {
        float mid = 0.5f * (v + w); /* a tie: must round to the even code */
        uint8_t ours = enc(mid), ref = cuda_encode(mid, k);
        EXPECT(ours == ref, "%s encode tie %.9g: ours 0x%02x cuda 0x%02x", name, mid, ours, ref);
      }
    }
  }
  float specials[] = {0.0f,     -0.0f,    NAN,         -NAN,         INFINITY,   -INFINITY,    1e-30f,
                      -1e-30f,  1e30f,    -1e30f,      448.0f,       464.0f,     480.0f,       57344.0f,
                      61440.0f, 65536.0f, 1.0f / 1024, 1.0f / 65536, 1.5f / 512, 3.0f / 131072};
  for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
    uint8_t ours = enc(specials[i]), ref = cuda_encode(specials[i], k);
    EXPECT(ours == ref, "%s encode special %g: ours 0x%02x cuda 0x%02x", name, specials[i], ours, ref);
  }
  /* a dense random sweep over the whole range */
  uint64_t s = 12345;
  for (int i = 0; i < 200000; i++) {
    s = cb_mix64(s);
    float x = ldexpf((float)(s & 0xffffff) / 16777216.0f, (int)((s >> 24) % 40) - 24) * ((s >> 40) & 1 ? -1 : 1);
    uint8_t ours = enc(x), ref = cuda_encode(x, k);
    EXPECT(ours == ref, "%s encode random %.9g: ours 0x%02x cuda 0x%02x", name, x, ours, ref);
  }
}

static float d43(uint8_t c) { return cb_e4m3_to_float(c); }
static float d52(uint8_t c) { return cb_e5m2_to_float(c); }
static uint8_t e43(float x) { return cb_float_to_e4m3(x); }
static uint8_t e52(float x) { return cb_float_to_e5m2(x); }

int main(void) {
  check_format("e4m3", __NV_E4M3, d43, e43);
  check_format("e5m2", __NV_E5M2, d52, e52);

  /* Specific values the formats are known for. */
  EXPECT(cb_e4m3_to_float(0x7E) == 448.0f, "e4m3 max finite");
  EXPECT(isnan(cb_e4m3_to_float(0x7F)), "e4m3 NaN");
  EXPECT(cb_e5m2_to_float(0x7B) == 57344.0f, "e5m2 max finite");
  EXPECT(isinf(cb_e5m2_to_float(0x7C)), "e5m2 inf");
  EXPECT(cb_e4m3_to_float(0x01) == ldexpf(1.0f, -9), "e4m3 smallest subnormal");
  EXPECT(cb_float_to_e4m3(1000.0f) == 0x7E, "e4m3 saturates");

  /* half / bfloat16 scalar paths round-trip every small integer the pattern uses. */
  for (int v = -300; v <= 300; v++) {
    EXPECT(cb_scalar<__half>::to_float(cb_scalar<__half>::from_float((float)v)) == (float)v, "half %d", v);
    if (v >= -256 && v <= 256)
      EXPECT(cb_scalar<__nv_bfloat16>::to_float(cb_scalar<__nv_bfloat16>::from_float((float)v)) == (float)v, "bf16 %d",
             v);
  }

  /* The pattern's exactness promise: for every dtype and rank count, every partial sum of the
   * pattern values is an exactly representable integer (the integer types: within the limit,
   * so no sum wraps or meets the poison value), and the unsigned types get no negative value. */
  for (int dt = 0; dt < CB_NDTYPES; dt++)
    for (int n = 1; n <= 64; n *= 2) {
      int r = cb_pattern_range(dt, n);
      int limit = cb_pattern_limit(dt);
      int active = n < limit ? n : limit;
      const bool is_unsigned = cb_dtype_is_int(dt) && !cb_dtype_is_signed_int(dt);
      EXPECT((long)r * active <= limit, "pattern range dtype %d n %d: R %d * %d > %d", dt, n, r, active, limit);
      for (int i = 0; i < 1000; i++) {
        double sum = 0.0;
        for (int k = 0; k < n; k++) {
          float v = cb_pattern_value(7, k, 3, (uint64_t)i, dt, n);
          EXPECT(v == rintf(v) && fabsf(v) <= r, "pattern value %g out of range", v);
          EXPECT(!is_unsigned || v >= 0.0f, "unsigned dtype %d got %g", dt, v);
          sum += v;
          double back;
          switch (dt) {
          case CB_FLOAT: back = (float)sum; break;
          case CB_HALF: back = cb_scalar<__half>::to_float(cb_scalar<__half>::from_float((float)sum)); break;
          case CB_BF16:
            back = cb_scalar<__nv_bfloat16>::to_float(cb_scalar<__nv_bfloat16>::from_float((float)sum));
            break;
          case CB_FP8E4M3: back = cb_e4m3_to_float(cb_float_to_e4m3((float)sum)); break;
          case CB_FP8E5M2: back = cb_e5m2_to_float(cb_float_to_e5m2((float)sum)); break;
          default: back = fabs(sum) <= limit ? sum : NAN; /* the integers and double: within the limit */
          }
          EXPECT(back == sum, "partial sum %g not exact in dtype %d (n %d)", sum, dt, n);
        }
      }
    }
  /* prod: +-1 and +-2 (unsigned: 1, 2), a 2 only on the first cb_pattern_prod_twos ranks, so
   * |product| <= 2^twos <= the limit: exact in every dtype */
  for (int dt = 0; dt < CB_NDTYPES; dt++) {
    const int twos = cb_pattern_prod_twos(dt);
    EXPECT(twos >= 3 && (1 << twos) <= cb_pattern_limit(dt) && twos <= 6, "dtype %d: %d twos", dt, twos);
    for (int n = 1; n <= 8; n++)
      for (int i = 0; i < 200; i++)
        for (int k = 0; k < n; k++) {
          long long v = cb_pattern_op_value(5, k, 1, (uint64_t)i, dt, n, CB_PROD);
          long long mag = v < 0 ? -v : v;
          EXPECT(mag == 1 || (mag == 2 && k < twos), "prod value %lld on rank %d, dtype %d", v, k, dt);
          EXPECT(v > 0 || cb_dtype_is_signed_int(dt) || !cb_dtype_is_int(dt), "negative unsigned %lld", v);
        }
  }
  /* Tolerance: 0 for exact ops, positive for avg, growing with rank count. */
  EXPECT(cb_check_tolerance(0, 0, 8) == 0.0f, "sum is exact");
  EXPECT(cb_check_tolerance(CB_INT32, CB_AVG, 8) == 0.0, "integer avg is exact");
  EXPECT(cb_check_tolerance(CB_DOUBLE, CB_AVG, 8) > 0.0 && cb_check_tolerance(CB_DOUBLE, CB_AVG, 8) < 1e-12,
         "double avg tolerance from its epsilon");
  EXPECT(cb_check_tolerance(2, 3, 2) > 0.0f, "avg has a tolerance");
  EXPECT(cb_check_tolerance(2, 3, 8) >= cb_check_tolerance(2, 3, 2) * 0.25f, "avg tolerance scales");

  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("dtype: all fp8 codes and conversions match cuda_fp8.h; pattern sums exact\n");
  return 0;
}
