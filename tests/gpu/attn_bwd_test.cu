/* GPU test of the backward block-attention kernel (kernels/attn/attn_bwd.h, cb_attn_bwd) on one GPU,
 * and its benchmark.
 *   attn_bwd_test            correctness against a float64 host reference: bf16 and fp16, head
 *                            dims 64 and 128, causal (one run, zigzag, stripe pairs made dense)
 *                            and not, grouped K/V
 *                            heads, lengths that are no multiple of the tiles, the K/V block
 *                            split into parts that accumulate as ring steps do; exit 1 on any
 *                            failure, 77 without a GPU (or without the kernel: not sm_90)
 *   attn_bwd_test --bench    also time it at B 1, H 32, bf16, S 4K to 32K (and fp16 at 16K): TFLOP/s = 2.5 x
 *                            4 B H S^2 D / t (half for causal), FlashAttention's count
 *   attn_bwd_test --one [D]  only the bf16 S 16K non-causal timing at head dim D, 128 (the
 *                            default) or 64: one shape, for a profiler
 * The reference computes the forward on the host too (lse and O in float64, delta from O), so
 * the kernel's only inputs besides q, k, v, dO are the statistics it would get from a forward.
 * Tolerance: max |dX - truth| <= 0.02 x the gradient's scale per gradient (P and dS enter the
 * tensor cores rounded to the 16-bit dtype, 2^-8 relative for bf16, and sums over up to
 * thousands of terms); the scale is max |truth|, but at least 1e-3 x max |dV| (where every
 * query sees one key, P = 1 and dS = dP - delta is 0 up to rounding, so dQ and dK are pure
 * rounding noise against a zero truth); every element written (poisoned outputs: NaN fails). */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn_bwd.h"
#include "attn_test_util.h"
#include "error_gpu.h"

static int failures;
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static float rnd(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (float)(rng >> 40) / 8388608.0f - 1.0f;
}
static void *dalloc(size_t b) {
  void *p;
  CB_CUDA(cudaMalloc(&p, b < 16 ? 16 : b));
  return p;
}
static int64_t pos_at(cb_attn_pos_t p, int64_t i) {
  const int64_t st = p.stride > 1 ? p.stride : 1;
  return i < p.len0 ? p.start0 + i * st : p.start1 + (i - p.len0) * st;
}

typedef struct {
  const char *name;
  int batch, heads, kv_heads, q_len, kv_len, causal, nsplit;
  cb_attn_pos_t qpos, kvpos;
} bcase_t;

static double maxabs(const double *x, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
  return m;
}
static double maxdiff(const float *a, const double *b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++) {
    double d = fabs((double)a[i] - b[i]);
    if (isnan(d)) d = INFINITY;
    m = fmax(m, d);
  }
  return m;
}

/* dense: NULL, or the positions the kernel gets instead of c's (query, then keys): a stripe pair's
 * dense block, which must give the gradients the float64 reference gives at the strided ones. */
