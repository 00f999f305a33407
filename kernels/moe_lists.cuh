/* The per-expert lists of received rows (moe.h expert_rows): which rows each local expert must
 * read, for grouped GEMMs that gather by them. Built by peer's expert-layout kernel (moe.cu)
 * and inside peer_ll's dispatch (moe_dispatch_ll.cu); order within a list is arbitrary. */
#ifndef CB_MOE_LISTS_CUH
#define CB_MOE_LISTS_CUH

#include "moe_rows.cuh"

namespace cb_moe {

/* Received row `row` into the list of each local expert its metadata names (one thread; order
 * within a list is arbitrary: grouped GEMMs gather by these lists). Eight slots at a time: their
 * loads, then their counter atomics, then their stores, so the atomics' round trips overlap
 * (one after another they were most of a decode call's list time). */
__device__ __forceinline__ void list_row(const cb_moe_dev_t &a, size_t row) {
  const int32_t *loc = meta_ints(a.recv_meta + row * a.meta_bytes) + 2;
  for (int k0 = 0; k0 < a.topk; k0 += 8) {
    int le[8], pos[8];
#pragma unroll
    for (int u = 0; u < 8; u++) le[u] = k0 + u < a.topk ? loc[k0 + u] : -1;
#pragma unroll
    for (int u = 0; u < 8; u++)
      if (le[u] >= 0) pos[u] = atomicAdd(&a.expert_count[le[u]], 1);
#pragma unroll
    for (int u = 0; u < 8; u++)
      if (le[u] >= 0) a.expert_rows[(size_t)le[u] * a.nranks * a.cap + pos[u]] = (int32_t)row;
  }
}

/* Local experts a block can count in shared memory (list_rows_block's two arrays), and the
 * rows per block up to which list_row per row is faster (decode sizes: a row or two per block,
 * whose atomics overlap; the counting pass costs three barriers, 1.3 us in the 128-token trace). */
constexpr int kListExperts = 2048;
constexpr int kListDirectRows = 32;

/* Block-wide (every thread calls it): the received rows row_of(i), i in [0, count), into the
 * per-expert lists. The block counts its rows per expert with shared-memory atomics, reserves
 * each expert's range with one global atomic, then writes: one global atomic per (block,
 * expert) instead of one per (row, expert) on 128 contended counters (those made the list of
 * 8192 received rows take 12 us at 32 blocks). cnt and base: shared arrays of kListExperts.
 * With more local experts than that, or at most kListDirectRows rows, list_row per row. */
template <class RowOf>
__device__ __forceinline__ void list_rows_block(const cb_moe_dev_t &a, int count, RowOf row_of, int *cnt, int *base) {
  const int E = a.experts_per_rank, tid = threadIdx.x, nt = blockDim.x;
  if (E > kListExperts || count <= kListDirectRows) {
    for (int i = tid; i < count; i += nt) list_row(a, row_of(i));
    return;
  }
  for (int e = tid; e < E; e += nt) cnt[e] = 0;
  __syncthreads();
  for (int i = tid; i < count; i += nt) {
    const int32_t *loc = meta_ints(a.recv_meta + row_of(i) * a.meta_bytes) + 2;
    for (int k = 0; k < a.topk; k++)
      if (loc[k] >= 0) atomicAdd(&cnt[loc[k]], 1);
  }
  __syncthreads();
  for (int e = tid; e < E; e += nt) {
    base[e] = cnt[e] ? atomicAdd(&a.expert_count[e], cnt[e]) : 0;
    cnt[e] = 0;
  }
  __syncthreads();
  for (int i = tid; i < count; i += nt) {
    const size_t row = row_of(i);
    const int32_t *loc = meta_ints(a.recv_meta + row * a.meta_bytes) + 2;
    for (int k = 0; k < a.topk; k++) {
      const int le = loc[k];
      if (le >= 0) a.expert_rows[(size_t)le * a.nranks * a.cap + base[le] + atomicAdd(&cnt[le], 1)] = (int32_t)row;
    }
  }
}

} // namespace cb_moe

#endif
