/* MoE dispatch and combine kernels (moe.h): layout, row pushes, per-expert lists, weighted
 * combine (the checks are in moe_check.cu). One warp moves a 1024-channel part of a token row
 * (moe_rows.cuh); the push kernels use a fixed grid so receivers know how many completion
 * signals to expect.
 *
 * Signals (custom path, peer memory): counts travel LL-style ({count, epoch} in one 8-byte
 * store); row pushes complete with one release-add per block on the receiver's counter for this
 * source (signal pad slot 0 for dispatch, slot 1 for combine); the next kernel waits until the
 * counter reaches epoch x push_blocks (peer_ll's fused dispatch uses a flag per block
 * instead: moe_dispatch_ll.cu). Buffer reuse needs no extra barrier: a rank can
 * push call k+1's rows only after its call-k combine, which waited for every receiver's call-k
 * combine signal, sent after that receiver finished reading its call-k rows. */
#include "error_gpu.h"
#include "moe_lists.cuh"
#include "moe_rows.cuh"
#include "moe_trace.cuh"

namespace {

using namespace cb_moe;

/* ---- layout: send lists per destination, count exchange ---- */

__global__ void __launch_bounds__(kLayoutThreads) layout_kernel(cb_moe_dev_t a) {
  const int d = blockIdx.x, n = a.nranks, r = a.rank, T = a.ntokens, K = a.topk, tid = threadIdx.x;
  const int lane = tid & 31, warp = tid >> 5, nwarps = blockDim.x / 32;
  __shared__ int warp_off[32];
  __shared__ int chunk_total, base;
  if (d == 0)
    for (int e = tid; e < a.experts_per_rank; e += blockDim.x) a.expert_count[e] = 0;
  if (tid == 0) base = 0;
  __syncthreads();
  for (int t0 = 0; t0 < T; t0 += blockDim.x) {
    const int t = t0 + tid;
    const bool sel = t < T && goes_to(a.ids, t, K, a.experts_per_rank, d);
    const int j = base + block_compact_pos(sel, lane, warp, nwarps, warp_off, chunk_total);
    if (t < T) {
      a.send_pos[(size_t)t * n + d] = sel ? j : -1;
      if (sel) a.send_idx[(size_t)d * a.cap + j] = t;
    }
    __syncthreads();
    if (tid == 0) base += chunk_total;
    __syncthreads();
  }
  if (tid == 0) {
    const uint32_t e = a.epoch_layout[d] + 1;
    a.send_count[d] = base;
    if (a.custom) {
      if (d == r) {
        a.recv_count[r] = base;
      } else {
        cb_ll_send((char *)a.base[d] + a.cnt_off + (size_t)r * 8, (uint32_t)base, e);
        a.recv_count[d] = (int)cb_ll_recv((char *)a.base[r] + a.cnt_off + (size_t)d * 8, e, a.timeout_ns, a.ctl, r, d);
      }
    }
    a.epoch_layout[d] = e;
  }
}

/* Token-major: a warp loads (and for fp8 quantizes) one part of a token's row once and stores
 * it to each of the token's destinations (was: one item per destination, each loading and
 * quantizing again). Items (token, part) go in batches of G consecutive ones: warp w of the grid
 * takes batch w, then claims more from the call's work counter (moe.h CB_MOE_WORK_*), the
 * claim issued before the batch so its answer is there when the batch is done. G: about 8
 * batches per warp, at most 8 items (4096 tokens of 7 parts: G = 3 and ~9,600 claims on 32 SMs,
 * G = 1 and ~28,700 on 132); one item per batch at decode sizes, where the first (fixed) batch
 * is all a warp does and no warp claims (the grid's first batches cover every item). */
__global__ void __launch_bounds__(kDispatchThreads) dispatch_push_kernel(cb_moe_dev_t a) {
  const int tid = threadIdx.x, lane = tid & 31;
  const int P = row_parts(a.hidden), items = a.ntokens * P, W = gridDim.x * kDispatchWarps;
  const uint32_t e = a.epoch_dispatch[blockIdx.x] + 1;
  if (tid == 0) {
    CB_MOE_TRACE_AT(a, CB_MOE_TK_DISPATCH, e, CB_MOE_TP_START);
    CB_MOE_TRACE_SM(a, CB_MOE_TK_DISPATCH, e, CB_MOE_TP_A);
  }
  uint32_t *claim = a.work + CB_MOE_WORK_DISPATCH + (e & 1u);
  if (blockIdx.x == 0 && tid == 0) a.work[CB_MOE_WORK_DISPATCH + ((e + 1u) & 1u)] = 0; /* the next call's */
  const int G = min(8, max(1, items / (8 * W)));
  for (int batch = blockIdx.x * kDispatchWarps + (tid >> 5); batch * G < items;) {
    int next = W; /* W * G >= items: the first batches were all there is */
    if (lane == 0 && W * G < items) next = W + (int)atomicAdd(claim, 1u);
    for (int k = batch * G; k < min(items, batch * G + G); k++)
      push_token_part(a, k / P, k % P, lane, a.send_pos + (size_t)(k / P) * a.nranks);
    batch = __shfl_sync(0xffffffffu, next, 0);
  }
  CB_MOE_TRACE_BLOCK(a, CB_MOE_TK_DISPATCH, e, CB_MOE_TP_PUSHED);
  if (a.custom) signal_peers(a, 0);
  if (tid == (a.rank + 1) % a.nranks) CB_MOE_TRACE_AT(a, CB_MOE_TK_DISPATCH, e, CB_MOE_TP_SIGNALLED);
  if (tid == 0) a.epoch_dispatch[blockIdx.x] = e;
}

/* Per local expert, the received rows that selected it (order within an expert is
 * arbitrary; grouped GEMMs gather by these lists). */
__global__ void __launch_bounds__(kPushThreads) expert_layout_kernel(cb_moe_dev_t a) {
  __shared__ int pre[CB_MAX_RANKS + 1], cnt[CB_MAX_RANKS];
  __shared__ int ecnt[kListExperts], ebase[kListExperts];
  const int tid = threadIdx.x, n = a.nranks;
  if (tid == 0) CB_MOE_TRACE_AT(a, CB_MOE_TK_EXPERT, a.epoch_dispatch[0], CB_MOE_TP_START);
  if (a.custom) wait_peers(a, 0, a.epoch_dispatch[0]);
  if (tid == 0) CB_MOE_TRACE_AT(a, CB_MOE_TK_EXPERT, a.epoch_dispatch[0], CB_MOE_TP_WAITED);
  if (tid < n) cnt[tid] = a.recv_count[tid];
  __syncthreads();
  if (tid == 0) prefix_counts(cnt, n, pre);
  __syncthreads();
  /* block b lists received rows [i0, i1) of pre[n], in one range */
  const int i0 = (int)((long long)pre[n] * blockIdx.x / gridDim.x),
            i1 = (int)((long long)pre[n] * (blockIdx.x + 1) / gridDim.x);
  list_rows_block(
      a, i1 - i0,
      [&](int k) {
        const int i = i0 + k;
        int q = 0;
        while (i >= pre[q + 1]) q++;
        return row_base(a, pre, q) + (size_t)(i - pre[q]);
      },
      ecnt, ebase);
  CB_MOE_TRACE_BLOCK(a, CB_MOE_TK_EXPERT, a.epoch_dispatch[0], CB_MOE_TP_END);
}

/* Identity experts: y = sum over this row's local experts of w_k * expert_k(x), fp32. */
__global__ void __launch_bounds__(kPushThreads) combine_push_kernel(cb_moe_dev_t a) {
  __shared__ int pre[CB_MAX_RANKS + 1], maxc;
  const int tid = threadIdx.x, lane = tid & 31, n = a.nranks, K = a.topk;
  if (tid == 0) {
    prefix_counts(a.recv_count, n, pre);
    maxc = max_count(a.recv_count, n);
  }
  __syncthreads();
  const int P = row_parts(a.hidden);
  for (int k = blockIdx.x * kWarps + (tid >> 5); k < maxc * n * P; k += gridDim.x * kWarps) {
    const int part = k % P, q = (k / P) % n, j = k / P / n;
    if (j >= pre[q + 1] - pre[q]) continue;
    const size_t row = row_base(a, pre, q) + (size_t)j;
    char *m = a.recv_meta + row * a.meta_bytes;
    const char *x = a.recv_rows + row * a.row_bytes;
    uint4 *y = (uint4 *)(a.comb_dst[q] + (size_t)j * a.comb_row_bytes);
    /* the row's weights once, in registers (dropped or non-local slots weigh 0) */
    float w[CB_MOE_MAX_TOPK];
#pragma unroll
    for (int kk = 0; kk < CB_MOE_MAX_TOPK; kk++)
      w[kk] = kk < K && meta_ints(m)[2 + kk] >= 0 ? meta_weights(m, K)[kk] : 0.0f;
    const int nv = min(a.hidden, (part + 1) * kPartChannels) / 8;
    for (int v = part * kPartChannels / 8 + lane; v < nv; v += 64) {
      const bool second = v + 32 < nv;
      float f0[8], f1[8], acc0[8] = {0, 0, 0, 0, 0, 0, 0, 0}, acc1[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      read_row8(a, x, v, f0);
      if (second) read_row8(a, x, v + 32, f1);
#pragma unroll
      for (int kk = 0; kk < CB_MOE_MAX_TOPK; kk++) {
        if (kk >= K) break;
        if (w[kk] == 0.0f) continue;
        for (int c = 0; c < 8; c++) {
          acc0[c] += w[kk] * f0[c];
          acc1[c] += w[kk] * f1[c];
        }
      }
      y[v] = cb_vec_from_float<__nv_bfloat16>(acc0);
      if (second) y[v + 32] = cb_vec_from_float<__nv_bfloat16>(acc1);
    }
  }
  if (a.custom) signal_peers(a, 1);
  if (tid == 0) a.epoch_combine[blockIdx.x] += 1;
}

/* out[t] = sum over destinations in rank order of the combine rows that came back. */
__global__ void __launch_bounds__(kPushThreads) combine_reduce_kernel(cb_moe_dev_t a) {
  __shared__ int pre[CB_MAX_RANKS + 1];
  const int tid = threadIdx.x, lane = tid & 31, n = a.nranks;
  if (a.custom) wait_peers(a, 1, a.epoch_combine[0]);
  if (tid == 0) prefix_counts(a.send_count, n, pre);
  __syncthreads();
  const int P = row_parts(a.hidden);
  for (int k = blockIdx.x * kWarps + (tid >> 5); k < a.ntokens * P; k += gridDim.x * kWarps) {
    const int t = k / P, part = k % P;
    /* where token t's rows came back, per destination (NULL: not sent there) */
    const uint4 *src[CB_MAX_RANKS];
#pragma unroll
    for (int d = 0; d < CB_MAX_RANKS; d++) {
      const int pos = d < n ? a.send_pos[(size_t)t * n + d] : -1;
      src[d] = pos < 0 ? nullptr
                       : (const uint4 *)(a.comb_src + ((a.custom ? (size_t)d * a.cap : (size_t)pre[d]) + (size_t)pos) *
                                                          a.comb_row_bytes);
    }
    sum_rows(src, (uint4 *)((char *)a.out + (size_t)t * a.hidden * 2), a.hidden, part, lane);
  }
}

} // namespace

extern "C" void cb_moe_layout(const cb_moe_dev_t *d, cudaStream_t s) {
  layout_kernel<<<d->nranks, kLayoutThreads, 0, s>>>(*d);
  CB_CUDA_LAUNCH("moe layout_kernel");
}
extern "C" void cb_moe_dispatch_push(const cb_moe_dev_t *d, cudaStream_t s) {
  dispatch_push_kernel<<<d->push_blocks, kDispatchThreads, 0, s>>>(*d);
  CB_CUDA_LAUNCH("moe dispatch_push_kernel");
}
extern "C" void cb_moe_expert_layout(const cb_moe_dev_t *d, cudaStream_t s) {
  expert_layout_kernel<<<d->push_blocks, kPushThreads, 0, s>>>(*d);
  CB_CUDA_LAUNCH("moe expert_layout_kernel");
}
extern "C" void cb_moe_combine_push(const cb_moe_dev_t *d, cudaStream_t s) {
  combine_push_kernel<<<d->push_blocks, kPushThreads, 0, s>>>(*d);
  CB_CUDA_LAUNCH("moe combine_push_kernel");
}
extern "C" void cb_moe_combine_reduce(const cb_moe_dev_t *d, cudaStream_t s) {
  combine_reduce_kernel<<<d->push_blocks, kPushThreads, 0, s>>>(*d);
  CB_CUDA_LAUNCH("moe combine_reduce_kernel");
}