static void run_case(const bcase_t *c, int D, int bf16, const cb_attn_pos_t *dense) {
  const int B = c->batch, H = c->heads, KH = c->kv_heads, Q = c->q_len, K = c->kv_len, G = H / KH;
  const size_t nq = (size_t)B * Q * H * D, nk = (size_t)B * K * KH * D, nl = (size_t)B * H * Q;
  uint16_t *hq = (uint16_t *)malloc(nq * 2), *hk = (uint16_t *)malloc(nk * 2), *hv = (uint16_t *)malloc(nk * 2),
           *hdo = (uint16_t *)malloc(nq * 2);
  for (size_t i = 0; i < nq; i++) hq[i] = to_bits(2.0f * rnd(), bf16), hdo[i] = to_bits(rnd(), bf16);
  for (size_t i = 0; i < nk; i++) hk[i] = to_bits(rnd(), bf16), hv[i] = to_bits(rnd(), bf16);
  const double scale = 1.0 / sqrt((double)D);
  /* host float64: forward stats, then the gradients */
  double *lse = (double *)calloc(nl, 8), *delta = (double *)calloc(nl, 8);
  double *dq = (double *)calloc(nq, 8), *dk = (double *)calloc(nk, 8), *dv = (double *)calloc(nk, 8);
  double *prow = (double *)malloc((size_t)K * 8), *orow = (double *)malloc((size_t)D * 8);
  for (int b = 0; b < B; b++)
    for (int h = 0; h < H; h++)
      for (int i = 0; i < Q; i++) {
        const int hk2 = h / G;
        const uint16_t *qi = hq + (((size_t)b * Q + i) * H + h) * D, *doi = hdo + (((size_t)b * Q + i) * H + h) * D;
        double mx = -INFINITY;
        for (int j = 0; j < K; j++) {
          const int vis = !c->causal || pos_at(c->kvpos, j) <= pos_at(c->qpos, i);
          double s = -INFINITY;
          if (vis) {
            const uint16_t *kj = hk + (((size_t)b * K + j) * KH + hk2) * D;
            s = 0;
            for (int d = 0; d < D; d++) s += (double)from_bits(qi[d], bf16) * from_bits(kj[d], bf16);
            s *= scale;
          }
          prow[j] = s;
          mx = fmax(mx, s);
        }
        double sum = 0;
        for (int j = 0; j < K; j++) sum += prow[j] == -INFINITY ? 0 : exp(prow[j] - mx);
        const double l = sum > 0 ? mx + log(sum) : -INFINITY;
        lse[((size_t)b * H + h) * Q + i] = l;
        for (int d = 0; d < D; d++) orow[d] = 0;
        for (int j = 0; j < K; j++) {
          prow[j] = prow[j] == -INFINITY ? 0 : exp(prow[j] - l);
          const uint16_t *vj = hv + (((size_t)b * K + j) * KH + hk2) * D;
          for (int d = 0; d < D; d++) orow[d] += prow[j] * from_bits(vj[d], bf16);
        }
        double dl = 0;
        for (int d = 0; d < D; d++) dl += (double)from_bits(doi[d], bf16) * orow[d];
        delta[((size_t)b * H + h) * Q + i] = dl;
        for (int j = 0; j < K; j++) {
          if (prow[j] == 0) continue;
          const uint16_t *kj = hk + (((size_t)b * K + j) * KH + hk2) * D,
                         *vj = hv + (((size_t)b * K + j) * KH + hk2) * D;
          double dp = 0;
          for (int d = 0; d < D; d++) dp += (double)from_bits(doi[d], bf16) * from_bits(vj[d], bf16);
          const double ds = prow[j] * (dp - dl);
          double *dqi = dq + (((size_t)b * Q + i) * H + h) * D, *dkj = dk + (((size_t)b * K + j) * KH + hk2) * D,
                 *dvj = dv + (((size_t)b * K + j) * KH + hk2) * D;
          for (int d = 0; d < D; d++) {
            dqi[d] += scale * ds * from_bits(kj[d], bf16);
            dkj[d] += scale * ds * from_bits(qi[d], bf16);
            dvj[d] += prow[j] * from_bits(doi[d], bf16);
          }
        }
      }
  float *hl = (float *)malloc(nl * 4), *hd = (float *)malloc(nl * 4);
  for (size_t i = 0; i < nl; i++) hl[i] = (float)lse[i], hd[i] = (float)delta[i];
  void *q = dalloc(nq * 2), *k = dalloc(nk * 2), *v = dalloc(nk * 2), *dout = dalloc(nq * 2);
  float *dl = (float *)dalloc(nl * 4), *dd = (float *)dalloc(nl * 4);
  float *gq = (float *)dalloc(nq * 4), *gk = (float *)dalloc(nk * 4), *gv = (float *)dalloc(nk * 4);
  void *sk = dalloc(nk * 2), *sv = dalloc(nk * 2);
  float *sgk = (float *)dalloc(nk * 4), *sgv = (float *)dalloc(nk * 4);
  CB_CUDA(cudaMemcpy(q, hq, nq * 2, cudaMemcpyHostToDevice));
  CB_CUDA(cudaMemcpy(k, hk, nk * 2, cudaMemcpyHostToDevice));
  CB_CUDA(cudaMemcpy(v, hv, nk * 2, cudaMemcpyHostToDevice));
  CB_CUDA(cudaMemcpy(dout, hdo, nq * 2, cudaMemcpyHostToDevice));
  CB_CUDA(cudaMemcpy(dl, hl, nl * 4, cudaMemcpyHostToDevice));
  CB_CUDA(cudaMemcpy(dd, hd, nl * 4, cudaMemcpyHostToDevice));
  CB_CUDA(cudaMemset(gq, 0, nq * 4));
  CB_CUDA(cudaMemset(gk, 0xff, nk * 4)); /* NaN: every dK / dV element must be written below */
  CB_CUDA(cudaMemset(gv, 0xff, nk * 4));
  /* the K/V block in nsplit parts, each its own buffer with its own dK / dV (as ring steps);
   * the parts' dK / dV are copied back into place */
  const size_t row16 = (size_t)KH * D * 2, row32 = (size_t)KH * D * 4;
  char why[256];
  int refused = 0;
  for (int sp = 0; sp < c->nsplit && !refused; sp++) {
    const long long k0 = (long long)K * sp / c->nsplit, k1 = (long long)K * (sp + 1) / c->nsplit;
    if (k1 == k0) continue;
    CB_CUDA(cudaMemcpy2D(sk, (k1 - k0) * row16, (char *)k + k0 * row16, K * row16, (k1 - k0) * row16, B,
                         cudaMemcpyDeviceToDevice));
    CB_CUDA(cudaMemcpy2D(sv, (k1 - k0) * row16, (char *)v + k0 * row16, K * row16, (k1 - k0) * row16, B,
                         cudaMemcpyDeviceToDevice));
    CB_CUDA(cudaMemset(sgk, 0, nk * 4));
    CB_CUDA(cudaMemset(sgv, 0, nk * 4));
    cb_attn_bwd_args_t a;
    memset(&a, 0, sizeof a);
    a.q = q, a.k = sk, a.v = sv, a.dout = dout, a.lse = dl, a.delta = dd, a.dq = gq, a.dk = sgk, a.dv = sgv;
    a.batch = B, a.heads = H, a.kv_heads = KH, a.head_dim = D, a.q_len = Q, a.kv_len = (int)(k1 - k0);
    const cb_attn_pos_t kp = dense ? dense[1] : c->kvpos;
    a.bf16 = bf16, a.causal = c->causal, a.qpos = dense ? dense[0] : c->qpos, a.scale = (float)scale;
    a.kvpos.start0 = pos_at(kp, k0);
    a.kvpos.len0 = k0 < kp.len0 ? kp.len0 - k0 : 1LL << 40;
    a.kvpos.start1 = k0 < kp.len0 ? kp.start1 : 0;
    if (cb_attn_bwd(&a, 0, why, sizeof why) != 0) {
      printf("FAIL %s: refused: %s\n", c->name, why);
      refused = 1;
      break;
    }
    CB_CUDA(cudaGetLastError());
    CB_CUDA(cudaMemcpy2D((char *)gk + k0 * row32, K * row32, sgk, (k1 - k0) * row32, (k1 - k0) * row32, B,
                         cudaMemcpyDeviceToDevice));
    CB_CUDA(cudaMemcpy2D((char *)gv + k0 * row32, K * row32, sgv, (k1 - k0) * row32, (k1 - k0) * row32, B,
                         cudaMemcpyDeviceToDevice));
  }
  CB_CUDA(cudaDeviceSynchronize());
  float *rq = (float *)malloc(nq * 4), *rk = (float *)malloc(nk * 4), *rv = (float *)malloc(nk * 4);
  CB_CUDA(cudaMemcpy(rq, gq, nq * 4, cudaMemcpyDeviceToHost));
  CB_CUDA(cudaMemcpy(rk, gk, nk * 4, cudaMemcpyDeviceToHost));
  CB_CUDA(cudaMemcpy(rv, gv, nk * 4, cudaMemcpyDeviceToHost));
  const double floor = fmax(1e-3 * maxabs(dv, nk), 1e-30);
  const double eq = maxdiff(rq, dq, nq) / fmax(maxabs(dq, nq), floor),
               ek = maxdiff(rk, dk, nk) / fmax(maxabs(dk, nk), floor),
               ev = maxdiff(rv, dv, nk) / fmax(maxabs(dv, nk), floor);
  const int ok = !refused && eq <= 0.02 && ek <= 0.02 && ev <= 0.02;
  printf("%-4s %-4s D=%-3d %-34s rel max err dQ %.2e dK %.2e dV %.2e\n", ok ? "ok" : "FAIL", bf16 ? "bf16" : "fp16", D,
         c->name, eq, ek, ev);
  failures += !ok;
  CB_CUDA(cudaFree(q)), CB_CUDA(cudaFree(k)), CB_CUDA(cudaFree(v)), CB_CUDA(cudaFree(dout));
  CB_CUDA(cudaFree(dl)), CB_CUDA(cudaFree(dd)), CB_CUDA(cudaFree(gq)), CB_CUDA(cudaFree(gk)), CB_CUDA(cudaFree(gv));
  CB_CUDA(cudaFree(sk)), CB_CUDA(cudaFree(sv)), CB_CUDA(cudaFree(sgk)), CB_CUDA(cudaFree(sgv));
  free(hq), free(hk), free(hv), free(hdo), free(lse), free(delta), free(dq), free(dk), free(dv), free(prow);
  free(orow), free(hl), free(hd), free(rq), free(rk), free(rv);
}

