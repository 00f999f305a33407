/* GPU test of the block-attention kernel (kernels/attn/attn.h) on one GPU, and its benchmark.
 *
 *   attn_kernel_test           correctness: cb_attn_fwd against the fp32 reference on many
 *                              shapes; exit 1 on any failure, 77 when there is no GPU
 *   attn_kernel_test --bench   also time both kernels (the Hopper kernel and the mma.sync
 *                              fallback; B = 1, H = 32) and print
 *                              TFLOP/s = 4 B H S^2 D / t (half of that for causal); the target
 *                              shapes (D = 128, S = 16384) first, in rounds of all variants
 *                              side by side
 *   attn_kernel_test --one V   one launch of kernel V (0 the Hopper kernel, 1 the mma.sync
 *                              one) at the target shape (bf16, D = 128, S = 16384, non-causal)
 *                              after three warm-ups: for a profiler
 *
 * Correctness, per case (bf16 and fp16, head dim 64 and 128, every variant): the K/V block is split into
 * `nsplit` parts that go through cb_attn_fwd one after the other (first on the first, final on
 * the last, o / lse / out poisoned with NaN first), exactly as ring steps do; the output is
 * compared with cb_attn_reference(lowp = 0) on the whole block (fp32 truth). The tolerance is
 * the issue's: max |out - truth| <= 2 x the max error of cb_attn_reference(lowp = 1) (the
 * same attention computed naively in the low-precision dtype) + 1e-5. The floor only matters
 * where the naive computation is exact (one visible key: out = v); 1e-5 is far below one bf16
 * or fp16 ulp at the outputs' magnitudes, so it forgives no rounding step. The fp32 lse must
 * agree within 1e-3 (scores are exact products accumulated in fp32, so a wrong lse is a logic
 * error, not rounding); rows that see no key at all must give lse = -inf and out = 0 exactly.
 * The bad-argument checks of the launcher run first (they need no GPU). */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn.h"
#include "attn_merge.h"
#include "attn_test_util.h"
#include "error_gpu.h"

static int failures;

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static float rnd_f(void) { /* [-1, 1) */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (float)(rng >> 40) / 8388608.0f - 1.0f;
}

