/* The low-latency dispatch of moe `peer_ll` (moe.h cb_moe_dispatch_ll): the layout and the row
 * pushes in one kernel, with no wait for the peers' counts before the rows go out.
 *
 * Block b of B owns tokens [T·b/B, T·(b+1)/B). Every block counts, over all T tokens, how many
 * go to each destination before its range and in total (a token's destinations are a bitmask
 * of its experts' ranks), so it knows where its rows land in each destination's packed list
 * (send_pos, send_idx) without another kernel. Block 0 publishes the totals: send_count, its
 * own recv_count, and LL count words {count, epoch} in each peer's count slot for this source
 * (two slots per source, by epoch parity: moe_rows.cuh ll_count_slot). Then the block pushes its range's rows and metadata
 * and signals completion like dispatch_push (one release-add per block in slot 0), which also
 * publishes block 0's count words; the receiver's expert-layout kernel reads them after that
 * signal (moe.cu expert_layout_kernel with ll_counts). Counting all T tokens in every block
 * costs T·topk id loads per block: 1 µs at 128 tokens, a few at 4096, against a kernel launch
 * and a cross-GPU count round trip saved. */
#include "error_gpu.h"
#include "moe_rows.cuh"

namespace {

using namespace cb_moe;

/* Bit d set when token t has an expert on rank d. */
__device__ __forceinline__ uint32_t dest_mask(const cb_moe_dev_t &a, int t) {
  uint32_t m = 0;
  for (int k = 0; k < a.topk; k++) {
    const int id = a.ids[(size_t)t * a.topk + k];
    if (id >= 0) m |= 1u << (id / a.experts_per_rank);
  }
  return m;
}

__global__ void __launch_bounds__(kDispatchThreads) dispatch_ll_kernel(cb_moe_dev_t a) {
  __shared__ int before[CB_MAX_RANKS], total[CB_MAX_RANKS], running[CB_MAX_RANKS];
  __shared__ int warp_cnt[kDispatchWarps][CB_MAX_RANKS];
  const int n = a.nranks, r = a.rank, T = a.ntokens, B = gridDim.x, tid = threadIdx.x, lane = tid & 31,
            warp = tid >> 5;
  const int t0 = (int)((long long)T * blockIdx.x / B), t1 = (int)((long long)T * (blockIdx.x + 1) / B);
  const uint32_t e = a.epoch_layout[0] + 1; /* block 0 advances it at the end */
  if (tid < n) before[tid] = total[tid] = 0;
  /* the expert-layout kernel that follows counts from zero (the layout kernel's job in peer) */
  if (blockIdx.x == 0)
    for (int le = tid; le < a.experts_per_rank; le += kDispatchThreads) a.expert_count[le] = 0;
  __syncthreads();
  /* 1. counts per destination: before this block's range, and in all */
  for (int base = 0; base < T; base += kDispatchThreads) {
    const int t = base + tid;
    const uint32_t m = t < T ? dest_mask(a, t) : 0u;
    for (int d = 0; d < n; d++) {
      const unsigned all = __ballot_sync(0xffffffffu, (m >> d) & 1u), early = __ballot_sync(0xffffffffu, ((m >> d) & 1u) && t < t0);
      if (lane == 0 && all) atomicAdd(&total[d], __popc(all));
      if (lane == 0 && early) atomicAdd(&before[d], __popc(early));
    }
  }
  __syncthreads();
  /* 2. block 0 publishes the totals */
  if (blockIdx.x == 0 && tid < n) {
    a.send_count[tid] = total[tid];
    if (tid == r) a.recv_count[r] = total[r];
    else cb_ll_send((char *)a.base[tid] + a.cnt_off + ll_count_slot(n, e, r), (uint32_t)total[tid], e);
  }
  if (tid < n) running[tid] = before[tid];
  __syncthreads();
  /* 3. positions of this range's tokens in each destination's list (block-wide scan) */
  for (int c0 = t0; c0 < t1; c0 += kDispatchThreads) {
    const int t = c0 + tid;
    const uint32_t m = t < t1 ? dest_mask(a, t) : 0u;
    unsigned bal[CB_MAX_RANKS];
#pragma unroll
    for (int d = 0; d < CB_MAX_RANKS; d++) {
      bal[d] = d < n ? __ballot_sync(0xffffffffu, (m >> d) & 1u) : 0u;
      if (d < n && lane == 0) warp_cnt[warp][d] = __popc(bal[d]);
    }
    __syncthreads();
    if (tid < n) { /* exclusive scan over the warps, after the running offset */
      int acc = running[tid];
      for (int w = 0; w < kDispatchWarps; w++) {
        const int c = warp_cnt[w][tid];
        warp_cnt[w][tid] = acc;
        acc += c;
      }
      running[tid] = acc;
    }
    __syncthreads();
    if (t < t1) {
#pragma unroll
      for (int d = 0; d < CB_MAX_RANKS; d++) {
        if (d >= n) break;
        if ((m >> d) & 1u) {
          const int j = warp_cnt[warp][d] + __popc(bal[d] & ((1u << lane) - 1u));
          a.send_pos[(size_t)t * n + d] = j;
          a.send_idx[(size_t)d * a.cap + j] = t;
        } else {
          a.send_pos[(size_t)t * n + d] = -1;
        }
      }
    }
    __syncthreads(); /* warp_cnt is reused; send_pos is read below */
  }
  /* 4. this range's rows: each part loaded (quantized) once, stored to every destination */
  const int P = row_parts(a.hidden);
  for (int k = warp; k < (t1 - t0) * P; k += kDispatchWarps) push_token_part(a, t0 + k / P, k % P, lane);
  /* 5. completion (publishes block 0's count words too) */
  signal_peers(a, 0);
  if (tid == 0) {
    a.epoch_dispatch[blockIdx.x] += 1;
    if (blockIdx.x == 0) a.epoch_layout[0] = e;
  }
}

} // namespace

extern "C" void cb_moe_dispatch_ll(const cb_moe_dev_t *d, cudaStream_t s) {
  dispatch_ll_kernel<<<d->push_blocks, kDispatchThreads, 0, s>>>(*d);
  CB_CUDA_LAUNCH("moe dispatch_ll_kernel");
}