/* Stripe pairs (queries at qs + i*R, keys at ks + j*R): the float64 reference at those positions
 * against the kernel on the dense block, queries at A = floor((qs - ks) / R) and keys at 0
 * (shifted so neither is negative), worked out here apart from collectives/attn/attn_layout.c. */
static void stripe_pairs(void) {
  typedef struct {
    const char *name;
    long long qs, ks, R;
    int len, nsplit;
  } spair_t;
  const spair_t pairs[] = {
      {"stripe R=4 member 0 vs 1 (cut)", 0, 1, 4, 200, 1},
      {"stripe R=4 member 3 vs 1", 3, 1, 4, 200, 1},
      {"stripe R=3 member 2 vs 2, 2 steps", 2, 2, 3, 150, 2},
      {"stripe U=2 R=2 rank 1 vs 2", 200, 1, 2, 100, 1},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    const spair_t *p = &pairs[i];
    const long long diff = p->qs - p->ks, A = diff >= 0 ? diff / p->R : -((-diff + p->R - 1) / p->R);
    const cb_attn_pos_t dense[2] = {run1(A > 0 ? A : 0), run1(A < 0 ? -A : 0)};
    cb_attn_pos_t qpos = run1(p->qs), kvpos = run1(p->ks);
    qpos.stride = kvpos.stride = p->R;
    const bcase_t c = {p->name, 1, 4, 2, p->len, p->len, 1, p->nsplit, qpos, kvpos};
    for (int bf16 = 1; bf16 >= 0; bf16--)
      for (int D = 64; D <= 128; D += 64) run_case(&c, D, bf16, dense);
  }
}

