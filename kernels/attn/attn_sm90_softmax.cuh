/* Online softmax of the Hopper attention kernel (attn_fwd_sm90.cu) for one consumer thread:
 * its two query rows (g and g + 8 of its warp's 16, wgmma's accumulator layout, sm90_wgmma.cuh)
 * and, per key tile, the scores s[4i + 2h + e] of row h at key 8i + 2q + e. Conventions as in
 * attn_merge.h: m is the running maximum of the raw scores, l this thread's part of the running
 * sum of exp2((s - m) * scale_log2) (the four threads of a row add theirs in the epilogue; the
 * factors that rescale l are equal across the four, so the parts stay consistent). */
#ifndef CB_ATTN_SM90_SOFTMAX_CUH
#define CB_ATTN_SM90_SOFTMAX_CUH

#include <math.h>
#include <stdint.h>

#include "attn_merge.h"
#include "attn_sm90_tile.h"
#include "mma_ptx.cuh"

struct cb_sm90_softmax {
  static constexpr int kBlockN = CB_SM90_BLOCK_N; /* keys per tile */
  static constexpr int kVals = kBlockN / 2;       /* scores per thread per tile */
  float m[2], l[2];

  __device__ __forceinline__ void init() {
    m[0] = m[1] = -INFINITY;
    l[0] = l[1] = 0.0f;
  }

  /* Scores of keys at or past the row's visible prefix lim[h] become -inf (key tile at key0). */
  __device__ __forceinline__ void mask(float (&s)[kVals], int key0, const int (&lim)[2]) const {
    const int q = threadIdx.x % 4;
#pragma unroll
    for (int i = 0; i < kBlockN / 8; i++)
#pragma unroll
      for (int e = 0; e < 2; e++) {
        const int key = key0 + 8 * i + 2 * q + e;
#pragma unroll
        for (int h = 0; h < 2; h++)
          if (key >= lim[h]) s[4 * i + 2 * h + e] = -INFINITY;
      }
  }

  /* Folds a tile of scores into (m, l), turns s into the unnormalized probabilities against
   * the new maximum, and returns in alpha the factor the output so far must be scaled by. */
  __device__ __forceinline__ void update(float (&s)[kVals], float scale_log2, float (&alpha)[2]) {
#pragma unroll
    for (int h = 0; h < 2; h++) {
      float mx = m[h];
#pragma unroll
      for (int i = 0; i < kBlockN / 8; i++) mx = fmaxf(mx, fmaxf(s[4 * i + 2 * h], s[4 * i + 2 * h + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      alpha[h] = m[h] == -INFINITY ? (mx == -INFINITY ? 1.0f : 0.0f) : cb_ex2((m[h] - mx) * scale_log2);
      m[h] = mx;
      const float mref = cb_attn_max_ref(mx) * scale_log2; /* -inf rows: exp2(-inf - 0) = 0 */
      float sum = 0.0f;
#pragma unroll
      for (int i = 0; i < kBlockN / 8; i++)
#pragma unroll
        for (int e = 0; e < 2; e++) {
          float &x = s[4 * i + 2 * h + e];
          x = cb_ex2(fmaf(x, scale_log2, -mref));
          sum += x;
        }
      l[h] = l[h] * alpha[h] + sum;
    }
  }
};

/* The probabilities of a tile as the register A operand of the P V wgmma: k16 step kk covers
 * keys 16kk..16kk+15, i.e. accumulator column blocks 2kk and 2kk + 1 (sm90_wgmma.cuh). */
template <typename DT, int kBlockN>
__device__ __forceinline__ void cb_sm90_pack_p(const float (&s)[kBlockN / 2], uint32_t (&a)[kBlockN / 16][4]) {
#pragma unroll
  for (int kk = 0; kk < kBlockN / 16; kk++) {
    a[kk][0] = DT::pack(s[8 * kk + 0], s[8 * kk + 1]);
    a[kk][1] = DT::pack(s[8 * kk + 2], s[8 * kk + 3]);
    a[kk][2] = DT::pack(s[8 * kk + 4], s[8 * kk + 5]);
    a[kk][3] = DT::pack(s[8 * kk + 6], s[8 * kk + 7]);
  }
}

/* O (64 x D accumulator) scaled row by row. */
template <int kOVals>
__device__ __forceinline__ void cb_sm90_rescale_o(float (&o)[kOVals], const float (&alpha)[2]) {
#pragma unroll
  for (int i = 0; i < kOVals / 4; i++) {
    o[4 * i + 0] *= alpha[0];
    o[4 * i + 1] *= alpha[0];
    o[4 * i + 2] *= alpha[1];
    o[4 * i + 3] *= alpha[1];
  }
}

#endif
