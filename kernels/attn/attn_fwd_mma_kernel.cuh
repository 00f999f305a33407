/* The mma.sync block-attention forward kernel (contract: attn.h; launched from attn_fwd.cu), the
 * fallback for GPUs without wgmma (sm_80, sm_89; cb_attn_fwd runs attn_fwd_sm90.cu on sm_90),
 * FlashAttention-2 style: mma.sync m16n8k16 with fp32 accumulation, ldmatrix from a swizzled
 * shared-memory layout, cp.async K/V loads double-buffered so tile j + 1 arrives while tile j
 * is computed, online softmax in registers (exp2 of log2(e)-prescaled scores), the
 * probabilities P reused in registers as the A operand of P.V, and an exact fp32 merge of the
 * CTA's result into the running output / log-sum-exp at its end.
 *
 * Sections: the tile loads and the steps of the loop (Q K^T, mask, P V), the online softmax,
 * the main loop in the two forms it ships, the epilogue (in the kernel body: moved into a
 * function, it compiled to different register choices than the kernel measured). The CTA
 * tile, the warp shape, the shared-memory layout and which loop a head dim takes are in
 * attn_mma_tile.cuh; the nine loops measured for it, these two among them, are recorded with
 * their numbers in docs/decisions/attention-mma-forms.md.
 *
 * The two main loops (cb_attn_split_halves, attn_mma_tile.cuh):
 *   D = 128, sequential halves: per 64-key tile, for each 32-key half in turn S = Q K^T, mask,
 *     online softmax, rescale O (only when some row max moved), O += P V; one half of S live
 *     (16 x 32 per m16 slice), two barriers per tile (tile landed / stage free), the K/V copies
 *     of full tiles addressed incrementally (one pointer per tensor advanced by constant steps,
 *     no per-row checks).
 *   D = 64, split halves: the halves pipelined across tiles, so that both softmaxes of a tile
 *     are woven into a Q K^T: [S_B of tile j with softmax(S_A), P_A V_A], barrier, [S_A of
 *     tile j + 1 with softmax(S_B), P_B V_B]; K keeps 2 stages, V gets 3
 *     (CB_ATTN_V_STAGES_SPLIT: V of tile j is read after the barrier that lets tile j + 2
 *     load); one barrier per tile.
 * Both keep the same per-row state (m, l, O) and the same epilogue, and both compute the O
 * rescale factors with ex2.approx, as the scores.
 *
 * H200: 132 SMs, 228 KB shared memory and 64 K registers per SM. Registers (ptxas -v, sm_90,
 * CUDA 13): 255 at D = 128 (O is 128 fp32 registers; 44 bytes spilled), 247 at D = 64 (Q in
 * registers, no spill); two 128-thread CTAs per SM at both head dims.
 *
 * Causal: key positions increase with the key row, so the keys a query tile sees form a prefix
 * of the block; tiles past it are never loaded, tiles entirely below the tile's smallest query
 * position run without mask math, and query tiles are launched heaviest (latest positions)
 * first so the short ones fill the tail of the grid. */
#ifndef CB_ATTN_FWD_KERNEL_CUH
#define CB_ATTN_FWD_KERNEL_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <type_traits>

#include "attn.h"
#include "attn_merge.h"
#include "attn_mma_tile.cuh"
#include "attn_params.h"
#include "mma_frag.h"
#include "mma_ptx.cuh"

/* ---- the kernel ---- */