static void bench(int S, int D, int causal, int bf16) {
  const int B = 1, H = 32;
  const size_t n = (size_t)B * S * H * D, nl = (size_t)B * H * S;
  void *q = dalloc(n * 2), *k = dalloc(n * 2), *v = dalloc(n * 2), *dout = dalloc(n * 2);
  float *lse = (float *)dalloc(nl * 4), *delta = (float *)dalloc(nl * 4);
  float *dq = (float *)dalloc(n * 4), *dk = (float *)dalloc(n * 4), *dv = (float *)dalloc(n * 4);
  /* random-ish bf16 inputs and statistics that keep P in range: lse = a plausible row max */
  uint16_t *h = (uint16_t *)malloc(n * 2);
  float *hl = (float *)malloc(nl * 4);
  for (int t = 0; t < 4; t++) {
    for (size_t i = 0; i < n; i++) h[i] = to_bits(rnd(), bf16);
    CB_CUDA(cudaMemcpy(t == 0 ? q : t == 1 ? k : t == 2 ? v : dout, h, n * 2, cudaMemcpyHostToDevice));
  }
  for (size_t i = 0; i < nl; i++) hl[i] = 3.0f + rnd();
  CB_CUDA(cudaMemcpy(lse, hl, nl * 4, cudaMemcpyHostToDevice));
  CB_CUDA(cudaMemcpy(delta, hl, nl * 4, cudaMemcpyHostToDevice));
  CB_CUDA(cudaMemset(dq, 0, n * 4));
  CB_CUDA(cudaMemset(dk, 0, n * 4));
  CB_CUDA(cudaMemset(dv, 0, n * 4));
  cb_attn_bwd_args_t a;
  memset(&a, 0, sizeof a);
  a.q = q, a.k = k, a.v = v, a.dout = dout, a.lse = lse, a.delta = delta, a.dq = dq, a.dk = dk, a.dv = dv;
  a.batch = B, a.heads = H, a.kv_heads = H, a.head_dim = D, a.q_len = S, a.kv_len = S, a.bf16 = bf16, a.causal = causal;
  a.qpos = run1(0), a.kvpos = run1(0), a.scale = 1.0f / sqrtf((float)D);
  char why[256];
  cudaEvent_t e0, e1;
  CB_CUDA(cudaEventCreate(&e0));
  CB_CUDA(cudaEventCreate(&e1));
  const int iters = S <= 8192 ? 20 : 5;
  for (int i = 0; i < 2 + iters; i++) {
    if (i == 2) CB_CUDA(cudaEventRecord(e0));
    if (cb_attn_bwd(&a, 0, why, sizeof why)) {
      printf("bench: not run: %s\n", why);
      return;
    }
  }
  CB_CUDA(cudaEventRecord(e1));
  CB_CUDA(cudaGetLastError());
  CB_CUDA(cudaEventSynchronize(e1));
  float ms;
  CB_CUDA(cudaEventElapsedTime(&ms, e0, e1));
  const double t = ms / 1e3 / iters, flops = 2.5 * 4.0 * B * H * (double)S * S * D * (causal ? 0.5 : 1.0);
  printf("bench bwd %s H=32 D=%-3d S=%-6d %-10s %8.3f ms  %6.1f TFLOP/s\n", bf16 ? "bf16" : "fp16", D, S,
         causal ? "causal" : "non-causal", t * 1e3, flops / t / 1e12);
  CB_CUDA(cudaFree(q)), CB_CUDA(cudaFree(k)), CB_CUDA(cudaFree(v)), CB_CUDA(cudaFree(dout)), CB_CUDA(cudaFree(lse));
  CB_CUDA(cudaFree(delta)), CB_CUDA(cudaFree(dq)), CB_CUDA(cudaFree(dk)), CB_CUDA(cudaFree(dv));
  free(h), free(hl);
}