static void *xmalloc(size_t bytes) {
  void *p = malloc(bytes < 16 ? 16 : bytes);
  if (!p) {
    fprintf(stderr, "attn_kernel_test: out of host memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

static void *dmalloc(size_t bytes) {
  void *p;
  CB_CUDA(cudaMalloc(&p, bytes < 16 ? 16 : bytes));
  return p;
}

/* ---- the two kernels compared (attn.h): the Hopper kernel (wgmma), which cb_attn_fwd runs on
 * sm_90, and the mma.sync fallback it runs elsewhere ---- */
typedef struct variant {
  const char *name;
  int (*launch)(const cb_attn_args_t *a, cudaStream_t s, char *why, size_t n); /* 0, or -1 with why */
} variant_t;
static const variant_t variants[] = {
    {"wgmma", cb_attn_fwd_sm90},
    {"mma.sync", cb_attn_fwd_mma},
};
#define NVARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* ---- bad arguments: every one must be refused with a reason, nothing launched ---- */
static void expect_refused(const cb_attn_args_t *a, const char *needle) {
  char why[256] = "";
  const int rc = cb_attn_fwd(a, 0, why, sizeof why);
  if (rc != -1 || !strstr(why, needle)) {
    fprintf(stderr, "FAIL bad args: rc %d, reason '%s', expected one naming '%s'\n", rc, why, needle);
    failures++;
  }
}

static void bad_args(void) {
  static __align__(16) char fake[64]; /* never dereferenced: nothing may launch */
  cb_attn_args_t ok;
  memset(&ok, 0, sizeof ok);
  ok.q = ok.k = ok.v = fake;
  ok.o = ok.lse = (float *)fake;
  ok.out = fake;
  ok.batch = 1, ok.heads = 8, ok.kv_heads = 2, ok.head_dim = 128, ok.q_len = 10, ok.kv_len = 10;
  ok.bf16 = 1, ok.causal = 1, ok.scale = 0.125f, ok.first = 1, ok.final = 1;
  ok.qpos.len0 = ok.kvpos.len0 = 10;
  cb_attn_args_t a = ok;
  a.head_dim = 96;
  expect_refused(&a, "head dim 96");
  a = ok, a.kv_heads = 3;
  expect_refused(&a, "not divisible");
  a = ok, a.qpos.len0 = 4, a.qpos.start1 = 2;
  expect_refused(&a, "second run");
  a = ok, a.kvpos.start0 = -1;
  expect_refused(&a, "must be >= 0");
  a = ok, a.scale = 0.0f;
  expect_refused(&a, "scale");
  a = ok, a.out = NULL;
  expect_refused(&a, "missing buffer");
  a = ok, a.k = fake + 2;
  expect_refused(&a, "aligned");
  a = ok, a.q_len = -1;
  expect_refused(&a, "negative");
  a = ok, a.first = 2;
  expect_refused(&a, "0 or 1");
  a = ok, a.kvpos.start1 = 1LL << 31, a.kvpos.len0 = 5;
  expect_refused(&a, "beyond");
  char why[256] = "";
  a = ok, a.head_dim = 96; /* the fallback runs the same checks */
  if (cb_attn_fwd_mma(&a, 0, why, sizeof why) != -1 || !strstr(why, "head dim 96")) {
    fprintf(stderr, "FAIL bad args: the mma.sync kernel took head dim 96 ('%s')\n", why);
    failures++;
  }
  a = ok, a.head_dim = 96; /* and so does the Hopper kernel */
  if (cb_attn_fwd_sm90(&a, 0, why, sizeof why) != -1 || !strstr(why, "head dim 96")) {
    fprintf(stderr, "FAIL bad args: the Hopper kernel took head dim 96 ('%s')\n", why);
    failures++;
  }
  if (cb_attn_check_args(&ok, why, sizeof why) != 0) {
    fprintf(stderr, "FAIL bad args: a valid configuration refused: %s\n", why);
    failures++;
  }
  /* strided (stripe) causal positions: the references' checks take them, the fast kernels do not */
  a = ok, a.kvpos.stride = 4;
  if (cb_attn_check_args(&a, why, sizeof why) != 0) {
    fprintf(stderr, "FAIL bad args: stride 4 refused by the shared checks: %s\n", why);
    failures++;
  }
  if (cb_attn_fwd_mma(&a, 0, why, sizeof why) != -1 || !strstr(why, "consecutive positions only")) {
    fprintf(stderr, "FAIL bad args: the mma.sync kernel took stride 4 ('%s')\n", why);
    failures++;
  }
  if (cb_attn_fwd_sm90(&a, 0, why, sizeof why) != -1 || !strstr(why, "consecutive positions only")) {
    fprintf(stderr, "FAIL bad args: the Hopper kernel took stride 4 ('%s')\n", why);
    failures++;
  }
  a.causal = 0; /* positions do not matter without the mask */
  if (cb_attn_check_consecutive(&a.qpos, &a.kvpos, a.causal, why, sizeof why) != 0) {
    fprintf(stderr, "FAIL bad args: non-causal stride 4 refused: %s\n", why);
    failures++;
  }
  a = ok, a.qpos.stride = -2;
  expect_refused(&a, "must be >= 0");
}

/* ---- correctness ---- */

typedef struct {
  const char *name;
  int batch, heads, kv_heads, q_len, kv_len, causal, nsplit;
  cb_attn_pos_t qpos, kvpos;
  float qamp; /* query amplitude: larger = peakier softmax */
} tcase_t;

typedef struct {
  double max_err, mean_err, lse_err;
  long long empty_rows, empty_bad;
} errs_t;

/* out (16-bit) against truth o (fp32), over every element; lse against lse truth */
static errs_t compare(const uint16_t *out, const float *o_ref, const float *lse, const float *lse_ref, size_t n_o,
                      size_t n_rows, int D, int heads, int q_len, int bf16) {
  errs_t e = {0, 0, 0, 0, 0};
  for (size_t i = 0; i < n_o; i++) {
    double d = fabs((double)from_bits(out[i], bf16) - o_ref[i]);
    if (isnan(d)) d = INFINITY; /* a NaN output fails the case */
    if (d > e.max_err) e.max_err = d;
    e.mean_err += d;
  }
  e.mean_err /= (double)(n_o ? n_o : 1);
  if (!lse) return e;
  for (size_t r = 0; r < n_rows; r++) {
    if (lse_ref[r] == -INFINITY) {
      /* lse is [batch][heads][q_len]; the row's output is at [batch][row][heads][D] */
      const size_t b = r / ((size_t)heads * q_len), h = (r / q_len) % heads, row = r % q_len;
      const uint16_t *orow = out + ((b * q_len + row) * heads + h) * D;
      int zero = lse[r] == -INFINITY;
      for (int d = 0; d < D; d++) zero = zero && from_bits(orow[d], bf16) == 0.0f;
      e.empty_rows++;
      e.empty_bad += !zero;
      continue;
    }
    double d = fabs((double)lse[r] - lse_ref[r]);
    if (isnan(d)) d = INFINITY;
    if (d > e.lse_err) e.lse_err = d;
  }
  return e;
}

/* dense: NULL, or the positions the fast kernel gets instead of c's (query, then keys): a stripe
 * pair's dense block, which must give what the reference gives at the strided positions. */
static void run_case(const tcase_t *c, int D, int bf16, const cb_attn_pos_t *dense) {
  const int B = c->batch, H = c->heads, KH = c->kv_heads, Q = c->q_len, K = c->kv_len;
  const size_t nq = (size_t)B * Q * H * D, nkv = (size_t)B * K * KH * D, nl = (size_t)B * H * Q;
  uint16_t *hq = (uint16_t *)xmalloc(nq * 2), *hk = (uint16_t *)xmalloc(nkv * 2);
  uint16_t *hv = (uint16_t *)xmalloc(nkv * 2);
  for (size_t i = 0; i < nq; i++) hq[i] = to_bits(c->qamp * rnd_f(), bf16);
  for (size_t i = 0; i < nkv; i++) hk[i] = to_bits(rnd_f(), bf16);
  for (size_t i = 0; i < nkv; i++) hv[i] = to_bits(rnd_f(), bf16);
  void *dq = dmalloc(nq * 2), *dk = dmalloc(nkv * 2), *dv = dmalloc(nkv * 2);
  CB_CUDA(cudaMemcpy(dq, hq, nq * 2, cudaMemcpyHostToDevice));
  CB_CUDA(cudaMemcpy(dk, hk, nkv * 2, cudaMemcpyHostToDevice));
  CB_CUDA(cudaMemcpy(dv, hv, nkv * 2, cudaMemcpyHostToDevice));
  float *o[3], *lse[3];
  void *out[3];
  for (int i = 0; i < 3; i++) { /* 0 truth, 1 naive low precision, 2 fast */
    o[i] = (float *)dmalloc(nq * 4);
    lse[i] = (float *)dmalloc(nl * 4);
    out[i] = dmalloc(nq * 2);
    CB_CUDA(cudaMemset(o[i], 0xff, nq * 4)); /* NaN */
    CB_CUDA(cudaMemset(lse[i], 0xff, nl * 4));
    CB_CUDA(cudaMemset(out[i], 0xff, nq * 2));
  }
  cb_attn_args_t a;
  memset(&a, 0, sizeof a);
  a.q = dq, a.k = dk, a.v = dv;
  a.batch = B, a.heads = H, a.kv_heads = KH, a.head_dim = D, a.q_len = Q, a.kv_len = K;
  a.bf16 = bf16, a.causal = c->causal, a.qpos = c->qpos, a.kvpos = c->kvpos;
  a.scale = 1.0f / sqrtf((float)D), a.first = 1, a.final = 1;
  char why[256];
  for (int lowp = 0; lowp < 2; lowp++) {
    a.o = o[lowp], a.lse = lse[lowp], a.out = out[lowp];
    if (cb_attn_reference(&a, lowp, 0, why, sizeof why) != 0) {
      fprintf(stderr, "FAIL %s: reference refused: %s\n", c->name, why);
      failures++;
      return;
    }
    CB_CUDA(cudaGetLastError());
  }
  float *ho = (float *)xmalloc(nq * 4), *hl = (float *)xmalloc(nl * 4), *hlf = (float *)xmalloc(nl * 4);
  uint16_t *hout_lp = (uint16_t *)xmalloc(nq * 2), *hout_f = (uint16_t *)xmalloc(nq * 2);
  CB_CUDA(cudaMemcpy(ho, o[0], nq * 4, cudaMemcpyDeviceToHost));
  CB_CUDA(cudaMemcpy(hl, lse[0], nl * 4, cudaMemcpyDeviceToHost));
  CB_CUDA(cudaMemcpy(hout_lp, out[1], nq * 2, cudaMemcpyDeviceToHost));
  const errs_t lp = compare(hout_lp, ho, NULL, NULL, nq, nl, D, H, Q, bf16);
  const double tol = 2.0 * lp.max_err + 1e-5;

  /* the fast kernel in every variant, split into nsplit K/V parts (each copied to its own
   * buffer, as a ring step receives it) */
  const size_t row_bytes = (size_t)KH * D * 2;
  void *sk = dmalloc(nkv * 2), *sv = dmalloc(nkv * 2);
  for (int vi = 0; vi < NVARIANTS; vi++) {
    const variant_t *var = &variants[vi];
    const char *vname = var->name;
    CB_CUDA(cudaMemset(o[2], 0xff, nq * 4));
    CB_CUDA(cudaMemset(lse[2], 0xff, nl * 4));
    CB_CUDA(cudaMemset(out[2], 0xff, nq * 2));
    int refused = 0;
    for (int s = 0; s < c->nsplit && !refused; s++) {
      const long long k0 = (long long)K * s / c->nsplit, k1 = (long long)K * (s + 1) / c->nsplit;
      if (k1 > k0) {
        CB_CUDA(cudaMemcpy2D(sk, (k1 - k0) * row_bytes, (char *)dk + k0 * row_bytes, (size_t)K * row_bytes,
                             (k1 - k0) * row_bytes, B, cudaMemcpyDeviceToDevice));
        CB_CUDA(cudaMemcpy2D(sv, (k1 - k0) * row_bytes, (char *)dv + k0 * row_bytes, (size_t)K * row_bytes,
                             (k1 - k0) * row_bytes, B, cudaMemcpyDeviceToDevice));
      }
      cb_attn_args_t f = a;
      const cb_attn_pos_t kp = dense ? dense[1] : c->kvpos;
      if (dense) f.qpos = dense[0];
      f.kvpos = kp; /* its stride too: the dense pair's is 1 */
      f.k = sk, f.v = sv, f.kv_len = (int)(k1 - k0);
      cb_attn_pos_slice(kp.start0, kp.len0, kp.start1, k0, k1, &f.kvpos.start0, &f.kvpos.len0, &f.kvpos.start1);
      f.o = o[2], f.lse = lse[2], f.out = out[2];
      f.first = s == 0, f.final = s == c->nsplit - 1;
      if (var->launch(&f, 0, why, sizeof why) != 0) {
        fprintf(stderr, "FAIL %s %s: refused: %s\n", c->name, vname, why);
        refused = 1;
      }
      CB_CUDA(cudaGetLastError());
      CB_CUDA(cudaDeviceSynchronize()); /* the split buffers are reused */
    }
    CB_CUDA(cudaMemcpy(hlf, lse[2], nl * 4, cudaMemcpyDeviceToHost));
    CB_CUDA(cudaMemcpy(hout_f, out[2], nq * 2, cudaMemcpyDeviceToHost));
    const errs_t f = compare(hout_f, ho, hlf, hl, nq, nl, D, H, Q, bf16);
    const int ok = !refused && f.max_err <= tol && f.lse_err <= 1e-3 && f.empty_bad == 0;
    printf("%-4s %-4s D=%-3d %-22s %-28s fast max %.3e mean %.3e | naive max %.3e mean %.3e | "
           "lse %.1e | rows seeing no key %lld%s\n",
           ok ? "ok" : "FAIL", bf16 ? "bf16" : "fp16", D, vname, c->name, f.max_err, f.mean_err, lp.max_err,
           lp.mean_err, f.lse_err, f.empty_rows, f.empty_bad ? " (WRONG)" : "");
    failures += !ok;
  }
  for (int i = 0; i < 3; i++) {
    CB_CUDA(cudaFree(o[i]));
    CB_CUDA(cudaFree(lse[i]));
    CB_CUDA(cudaFree(out[i]));
  }
  CB_CUDA(cudaFree(dq));
  CB_CUDA(cudaFree(dk));
  CB_CUDA(cudaFree(dv));
  CB_CUDA(cudaFree(sk));
  CB_CUDA(cudaFree(sv));
  free(hq), free(hk), free(hv), free(ho), free(hl), free(hlf), free(hout_lp), free(hout_f);
}

/* one run of stride st from start */
static cb_attn_pos_t strided(long long start, long long st) {
  cb_attn_pos_t p = run1(start);
  p.stride = st;
  return p;
}

/* Stripe pairs (queries at qs + i*R, keys at ks + j*R): the reference at those positions against
 * the fast kernels on the dense block, queries at A = floor((qs - ks) / R) and keys at 0 (shifted
 * so neither is negative), worked out here apart from collectives/attn/attn_layout.c. */
static void stripe_pairs(void) {
  typedef struct {
    const char *name;
    long long qs, ks, R;
    int q_len, kv_len, nsplit;
  } spair_t;
  const spair_t pairs[] = {
      {"stripe R=4 member 0 vs 1 (cut)", 0, 1, 4, 300, 300, 1},
      {"stripe R=4 member 3 vs 1", 3, 1, 4, 300, 300, 1},
      {"stripe R=3 member 2 vs 2, 2 steps", 2, 2, 3, 257, 257, 2},
      {"stripe R=8 member 1 vs 7, 3 steps", 1, 7, 8, 200, 200, 3},
      {"stripe U=2 R=2 rank 1 vs 2", 200, 1, 2, 100, 100, 1}, /* rank u*L*R + g: L = 100 */
      {"stripe U=2 R=2 rank 0 vs 3", 0, 201, 2, 100, 100, 1},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    const spair_t *p = &pairs[i];
    const long long diff = p->qs - p->ks, A = diff >= 0 ? diff / p->R : -((-diff + p->R - 1) / p->R);
    const cb_attn_pos_t dense[2] = {run1(A > 0 ? A : 0), run1(A < 0 ? -A : 0)};
    tcase_t c = {p->name, 1, 8, 2, p->q_len, p->kv_len, 1, p->nsplit, strided(p->qs, p->R), strided(p->ks, p->R), 3.0f};
    for (int bf16 = 1; bf16 >= 0; bf16--)
      for (int D = 64; D <= 128; D += 64) run_case(&c, D, bf16, dense);
  }
}

static void correctness(void) {
  const tcase_t cases[] = {
      /* name                       B  H KH    Q     K  causal split qpos                kvpos */
      {"gqa 1000x1000", 1, 8, 2, 1000, 1000, 0, 1, run1(0), run1(0), 1.0f},
      {"gqa causal 1000x1000", 1, 8, 2, 1000, 1000, 1, 1, run1(0), run1(0), 3.0f},
      {"causal 77x129 end, 2 steps", 1, 8, 2, 77, 129, 1, 2, run1(52), run1(0), 3.0f},
      {"causal q=1 at 999, 3 steps", 1, 8, 2, 1, 1000, 1, 3, run1(999), run1(0), 3.0f},
      {"kv=1", 1, 8, 2, 1000, 1, 0, 1, run1(0), run1(0), 1.0f},
      {"causal kv=1 at 500", 1, 8, 2, 1000, 1, 1, 1, run1(0), run1(500), 1.0f},
      {"batch 2 129x77, 2 steps", 2, 4, 4, 129, 77, 0, 2, run1(0), run1(0), 3.0f},
      {"zigzag c=77 q0 kv1", 1, 8, 2, 154, 154, 1, 1, zig(77, 0), zig(77, 1), 3.0f},
      {"zigzag c=129 q1 kv0, 2 steps", 1, 8, 2, 258, 258, 1, 2, zig(129, 1), zig(129, 0), 3.0f},
      {"zigzag c=200 q0 kv0, 4 steps", 2, 8, 2, 400, 400, 1, 4, zig(200, 0), zig(200, 0), 3.0f},
      {"256x4096, 4 steps", 1, 2, 1, 256, 4096, 0, 4, run1(0), run1(0), 4.0f},
      {"causal 300x300, 3 steps", 1, 8, 8, 300, 300, 1, 3, run1(0), run1(0), 3.0f},
      {"kv=0", 1, 4, 2, 100, 0, 0, 1, run1(0), run1(0), 1.0f},
  };
  for (int bf16 = 1; bf16 >= 0; bf16--)
    for (int D = 64; D <= 128; D += 64)
      for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i], D, bf16, NULL);
  stripe_pairs();
}

/* ---- benchmark ---- */

__global__ void fill_random(uint16_t *p, size_t n, uint32_t seed, int bf16) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t x = (uint32_t)i * 2654435761u ^ seed;
    x ^= x >> 15, x *= 2246822519u, x ^= x >> 13;
    const float f = (float)(x >> 8) / 8388608.0f - 1.0f;
    if (bf16) {
      __nv_bfloat16 b = __float2bfloat16_rn(f);
      p[i] = *reinterpret_cast<uint16_t *>(&b);
    } else {
      __half h = __float2half_rn(f);
      p[i] = *reinterpret_cast<uint16_t *>(&h);
    }
  }
}

