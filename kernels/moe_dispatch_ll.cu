/* The low-latency dispatch of moe `peer_ll` (moe.h cb_moe_dispatch_ll): the layout, the row
 * pushes and the per-expert lists in one kernel, with no wait for the peers' counts before the
 * rows go out and no grid-wide wait before the lists.
 *
 * Block b of B owns tokens [T·b/B, T·(b+1)/B). Every block counts, over all T tokens, how many
 * go to each destination before its range and in total (a token's destinations are a bitmask
 * of its experts' ranks), so it knows where its rows land in each destination's packed list
 * (send_pos, send_idx) without another kernel. Block 0 publishes send_count and its own
 * recv_count. Then the block pushes its range's rows and metadata; for each peer d it stores
 * its range of d's list from this source, {first row, rows} (range_slot below), and raises its
 * own flag in d's pad (slot kDispatchFlagSlot, its block index, this source) with a release
 * store of the call's epoch, after a __syncthreads: the flag publishes the block's rows, metadata
 * and range together.
 *
 * Lists: block b then lists (moe.h expert_rows) exactly the rows that block b of every source
 * wrote here: its own self rows (visible after its __syncthreads) and, once peer q's block b
 * raised its flag, q's block-b range. So each block waits for one block per peer, not for the
 * peer's whole grid, and no kernel boundary separates the pushes from the lists (was: a
 * separate expert-layout kernel behind a wait for every peer block's completion). The block
 * that owns the last range (b = B - 1) writes recv_count[q] = its range's end, the total;
 * the combine (next kernel) reads it.
 * The expert counters are zeroed by block 0 at its start; it then publishes the call's epoch
 * in expert_zeroed (release), and every block acquires that before its first atomicAdd.
 *
 * Progress: a block raises its flags before it waits for anything, and block 0 raises
 * expert_zeroed first thing, so no wait depends on a block that is itself waiting: the kernel
 * finishes even if its grid is not all resident (blocks start in index order).
 *
 * Reuse, for replays and check iterations alike (epochs are per block, advanced once per call,
 * equal on every block and rank; flags only grow, compared wrap-safely):
 *  - range slots are two per (block, source), by the epoch's parity. One slot would not do: a
 *    peer that sent this rank no rows never waits on it in the combine, so it could write call
 *    e+1's range before this rank read call e's (the race the one count slot per source of this
 *    kernel's earlier LL form had).
 *    Call e+2's write needs the peer's call-e+1 block b past its wait for this rank's call-e+1
 *    block-b flag, raised in this rank's next kernel, after this call's reads.
 *  - rows and metadata: a peer overwrites its region here only in its next dispatch, after its
 *    combine, which waited for this rank's chunk flags for every row it sent here (moe_combine.cu),
 *    raised after this rank's lists and combine pushes read them; a peer that sent no rows has
 *    nothing here to overwrite.
 *  - the combine region: a peer's next combine starts after its next dispatch, whose blocks
 *    each waited for this rank's flag of the same block in this rank's next dispatch, which
 *    starts after this rank's combine ended (moe_combine.cu's argument, with per-block flags in
 *    place of the completion counter).
 * Counting all T tokens in every block costs T·topk id loads per block: 1 µs at 128 tokens, a
 * few at 4096, against a kernel launch and a cross-GPU count round trip saved. */
#include "error_gpu.h"
#include "moe_lists.cuh"
#include "moe_rows.cuh"
#include "moe_trace.cuh"
#include "pdl.cuh"

