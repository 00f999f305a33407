/* Epilogue of the Hopper attention kernel (attn_fwd_sm90.cu): one consumer thread's two rows
 * normalized by their sum and merged exactly into the running fp32 output and log-sum-exp
 * (attn.h's contract, attn_merge.h's arithmetic), and the final 16-bit output written when
 * asked. Same rules as the mma.sync kernel's epilogue: a row that saw no key in this block
 * keeps o and lse (unless first, which writes o = 0, lse = -inf); the four threads of a row
 * read its old lse before one of them writes the new one (a __syncwarp between). */
#ifndef CB_ATTN_SM90_EPILOGUE_CUH
#define CB_ATTN_SM90_EPILOGUE_CUH

#include "attn_params.h"
#include "attn_sm90_softmax.cuh"

template <typename T, typename DT, int D>
__device__ __forceinline__ void cb_sm90_epilogue(const cb_attn_params &p, const cb_sm90_softmax &sm,
                                                 const float (&o)[D / 2], const int (&row)[2], int b, int h) {
  const int q = threadIdx.x % 4;
  const size_t q_stride = (size_t)p.heads * D;
  float lse_old[2];
#pragma unroll
  for (int hh = 0; hh < 2; hh++)
    lse_old[hh] = p.first || row[hh] >= p.q_len ? -INFINITY : p.lse[((size_t)b * p.heads + h) * p.q_len + row[hh]];
  __syncwarp();
#pragma unroll
  for (int hh = 0; hh < 2; hh++) {
    float lsum = sm.l[hh];
    lsum += __shfl_xor_sync(0xffffffffu, lsum, 1);
    lsum += __shfl_xor_sync(0xffffffffu, lsum, 2);
    if (row[hh] >= p.q_len) continue;
    const float lse_blk = cb_attn_block_lse(sm.m[hh], lsum, p.scale_log2);
    const float inv = lsum > 0.0f ? 1.0f / lsum : 0.0f;
    float w_old, w_blk;
    const float lse_new = cb_attn_merge(lse_old[hh], lse_blk, &w_old, &w_blk);
    const bool write_o = p.first || lse_blk != -INFINITY;
    const bool read_o = !p.first && (write_o || p.final);
    float *orow = p.o + ((size_t)b * p.q_len + row[hh]) * q_stride + (size_t)h * D;
    uint32_t *outrow = p.final
                           ? reinterpret_cast<uint32_t *>(static_cast<T *>(p.out) +
                                                          ((size_t)b * p.q_len + row[hh]) * q_stride + (size_t)h * D)
                           : nullptr;
#pragma unroll
    for (int i = 0; i < D / 8; i++) {
      const int col = 8 * i + 2 * q;
      float2 old = make_float2(0.0f, 0.0f);
      if (read_o) old = *reinterpret_cast<const float2 *>(orow + col);
      float2 nw;
      nw.x = old.x * w_old + o[4 * i + 2 * hh] * inv * w_blk;
      nw.y = old.y * w_old + o[4 * i + 2 * hh + 1] * inv * w_blk;
      if (write_o) *reinterpret_cast<float2 *>(orow + col) = nw;
      if (p.final) outrow[col / 2] = DT::pack(nw.x, nw.y);
    }
    if (write_o && q == 0) p.lse[((size_t)b * p.heads + h) * p.q_len + row[hh]] = lse_new;
  }
}

#endif