/* One timed configuration: B = 1, H = 32 query heads (kv_heads given), S x S, 16-bit inputs;
 * prints TFLOP/s = 4 B H S^2 D / t (half for causal). Returns the TFLOP/s (0 when refused). */
static double bench_one(int S, int D, int causal, int bf16, int kv_heads, const variant_t *v, int iters) {
  const int B = 1, H = 32;
  const size_t n = (size_t)B * S * H * D, nkv = (size_t)B * S * kv_heads * D, nl = (size_t)B * H * S;
  uint16_t *q = (uint16_t *)dmalloc(n * 2), *k = (uint16_t *)dmalloc(nkv * 2), *v16 = (uint16_t *)dmalloc(nkv * 2);
  float *o = (float *)dmalloc(n * 4), *lse = (float *)dmalloc(nl * 4);
  void *out = dmalloc(n * 2);
  fill_random<<<1024, 256>>>(q, n, 1, bf16);
  fill_random<<<1024, 256>>>(k, nkv, 2, bf16);
  fill_random<<<1024, 256>>>(v16, nkv, 3, bf16);
  CB_CUDA(cudaGetLastError());
  cb_attn_args_t a;
  memset(&a, 0, sizeof a);
  a.q = q, a.k = k, a.v = v16, a.o = o, a.lse = lse, a.out = out;
  a.batch = B, a.heads = H, a.kv_heads = kv_heads, a.head_dim = D, a.q_len = S, a.kv_len = S;
  a.bf16 = bf16, a.causal = causal, a.qpos = run1(0), a.kvpos = run1(0);
  a.scale = 1.0f / sqrtf((float)D), a.first = 1, a.final = 1;
  char why[256];
  const char *vname = v->name;
  cudaEvent_t e0, e1;
  CB_CUDA(cudaEventCreate(&e0));
  CB_CUDA(cudaEventCreate(&e1));
  double tflops = 0.0;
  int ok = 1;
  for (int i = 0; i < 3 + iters && ok; i++) {
    if (i == 3) CB_CUDA(cudaEventRecord(e0));
    if (v->launch(&a, 0, why, sizeof why) != 0) {
      printf("bench %s: not run: %s\n", vname, why);
      ok = 0;
    }
  }
  if (ok) {
    CB_CUDA(cudaEventRecord(e1));
    CB_CUDA(cudaGetLastError());
    CB_CUDA(cudaEventSynchronize(e1));
    float ms;
    CB_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    const double t = ms / 1e3 / iters;
    tflops = 4.0 * B * H * (double)S * S * D * (causal ? 0.5 : 1.0) / t / 1e12;
    printf("bench %s H=%d/%d D=%-3d S=%-6d %-10s %-22s %8.3f ms  %6.1f TFLOP/s\n", bf16 ? "bf16" : "fp16", H, kv_heads,
           D, S, causal ? "causal" : "non-causal", vname, t * 1e3, tflops);
  }
  CB_CUDA(cudaEventDestroy(e0));
  CB_CUDA(cudaEventDestroy(e1));
  CB_CUDA(cudaFree(q));
  CB_CUDA(cudaFree(k));
  CB_CUDA(cudaFree(v16));
  CB_CUDA(cudaFree(o));
  CB_CUDA(cudaFree(lse));
  CB_CUDA(cudaFree(out));
  return tflops;
}