namespace {

using namespace cb_moe;

/* Bit d set when token t has an expert on rank d. Eight ids loaded at a time, all before any
 * is looked at (a branch on each loaded id serialized the loads). */
__device__ __forceinline__ uint32_t dest_mask(const cb_moe_dev_t &a, int t) {
  const int32_t *row = a.ids + (size_t)t * a.topk;
  uint32_t m = 0;
  for (int k0 = 0; k0 < a.topk; k0 += 8) {
    int id[8];
#pragma unroll
    for (int u = 0; u < 8; u++) id[u] = k0 + u < a.topk ? row[k0 + u] : -1;
#pragma unroll
    for (int u = 0; u < 8; u++) m |= id[u] >= 0 ? 1u << (id[u] / a.experts_per_rank) : 0u;
  }
  return m;
}

/* The pad slot of the per-block dispatch flags (slot 0 is peer's completion counter, slot 1
 * the old two-kernel combine's). */
constexpr int kDispatchFlagSlot = 2;

/* Source src's block-b range {first row, rows} of the list it sends to the rank owning `base`,
 * for dispatch epoch e: two slots per (block, source), by parity (see the header). */
__device__ __forceinline__ uint2 *range_slot(const cb_moe_dev_t &a, void *base, uint32_t e, int b, int src) {
  return (uint2 *)((char *)base + a.cnt_off) + ((size_t)(e & 1u) * CB_MOE_MAX_PUSH_BLOCKS + (size_t)b) * CB_MAX_RANKS +
         src;
}

/* The received rows [first[q], first[q] + rows[q]) of every source q into the per-expert lists
 * (whole block, one pass over all sources' rows: list_rows_block). */
__device__ __forceinline__ void list_rows(const cb_moe_dev_t &a, const int *first, const int *rows, int *cnt,
                                          int *base) {
  int total = 0;
  for (int q = 0; q < a.nranks; q++) total += rows[q];
  list_rows_block(
      a, total,
      [&](int i) {
        int q = 0, k = i;
        while (k >= rows[q]) k -= rows[q++];
        return (size_t)q * a.cap + (size_t)(first[q] + k);
      },
      cnt, base);
}

/* A block's range kept in shared memory when it fits: its tokens' destination masks (from
 * step 1, so step 3 does not load the ids again) and, when range x ranks fits, their positions
 * (from step 3, so step 4 does not load send_pos back); beyond these the global copies serve. */
constexpr int kMaskCache = 1024;
constexpr int kPosCache = 2048;

__global__ void __launch_bounds__(kDispatchThreads) dispatch_ll_kernel(cb_moe_dev_t a) {
  __shared__ int before[CB_MAX_RANKS], total[CB_MAX_RANKS], running[CB_MAX_RANKS];
  __shared__ int first[CB_MAX_RANKS], rows[CB_MAX_RANKS];
  __shared__ int warp_cnt[kDispatchWarps][CB_MAX_RANKS];
  __shared__ uint32_t smask[kMaskCache];
  __shared__ int32_t spos[kPosCache];
  __shared__ int ecnt[kListExperts], ebase[kListExperts];
  const int n = a.nranks, r = a.rank, T = a.ntokens, B = gridDim.x, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int t0 = (int)((long long)T * blockIdx.x / B), t1 = (int)((long long)T * (blockIdx.x + 1) / B);
  cb_griddep_wait(); /* the previous kernel (a combine) is complete (pdl.cuh) */
  cb_griddep_launch();
  const uint32_t e = a.epoch_dispatch[blockIdx.x] + 1; /* this block's word, advanced at the end */
  if (tid == 0) CB_MOE_TRACE_AT(a, CB_MOE_TK_DISPATCH_LL, e, CB_MOE_TP_START);
  if (tid < n) before[tid] = total[tid] = 0;
  /* this call's lists count from zero (the layout kernel's job in peer) */
  if (blockIdx.x == 0)
    for (int le = tid; le < a.experts_per_rank; le += kDispatchThreads) a.expert_count[le] = 0;
  __syncthreads();
  if (blockIdx.x == 0 && tid == 0) cb_st_release_sys(a.expert_zeroed, e); /* after every thread's zeroing */
  /* 1. counts per destination: before this block's range, and in all */
  for (int base = 0; base < T; base += kDispatchThreads) {
    const int t = base + tid;
    const uint32_t m = t < T ? dest_mask(a, t) : 0u;
    if (t >= t0 && t < t1 && t - t0 < kMaskCache) smask[t - t0] = m;
    for (int d = 0; d < n; d++) {
      const unsigned all = __ballot_sync(0xffffffffu, (m >> d) & 1u),
                     early = __ballot_sync(0xffffffffu, ((m >> d) & 1u) && t < t0);
      if (lane == 0 && all) atomicAdd(&total[d], __popc(all));
      if (lane == 0 && early) atomicAdd(&before[d], __popc(early));
    }
  }
  __syncthreads();
  if (tid == 0) CB_MOE_TRACE_AT(a, CB_MOE_TK_DISPATCH_LL, e, CB_MOE_TP_A);
  /* 2. block 0 publishes this rank's totals (the receivers learn theirs from the ranges) */
  if (blockIdx.x == 0 && tid < n) {
    a.send_count[tid] = total[tid];
    if (tid == r) a.recv_count[r] = total[r];
  }
  if (tid < n) running[tid] = before[tid];
  __syncthreads();
  /* 3. positions of this range's tokens in each destination's list (block-wide scan) */
  const bool pos_cached = (long long)(t1 - t0) * n <= kPosCache;
  for (int c0 = t0; c0 < t1; c0 += kDispatchThreads) {
    const int t = c0 + tid;
    const uint32_t m = t < t1 ? (t - t0 < kMaskCache ? smask[t - t0] : dest_mask(a, t)) : 0u;
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
        const int j = (m >> d) & 1u ? warp_cnt[warp][d] + __popc(bal[d] & ((1u << lane) - 1u)) : -1;
        a.send_pos[(size_t)t * n + d] = j;
        if (j >= 0) a.send_idx[(size_t)d * a.cap + j] = t;
        if (pos_cached) spos[(t - t0) * n + d] = j;
      }
    }
    __syncthreads(); /* warp_cnt is reused; send_pos is read below */
  }
  if (tid == 0) CB_MOE_TRACE_AT(a, CB_MOE_TK_DISPATCH_LL, e, CB_MOE_TP_B);
  /* 4. this range's rows: each part loaded (quantized) once, stored to every destination */
  const int P = row_parts(a.hidden);
  for (int k = warp; k < (t1 - t0) * P; k += kDispatchWarps) {
    const int i = k / P; /* the token's index in the range */
    push_token_part(a, t0 + i, k % P, lane, pos_cached ? spos + i * n : a.send_pos + (size_t)(t0 + i) * n);
  }
  /* 5. this block's range of each peer's list, then its flag there (rows, metadata and range
   * published by the release after the barrier) */
  __syncthreads();
  if (tid == 0) CB_MOE_TRACE_AT(a, CB_MOE_TK_DISPATCH_LL, e, CB_MOE_TP_PUSHED);
  if (tid < n && tid != r) {
    const uint2 range = make_uint2((uint32_t)before[tid], (uint32_t)(running[tid] - before[tid]));
    *range_slot(a, a.base[tid], e, blockIdx.x, r) = range;
    cb_st_release_sys(cb_pad_flag((char *)a.base[tid] + a.pad_off, kDispatchFlagSlot, blockIdx.x, r), e);
    if (tid == (r + 1) % n) CB_MOE_TRACE_AT(a, CB_MOE_TK_DISPATCH_LL, e, CB_MOE_TP_SIGNALLED);
  }
  /* 6. the rows block b of every source wrote here, into the expert lists */
  if (tid < n) {
    if (tid == r) {
      first[r] = before[r]; /* this block's own self rows, stored before the barrier above */
      rows[r] = running[r] - before[r];
    } else {
      cb_wait_geq_acquire_sys(cb_pad_flag((char *)a.base[r] + a.pad_off, kDispatchFlagSlot, blockIdx.x, tid), e,
                              a.timeout_ns, a.ctl, r, tid, kDispatchFlagSlot);
      const uint2 range = cb_ll_load(range_slot(a, a.base[r], e, blockIdx.x, tid)); /* after the acquire */
      first[tid] = (int)range.x;
      rows[tid] = (int)range.y;
      if (blockIdx.x == B - 1) a.recv_count[tid] = (int)(range.x + range.y); /* the last range ends at the total */
    }
  }
  if (tid == 0) cb_wait_geq_acquire_sys(a.expert_zeroed, e, a.timeout_ns, a.ctl, r, r, kDispatchFlagSlot);
  __syncthreads();
  if (tid == 0) CB_MOE_TRACE_AT(a, CB_MOE_TK_DISPATCH_LL, e, CB_MOE_TP_WAITED);
  list_rows(a, first, rows, ecnt, ebase);
  CB_MOE_TRACE_BLOCK(a, CB_MOE_TK_DISPATCH_LL, e, CB_MOE_TP_END);
  if (tid == 0) a.epoch_dispatch[blockIdx.x] = e;
}

} // namespace

extern "C" void cb_moe_dispatch_ll(const cb_moe_dev_t *d, cudaStream_t s) {
  CB_CUDA(cb_launch_pdl(dispatch_ll_kernel, d->push_blocks, kDispatchThreads, s, *d));
  CB_CUDA_LAUNCH("moe dispatch_ll_kernel");
}