int main(int argc, char **argv) {
  const int do_bench = argc > 1 && strcmp(argv[1], "--bench") == 0, one = argc > 1 && strcmp(argv[1], "--one") == 0;
  const int one_d = one && argc > 2 ? (strcmp(argv[2], "64") == 0 ? 64 : strcmp(argv[2], "128") == 0 ? 128 : 0) : 128;
  if (argc > 3 || (argc > 2 && !one) || (argc > 1 && !do_bench && !one) || one_d == 0) {
    fprintf(stderr, "usage: %s [--bench | --one [64 | 128]]\n", argv[0]);
    return 2;
  }
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
    (void)cudaGetLastError();
    printf("no GPU: skipping the backward kernel test\n");
    return 77;
  }
  int major = 0, minor = 0;
  CB_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CB_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  if (major != 9 || minor != 0) {
    printf("sm_%d%d: the backward kernel needs sm_90 (wgmma): skipped\n", major, minor);
    return 77;
  }
  if (one) {
    bench(16384, one_d, 0, 1);
    return 0;
  }
  const bcase_t cases[] = {
      {"gqa 200x300", 1, 4, 2, 200, 300, 0, 1, run1(0), run1(0)},
      {"gqa causal 300x300", 1, 4, 2, 300, 300, 1, 1, run1(0), run1(0)},
      {"causal 77 at 250 x 333, 2 steps", 1, 2, 1, 77, 333, 1, 2, run1(250), run1(0)},
      {"batch 2, 130x129, 3 steps", 2, 2, 2, 130, 129, 0, 3, run1(0), run1(0)},
      {"zigzag c=100 q0 kv1", 1, 4, 1, 200, 200, 1, 1, zig(100, 0), zig(100, 1)},
      {"zigzag c=150 q1 kv0, 2 steps", 1, 4, 4, 300, 300, 1, 2, zig(150, 1), zig(150, 0)},
      {"zigzag c=90 q0 kv0", 1, 2, 2, 180, 180, 1, 1, zig(90, 0), zig(90, 0)},
      {"kv=1, q=64", 1, 2, 2, 64, 1, 0, 1, run1(0), run1(0)},
  };
  for (int bf16 = 1; bf16 >= 0; bf16--)
    for (int D = 64; D <= 128; D += 64)
      for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i], D, bf16, NULL);
  stripe_pairs();
  if (do_bench) {
    const int seqs[] = {4096, 8192, 16384, 32768};
    for (int causal = 0; causal < 2; causal++)
      for (int i = 0; i < 4; i++) bench(seqs[i], 128, causal, 1);
    for (int causal = 0; causal < 2; causal++) bench(16384, 64, causal, 1);
    for (int causal = 0; causal < 2; causal++) bench(16384, 128, causal, 0); /* fp16 beside bf16 */
  }
  if (failures) {
    fprintf(stderr, "attn_bwd_test: %d failures\n", failures);
    return 1;
  }
  printf("attn_bwd_test: all cases passed\n");
  return 0;
}