/* both kernels at one shape, side by side */
static void bench_all(int S, int D, int causal, int bf16, int kv_heads, int iters) {
  for (int vi = 0; vi < NVARIANTS; vi++) bench_one(S, D, causal, bf16, kv_heads, &variants[vi], iters);
}

int main(int argc, char **argv) {
  int bench = 0, one = -1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--bench") == 0) {
      bench = 1;
    } else if (strcmp(argv[i], "--one") == 0 && i + 1 < argc) {
      char *end;
      const long x = strtol(argv[++i], &end, 10);
      if (end == argv[i] || *end || x < 0 || x >= NVARIANTS) {
        fprintf(stderr, "attn_kernel_test: --one takes a variant index 0..%d\n", NVARIANTS - 1);
        return 2;
      }
      one = (int)x;
    } else {
      fprintf(stderr, "usage: %s [--bench | --one VARIANT]\n", argv[0]);
      return 2;
    }
  }
  bad_args();
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
    (void)cudaGetLastError();
    printf("no GPU on this machine: skipping the attention kernel test (bad-argument checks: %s)\n",
           failures ? "FAILED" : "passed");
    return failures ? 1 : 77;
  }
  if (one >= 0) { /* one timed launch (after three warm-ups) at the target shape, for a profiler */
    bench_one(16384, 128, 0, 1, 32, &variants[one], 1);
    return failures ? 1 : 0;
  }
  correctness();
  if (bench) {
    /* the target shapes first, every variant side by side, in rounds (the spread between rounds
     * is the noise; side by side in one round is the fair comparison), then the ring's shard
     * lengths, grouped K/V heads and fp16 */
    for (int round = 0; round < 2; round++) {
      bench_all(16384, 128, 0, 1, 32, 20);
      bench_all(16384, 128, 1, 1, 32, 20);
    }
    bench_all(32768, 128, 0, 1, 32, 10);
    bench_all(32768, 128, 1, 1, 32, 10);
    for (int causal = 0; causal < 2; causal++) {
      bench_all(16384, 64, causal, 1, 32, 20);
      bench_all(4096, 128, causal, 1, 32, 50);
      bench_all(8192, 128, causal, 1, 32, 30);
      bench_all(16384, 128, causal, 1, 8, 20);
      bench_all(16384, 128, causal, 0, 32, 20);
    }
  }
  if (failures) {
    fprintf(stderr, "attn_kernel_test: %d failures\n", failures);
    return 1;
  }
  printf("attn_kernel_test: all cases passed\n");
  return 0;
}