template <typename T, int D>
__global__ void __launch_bounds__(CB_ATTN_THREADS, CB_ATTN_MIN_CTAS) cb_attn_fwd_kernel(const cb_attn_params p) {
  using DT = cb_mma_op<T>;
  constexpr int kMT = CB_ATTN_SLICES; /* m16 row slices per warp */
  constexpr int kThreads = CB_ATTN_THREADS;
  constexpr int kKSteps = D / 16;                  /* k16 steps of Q.K^T */
  constexpr int kDTiles = D / 8;                   /* n8 tiles of the output */
  constexpr int kSTiles = CB_ATTN_BLOCK_N / 8;     /* n8 tiles of the scores */
  constexpr bool kQRegs = kMT * kKSteps * 4 <= 32; /* Q fragments kept in registers (D = 64) */
  constexpr bool kSplit = cb_attn_split_halves(D); /* the main loop (attn_mma_tile.cuh) */
  extern __shared__ __align__(128) unsigned char cb_attn_smem[];
  T *sQ = reinterpret_cast<T *>(cb_attn_smem);       /* [BLOCK_M][D] */
  T *sK = sQ + CB_ATTN_BLOCK_M * D;                  /* [STAGES][BLOCK_N][D] */
  T *sV = sK + CB_ATTN_STAGES * CB_ATTN_BLOCK_N * D; /* [STAGES, V_STAGES_SPLIT if kSplit][BLOCK_N][D] */

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;         /* fragment group and thread in group (mma_frag.h) */
  const int wrow = warp * 16 * kMT;             /* the warp's first row in the tile */
  const int qtile = gridDim.x - 1 - blockIdx.x; /* heaviest (latest positions) first */
  const int h = blockIdx.y, b = blockIdx.z, hk = h / p.group;
  const int row0 = qtile * CB_ATTN_BLOCK_M;
  const int rows = min(CB_ATTN_BLOCK_M, p.q_len - row0);

  /* Keys this query tile sees: a prefix of nvis keys; the first nfull of them are visible to
   * every row of the tile (positions increase with the row). */
  int nvis = p.kv_len, nfull = p.kv_len;
  if (p.causal) {
    const int qmin = cb_attn_pos(p.q_start0, p.q_len0, p.q_start1, row0);
    const int qmax = cb_attn_pos(p.q_start0, p.q_len0, p.q_start1, row0 + rows - 1);
    nvis = (int)cb_attn_keys_upto(p.k_start0, p.k_len0, p.k_start1, p.kv_len, qmax);
    nfull = (int)cb_attn_keys_upto(p.k_start0, p.k_len0, p.k_start1, p.kv_len, qmin);
  }
  const int ntiles = (nvis + CB_ATTN_BLOCK_N - 1) / CB_ATTN_BLOCK_N;
  const int nfull_tiles = nfull / CB_ATTN_BLOCK_N; /* tiles j < this need no mask */

  const size_t q_stride = (size_t)p.heads * D, kv_stride = (size_t)p.kv_heads * D;
  const T *qg = static_cast<const T *>(p.q) + ((size_t)b * p.q_len + row0) * q_stride + (size_t)h * D;
  const T *kg = static_cast<const T *>(p.k) + (size_t)b * p.kv_len * kv_stride + (size_t)hk * D;
  const T *vg = static_cast<const T *>(p.v) + (size_t)b * p.kv_len * kv_stride + (size_t)hk * D;

  /* Pipeline: group 0 = Q + tile 0, group 1 = tile 1, then one group per iteration (empty ones
   * too): the sequential-halves loop waits until at most 1 group is pending (tile j has
   * landed), the split-halves loop until none is (tile j + 1 has landed; tile j + 2 is issued
   * right after). */
  if (ntiles > 0) {
    cb_attn_load_tile<T, D, CB_ATTN_BLOCK_M, kThreads>(sQ, qg, q_stride, rows);
    cb_attn_load_tile<T, D, CB_ATTN_BLOCK_N, kThreads>(sK, kg, kv_stride, min(CB_ATTN_BLOCK_N, p.kv_len));
    cb_attn_load_tile<T, D, CB_ATTN_BLOCK_N, kThreads>(sV, vg, kv_stride, min(CB_ATTN_BLOCK_N, p.kv_len));
  }
  cb_cp_async_commit();
  if (ntiles > 1) {
    const size_t off = (size_t)CB_ATTN_BLOCK_N * kv_stride;
    const int valid = min(CB_ATTN_BLOCK_N, p.kv_len - CB_ATTN_BLOCK_N);
    cb_attn_load_tile<T, D, CB_ATTN_BLOCK_N, kThreads>(sK + CB_ATTN_BLOCK_N * D, kg + off, kv_stride, valid);
    cb_attn_load_tile<T, D, CB_ATTN_BLOCK_N, kThreads>(sV + CB_ATTN_BLOCK_N * D, vg + off, kv_stride, valid);
  }
  cb_cp_async_commit();
  /* Incremental K/V copy addressing (the sequential-halves loop's refill): thread copies
   * 16-byte chunk lc of rows lr + i * kLoadRows of a tile; kLoadRows is a multiple of 8, so
   * the swizzled position of row lr + i * kLoadRows is that of row lr plus i * kLoadRows rows
   * (mma_frag.h): one shared offset and one global pointer per tensor, advanced by constant
   * steps. Full tiles only; a partial last tile takes cb_attn_load_tile (row checks, zero
   * fill). This took the copy from ~200 to 69 instructions per warp and tile. */
  constexpr int kLoadRows = kThreads / (D / 8);
  static_assert(kLoadRows % 8 == 0 && CB_ATTN_BLOCK_N % kLoadRows == 0, "whole swizzle periods per copy round");
  const int lr = threadIdx.x / (D / 8), lc = threadIdx.x % (D / 8);
  const uint32_t lsh = 2 * cb_swz_offset(lr, lc, D);
  const T *lk = kg + (size_t)lr * kv_stride + lc * 8, *lv = vg + (size_t)lr * kv_stride + lc * 8;
  /* refill the stage of tile j (every warp is done with it) with tile j + STAGES */
  auto refill = [&](int j) {
    if (j + CB_ATTN_STAGES < ntiles) {
      const int kb = (j + CB_ATTN_STAGES) * CB_ATTN_BLOCK_N, stage = j % CB_ATTN_STAGES;
      const size_t off = (size_t)kb * kv_stride;
      const int valid = min(CB_ATTN_BLOCK_N, p.kv_len - kb);
      if (valid == CB_ATTN_BLOCK_N) {
        const uint32_t dk = cb_smem_addr(sK + stage * CB_ATTN_BLOCK_N * D) + lsh;
        const uint32_t dv = cb_smem_addr(sV + stage * CB_ATTN_BLOCK_N * D) + lsh;
        const T *gk = lk + off, *gv = lv + off;
#pragma unroll
        for (int i = 0; i < CB_ATTN_BLOCK_N / kLoadRows; i++) {
          cb_cp_async16_s(dk + i * kLoadRows * D * 2, gk + (size_t)i * kLoadRows * kv_stride);
          cb_cp_async16_s(dv + i * kLoadRows * D * 2, gv + (size_t)i * kLoadRows * kv_stride);
        }
      } else {
        cb_attn_load_tile<T, D, CB_ATTN_BLOCK_N, kThreads>(sK + stage * CB_ATTN_BLOCK_N * D, kg + off, kv_stride,
                                                           valid);
        cb_attn_load_tile<T, D, CB_ATTN_BLOCK_N, kThreads>(sV + stage * CB_ATTN_BLOCK_N * D, vg + off, kv_stride,
                                                           valid);
      }
    }
    cb_cp_async_commit();
  };

  /* Row state: slice mi, half hh of this thread is row wrow + mi*16 + g + hh*8 (C layout). */
  float m[kMT][2], l[kMT][2]; /* running max of raw scores; this thread's part of the sum */
  float o[kMT][kDTiles][4];
#pragma unroll
  for (int mi = 0; mi < kMT; mi++) {
    m[mi][0] = m[mi][1] = -INFINITY;
    l[mi][0] = l[mi][1] = 0.0f;
#pragma unroll
    for (int i = 0; i < kDTiles; i++) o[mi][i][0] = o[mi][i][1] = o[mi][i][2] = o[mi][i][3] = 0.0f;
  }
  uint32_t qf[kQRegs ? kMT : 1][kQRegs ? kKSteps : 1][4];
  /* ldmatrix addressing (mma_frag.h): a swizzled lane offset per addressing rule (one for Q
   * and V, one for K); chunk step c (k16 step of Q and K, pair of dim tiles of V) is an XOR
   * with 16 c elements, row steps are added (cb_swz_offset). xo / xk[c] = byte offset at step
   * c, held for the whole sweep. */
  const uint32_t sQ_addr = cb_smem_addr(sQ) + 2 * wrow * D, sK_addr = cb_smem_addr(sK), sV_addr = cb_smem_addr(sV);
  uint32_t xo[D / 16], xk[D / 16];
  {
    const uint32_t u = cb_swz_offset(cb_ldm_row(lane), cb_ldm_chunk(lane), D);
    const uint32_t ub = cb_swz_offset(cb_ldm_b_row(lane), cb_ldm_b_chunk(lane), D);
#pragma unroll
    for (int c = 0; c < D / 16; c++) {
      xo[c] = 2 * (u ^ (16 * c));
      xk[c] = 2 * (ub ^ (16 * c));
    }
  }
  const float sl2 = p.scale_log2;

  /* The steps of the main loop, over score blocks s[kMT][kNT][4] of kNT n8 tiles (64 or 32
   * keys); shared-memory arguments are byte addresses of the block's first key row (a multiple
   * of 8 rows: the swizzle of mma_frag.h is unchanged by it). */
  auto load_q = [&]() { /* Q A-fragments (mma_frag.h: register i of ldmatrix.x4 is a_i) */
                        if constexpr (kQRegs) {
#pragma unroll
                          for (int mi = 0; mi < kMT; mi++)
#pragma unroll
                            for (int kk = 0; kk < kKSteps; kk++)
                              cb_ldmatrix_x4(qf[mi][kk], sQ_addr + xo[kk] + mi * 16 * D * 2);
                        }
  };
  /* S = Q K^T (raw scores). B(k = dim, n = key) = K[key][dim] (mma_frag.h): registers 0, 1 are
   * b0, b1 of score tile nt, registers 2, 3 those of nt + 1. hook(kk) runs after the mma of
   * k16 step kk: the split-halves loop puts the other half's softmax there, so that the warp's
   * instruction stream alternates mma and softmax work in source order (the SASS read at
   * D = 128 had ptxas issue the whole Q K^T first anyway: docs/decisions/attention-mma-forms.md). */
  auto qk = [&](auto &s, uint32_t sKrows, auto &&hook) {
    constexpr int kNT = std::extent<std::remove_reference_t<decltype(s)>, 1>::value;
#pragma unroll
    for (int mi = 0; mi < kMT; mi++)
#pragma unroll
      for (int i = 0; i < kNT; i++) s[mi][i][0] = s[mi][i][1] = s[mi][i][2] = s[mi][i][3] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < kKSteps; kk++) {
      uint32_t qa[kMT][4];
#pragma unroll
      for (int mi = 0; mi < kMT; mi++) {
        if constexpr (kQRegs) {
#pragma unroll
          for (int r = 0; r < 4; r++) qa[mi][r] = qf[mi][kk][r];
        } else {
          cb_ldmatrix_x4(qa[mi], sQ_addr + xo[kk] + mi * 16 * D * 2);
        }
      }
#pragma unroll
      for (int nt = 0; nt < kNT; nt += 2) {
        uint32_t bk[4];
        cb_ldmatrix_x4(bk, sKrows + xk[kk] + nt * 8 * D * 2);
#pragma unroll
        for (int mi = 0; mi < kMT; mi++) {
          DT::mma(s[mi][nt], qa[mi], bk[0], bk[1]);
          DT::mma(s[mi][nt + 1], qa[mi], bk[2], bk[3]);
        }
      }
      hook(kk);
    }
  };
  auto no_hook = [](int) {};
  /* Mask (only blocks some row of which cannot see some key): C layout, s[mi][nt][c] is row
   * wrow + mi*16 + g + (c >> 1)*8, key kb + nt*8 + 2t + (c & 1). Query positions are
   * recomputed here rather than held in registers (rows past q_len are never stored, keys
   * past kv_len are masked anyway; both are clamped so positions stay in int range). */
  auto mask = [&](auto &s, int kb) {
    constexpr int kNT = std::extent<std::remove_reference_t<decltype(s)>, 1>::value;
#pragma unroll
    for (int nt = 0; nt < kNT; nt++) {
#pragma unroll
      for (int e = 0; e < 2; e++) {
        const int key = kb + nt * 8 + 2 * t + e;
        const int kpos = cb_attn_pos(p.k_start0, p.k_len0, p.k_start1, min(key, p.kv_len - 1));
#pragma unroll
        for (int mi = 0; mi < kMT; mi++)
#pragma unroll
          for (int hh = 0; hh < 2; hh++) {
            const int qp =
                cb_attn_pos(p.q_start0, p.q_len0, p.q_start1, min(row0 + wrow + mi * 16 + g + hh * 8, p.q_len - 1));
            const bool vis = key < p.kv_len && (!p.causal || kpos <= qp);
            if (!vis) s[mi][nt][hh * 2 + e] = -INFINITY;
          }
      }
    }
  };
  /* ---- the online softmax ----
   * Per row (the four threads of a group hold the row's scores), in three parts so that the
   * split-halves loop can spread it over the mma of the other half:
   *   sm_max: new maxima m, alpha = the factor O (and l) must be rescaled by, mref = the
   *     prescaled reference of the exponents; returns whether some alpha of this thread
   *     differs from 1;
   *   sm_exp(s, mi, nt, ...): s -> exp2 of the prescaled scores for one n8 tile of slice mi,
   *     summed into sum (tiles in increasing nt per slice: the order of the one-piece sum);
   *   sm_done: l = l * alpha + sum. */
  auto sm_max = [&](auto &s, float(&alpha)[kMT][2], float(&mref)[kMT][2]) {
    constexpr int kNT = std::extent<std::remove_reference_t<decltype(s)>, 1>::value;
    bool rescale = false;
#pragma unroll
    for (int mi = 0; mi < kMT; mi++) {
#pragma unroll
      for (int hh = 0; hh < 2; hh++) {
        float mx = m[mi][hh];
#pragma unroll
        for (int nt = 0; nt < kNT; nt++) mx = fmaxf(mx, fmaxf(s[mi][nt][2 * hh], s[mi][nt][2 * hh + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        /* cb_attn_rescale without its branch (which splits the block the pipelining needs), on
         * ex2.approx as the scores: exp2(-inf) = 0 when m was -inf, 1 when both are */
        alpha[mi][hh] = mx == -INFINITY ? 1.0f : cb_ex2((m[mi][hh] - mx) * sl2);
        rescale = rescale || alpha[mi][hh] != 1.0f;
        m[mi][hh] = mx;
        mref[mi][hh] = cb_attn_max_ref(mx) * sl2;
      }
    }
    return rescale;
  };
  auto sm_exp = [&](auto &s, int mi, int nt, const float(&mref)[kMT][2], float(&sum)[kMT][2]) {
#pragma unroll
    for (int c = 0; c < 4; c++) {
      s[mi][nt][c] = cb_ex2(fmaf(s[mi][nt][c], sl2, -mref[mi][c >> 1])); /* -inf -> 0 */
      sum[mi][c >> 1] += s[mi][nt][c];
    }
  };
  auto sm_done = [&](const float(&alpha)[kMT][2], const float(&sum)[kMT][2]) {
#pragma unroll
    for (int mi = 0; mi < kMT; mi++)
#pragma unroll
      for (int hh = 0; hh < 2; hh++) l[mi][hh] = l[mi][hh] * alpha[mi][hh] + sum[mi][hh];
  };
  auto softmax = [&](auto &s, float(&alpha)[kMT][2]) { /* all three parts in a row */
                                                       constexpr int kNT =
                                                           std::extent<std::remove_reference_t<decltype(s)>, 1>::value;
                                                       float mref[kMT][2], sum[kMT][2] = {};
                                                       const bool rescale = sm_max(s, alpha, mref);
#pragma unroll
                                                       for (int mi = 0; mi < kMT; mi++)
#pragma unroll
                                                         for (int nt = 0; nt < kNT; nt++) sm_exp(s, mi, nt, mref, sum);
                                                       sm_done(alpha, sum);
                                                       return rescale;
  };
  /* ---- the output: rescale, O += P V ---- */
  auto rescale_o = [&](const float(&alpha)[kMT][2]) {
#pragma unroll
    for (int mi = 0; mi < kMT; mi++)
#pragma unroll
      for (int dt = 0; dt < kDTiles; dt++)
#pragma unroll
        for (int c = 0; c < 4; c++) o[mi][dt][c] *= alpha[mi][c >> 1];
  };
  /* O += P V. A = P from the score accumulators (cb_attn_p_source); B(k = key, n = dim) =
   * V[key][dim] through ldmatrix.trans (mma_frag.h): registers 0, 1 are b0, b1 of dim tile
   * dt, registers 2, 3 those of dt + 1. */
  auto pv = [&](const auto &s, uint32_t sVrows) {
    constexpr int kNT = std::extent<std::remove_reference_t<decltype(s)>, 1>::value;
#pragma unroll
    for (int kk = 0; kk < kNT / 2; kk++) {
      uint32_t pa[kMT][4];
#pragma unroll
      for (int mi = 0; mi < kMT; mi++)
#pragma unroll
        for (int reg = 0; reg < 4; reg++) {
          int nt, c;
          cb_attn_p_source(kk, reg, 0, &nt, &c);
          pa[mi][reg] = DT::pack(s[mi][nt][c], s[mi][nt][c + 1]);
        }
#pragma unroll
      for (int dt = 0; dt < kDTiles; dt += 2) {
        uint32_t bv[4];
        cb_ldmatrix_x4_trans(bv, sVrows + xo[dt / 2] + kk * 16 * D * 2);
#pragma unroll
        for (int mi = 0; mi < kMT; mi++) {
          DT::mma(o[mi][dt], pa[mi], bv[0], bv[1]);
          DT::mma(o[mi][dt + 1], pa[mi], bv[2], bv[3]);
        }
      }
    }
  };
  constexpr uint32_t kStageBytes = CB_ATTN_BLOCK_N * D * 2;

  /* ---- the main loop ---- */
  if constexpr (!kSplit) {
    /* one 32-key half after the other: a single half of S live */
    static_assert(kSTiles % 4 == 0, "halves of whole k16 steps");
    constexpr int kHN = CB_ATTN_BLOCK_N / 2;
    for (int j = 0; j < ntiles; j++) {
      const int stage = j % CB_ATTN_STAGES;
      cb_cp_async_wait<1>();
      __syncthreads();
      if (j == 0) load_q();
#pragma unroll
      for (int hf = 0; hf < 2; hf++) {
        float s[kMT][kSTiles / 2][4];
        qk(s, sK_addr + stage * kStageBytes + hf * kHN * D * 2, no_hook);
        if (j >= nfull_tiles) mask(s, j * CB_ATTN_BLOCK_N + hf * kHN);
        /* Once the running maxima settle, most halves leave them unchanged (alpha = 1
         * exactly): the warp then skips the kDTiles x 4 x kMT multiplications of O. */
        float alpha[kMT][2];
        if (__any_sync(0xffffffffu, softmax(s, alpha))) rescale_o(alpha);
        pv(s, sV_addr + stage * kStageBytes + hf * kHN * D * 2);
      }
      __syncthreads(); /* every warp is done with this stage: refill it with tile j + 2 */
      refill(j);
    }
  } else {
    /* The halves pipelined across tiles. S_A of tile j is in registers on entry of iteration j. */
    static_assert(kSTiles % 4 == 0, "halves of whole k16 steps");
    constexpr int kHN = CB_ATTN_BLOCK_N / 2, kHT = kSTiles / 2; /* keys, n8 tiles per half */
    constexpr uint32_t kHalfBytes = kHN * D * 2;
    constexpr int kVStages = CB_ATTN_V_STAGES_SPLIT;
    float sa[kMT][kHT][4], sb[kMT][kHT][4];
    auto rescale_if = [&](bool r, const float(&alpha)[kMT][2]) {
      if (__any_sync(0xffffffffu, r)) rescale_o(alpha);
    };
    /* S_next = Q K^T of the half at sKrows, with softmax(s_prev) woven into its k16 steps (the
     * maxima after step 0, then the exponentials of kMT x kHT n8 tiles spread over the
     * remaining steps), then rescale and O += P_prev V at sVrows. */
    auto qk_softmax_pv = [&](auto &s_next, uint32_t sKrows, auto &s_prev, uint32_t sVrows) {
      float alpha[kMT][2];
      bool r = false;
      float mref[kMT][2], sum[kMT][2] = {};
      qk(s_next, sKrows, [&](int kk) {
        if (kk == 0) {
          r = sm_max(s_prev, alpha, mref);
        } else {
#pragma unroll
          for (int u = 0; u < kMT * kHT; u++)
            if (u % (kKSteps - 1) == kk - 1) sm_exp(s_prev, u / kHT, u % kHT, mref, sum);
        }
      });
      sm_done(alpha, sum);
      rescale_if(r, alpha);
      pv(s_prev, sVrows);
    };
    if (ntiles > 0) {
      cb_cp_async_wait<1>();
      __syncthreads();
      load_q();
      qk(sa, sK_addr, no_hook);
      if (0 >= nfull_tiles) mask(sa, 0);
    }
    for (int j = 0; j < ntiles; j++) {
      const uint32_t sKs = sK_addr + (j % CB_ATTN_STAGES) * kStageBytes;
      const uint32_t sVs = sV_addr + (j % kVStages) * kStageBytes;
      /* X_j: S_B with softmax(S_A), P_A V_A */
      qk_softmax_pv(sb, sKs + kHalfBytes, sa, sVs);
      if (j >= nfull_tiles) mask(sb, j * CB_ATTN_BLOCK_N + kHN);
      /* B_j: K, V of tile j + 1 landed everywhere; every warp is done with K of tile j (X_j)
       * and V of tile j - 1 (Y_{j-1}): load tile j + 2 there */
      if (j + 1 < ntiles) {
        cb_cp_async_wait<0>();
        __syncthreads();
        if (j + 2 < ntiles) {
          const int kb = (j + 2) * CB_ATTN_BLOCK_N;
          const size_t off = (size_t)kb * kv_stride;
          const int valid = min(CB_ATTN_BLOCK_N, p.kv_len - kb);
          cb_attn_load_tile<T, D, CB_ATTN_BLOCK_N, kThreads>(sK + (j % CB_ATTN_STAGES) * CB_ATTN_BLOCK_N * D, kg + off,
                                                             kv_stride, valid);
          cb_attn_load_tile<T, D, CB_ATTN_BLOCK_N, kThreads>(sV + ((j + 2) % kVStages) * CB_ATTN_BLOCK_N * D, vg + off,
                                                             kv_stride, valid);
        }
        cb_cp_async_commit();
        /* Y_j: S_A of tile j + 1 with softmax(S_B), P_B V_B */
        qk_softmax_pv(sa, sK_addr + ((j + 1) % CB_ATTN_STAGES) * kStageBytes, sb, sVs + kHalfBytes);
        if (j + 1 >= nfull_tiles) mask(sa, (j + 1) * CB_ATTN_BLOCK_N);
      } else {
        float alpha[kMT][2];
        rescale_if(softmax(sb, alpha), alpha);
        pv(sb, sVs + kHalfBytes);
      }
    }
  }
  cb_cp_async_wait<0>();

  /* ---- the epilogue ----
   * Normalize, merge into the running o / lse (attn_merge.h), write out if final. Thread holds
   * columns dt*8 + 2t, +1 of its rows (C layout). The four threads of a row all read the row's
   * old lse before one of them writes the new one (__syncwarp between). */
  float lse_old[kMT][2];
#pragma unroll
  for (int mi = 0; mi < kMT; mi++)
#pragma unroll
    for (int hh = 0; hh < 2; hh++) {
      const int row = row0 + wrow + mi * 16 + g + hh * 8;
      lse_old[mi][hh] = p.first || row >= p.q_len ? -INFINITY : p.lse[((size_t)b * p.heads + h) * p.q_len + row];
    }
  __syncwarp();
#pragma unroll
  for (int mi = 0; mi < kMT; mi++) {
#pragma unroll
    for (int hh = 0; hh < 2; hh++) {
      float lsum = l[mi][hh];
      lsum += __shfl_xor_sync(0xffffffffu, lsum, 1);
      lsum += __shfl_xor_sync(0xffffffffu, lsum, 2);
      const int row = row0 + wrow + mi * 16 + g + hh * 8;
      if (row >= p.q_len) continue;
      const float lse_blk = cb_attn_block_lse(m[mi][hh], lsum, sl2);
      const float inv = lsum > 0.0f ? 1.0f / lsum : 0.0f;
      const size_t lse_i = ((size_t)b * p.heads + h) * p.q_len + row;
      float w_old, w_blk;
      const float lse_new = cb_attn_merge(lse_old[mi][hh], lse_blk, &w_old, &w_blk);
      const bool write_o = p.first || lse_blk != -INFINITY; /* unseen rows keep o and lse */
      const bool read_o = !p.first && (write_o || p.final);
      float *orow = p.o + ((size_t)b * p.q_len + row) * q_stride + (size_t)h * D;
      uint32_t *outrow = p.final ? reinterpret_cast<uint32_t *>(static_cast<T *>(p.out) +
                                                                ((size_t)b * p.q_len + row) * q_stride + (size_t)h * D)
                                 : nullptr;
#pragma unroll
      for (int dt = 0; dt < kDTiles; dt++) {
        const int col = dt * 8 + 2 * t;
        float2 old = make_float2(0.0f, 0.0f);
        if (read_o) old = *reinterpret_cast<const float2 *>(orow + col);
        float2 nw;
        nw.x = old.x * w_old + o[mi][dt][2 * hh] * inv * w_blk;
        nw.y = old.y * w_old + o[mi][dt][2 * hh + 1] * inv * w_blk;
        if (write_o) *reinterpret_cast<float2 *>(orow + col) = nw;
        if (p.final) outrow[col / 2] = DT::pack(nw.x, nw.y);
      }
      if (write_o && t == 0) p.lse[lse_i] = lse_new;
    }
  }
}

#endif
