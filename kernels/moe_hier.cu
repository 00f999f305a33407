/* MoE "hier" kernels (moe_hier.h): node lists, packing for the network and for this node's
 * ranks, forwarding over NVLink, a one-block node barrier, the node-level combine reduction and
 * the final sum. Rows move as in kernels/moe.cu: one warp per 1024-channel part of a row
 * (moe_rows.cuh), the same fp8 format.
 *
 * Ordering (collectives/moe_hier.c runs these on one stream, NCCL between them):
 *   layout:   cb_moe_layout, hier_layout, allgather of the count rows, recv_counts
 *   dispatch: pack -> rail send/recv of node rows -> forward -> node barrier 0 -> expert lists
 *   combine:  combine rows (moe.cu) -> node barrier 1 -> node_reduce -> rail send/recv of the
 *             partials -> final_reduce
 * Barrier 0 publishes every rank's pushes and forwards into a receive region before its owner
 * reads it; barrier 1 publishes the combine rows before node peers read them. Reuse across
 * calls needs no barrier of its own: the next call's first cross-GPU write (pack) comes after
 * the allgather of its layout, which no rank completes before every rank has entered it, i.e.
 * finished reading its peers' buffers in the previous call. */
#include "error_gpu.h"
#include "moe_hier.h"
#include "moe_rows.cuh"
#include "signal.cuh"

namespace {

using namespace cb_moe;

constexpr int kMaxLists = 2 * CB_MAX_RANKS;

/* rpre[q][s]: where rows from source s start in the receive region of local rank q (the flat
 * path's packing: prefix over sources of the allgathered counts). Thread 0 fills it. */
__device__ __forceinline__ void node_recv_prefix(const cb_moe_hier_dev_t &h, int (*rpre)[CB_MAX_RANKS]) {
  if (threadIdx.x != 0) return;
  const int n = h.m.nranks;
  for (int q = 0; q < h.K; q++) {
    const int d = h.rank_at[h.node * h.K + q];
    int acc = 0;
    for (int s = 0; s < n; s++) {
      rpre[q][s] = acc;
      acc += h.counts[(size_t)s * h.cw + d];
    }
  }
}

/* Node rows that arrive from node i (sent by my rail peer there). */
__device__ __forceinline__ int rows_from_node(const cb_moe_hier_dev_t &h, int i) {
  if (i == h.node) return 0;
  return h.counts[(size_t)h.rank_at[i * h.K + h.local] * h.cw + h.m.nranks + h.node];
}

__device__ __forceinline__ int32_t *node_meta(const cb_moe_hier_dev_t &h, char *node_row) {
  return (int32_t *)(node_row + h.m.row_bytes);
}

__device__ __forceinline__ bool goes_to_node(const cb_moe_hier_dev_t &h, int t, int j) {
  const cb_moe_dev_t &a = h.m;
  for (int k = 0; k < a.topk; k++) {
    const int id = a.ids[(size_t)t * a.topk + k];
    if (id >= 0 && h.node_of[id / a.experts_per_rank] == j) return true;
  }
  return false;
}

/* Section index of item k given the sections' prefix (at most kMaxLists sections). */
__device__ __forceinline__ int section_of(const int *pre, int k) {
  int L = 0;
  while (k >= pre[L + 1]) L++;
  return L;
}

/* ---- layout ---- */

__global__ void __launch_bounds__(kLayoutThreads) hier_layout_kernel(cb_moe_hier_dev_t h) {
  const cb_moe_dev_t &a = h.m;
  const int J = blockIdx.x, N = h.nnodes, T = a.ntokens, tid = threadIdx.x;
  const int lane = tid & 31, warp = tid >> 5, nwarps = blockDim.x / 32;
  __shared__ int warp_off[32];
  __shared__ int chunk_total, base;
  if (J == 0)
    for (int d = tid; d < a.nranks; d += blockDim.x) h.my_counts[d] = a.send_count[d];
  if (J == h.node) {
    for (int t = tid; t < T; t += blockDim.x) h.node_pos[(size_t)t * N + J] = -1;
    if (tid == 0) h.my_counts[a.nranks + J] = 0;
    return;
  }
  if (tid == 0) base = 0;
  __syncthreads();
  for (int t0 = 0; t0 < T; t0 += blockDim.x) {
    const int t = t0 + tid;
    const bool sel = t < T && goes_to_node(h, t, J);
    const int j = base + block_compact_pos(sel, lane, warp, nwarps, warp_off, chunk_total);
    if (t < T) {
      h.node_pos[(size_t)t * N + J] = sel ? j : -1;
      if (sel) h.node_idx[(size_t)J * a.cap + j] = t;
    }
    __syncthreads();
    if (tid == 0) base += chunk_total;
    __syncthreads();
  }
  if (tid == 0) h.my_counts[a.nranks + J] = base;
}

__global__ void hier_recv_counts_kernel(cb_moe_hier_dev_t h) {
  for (int s = threadIdx.x; s < h.m.nranks; s += blockDim.x) h.m.recv_count[s] = h.counts[(size_t)s * h.cw + h.m.rank];
}

/* ---- dispatch ---- */

/* Hier metadata of token t's node row for node j (one warp). */
__device__ __forceinline__ void write_node_meta(const cb_moe_hier_dev_t &h, int t, int j, int32_t *w, int lane) {
  const cb_moe_dev_t &a = h.m;
  const int K = a.topk;
  if (lane == 0) {
    w[0] = a.rank;
    w[1] = t;
  }
  if (lane < K) {
    w[2 + lane] = a.ids[(size_t)t * K + lane];
    ((float *)w)[2 + K + lane] = a.weights[(size_t)t * K + lane];
  }
  if (lane < h.K) w[2 + 2 * K + lane] = a.send_pos[(size_t)t * a.nranks + h.rank_at[j * h.K + lane]];
}

/* Sections 0..N-1: node rows for node j (none for my own); N..N+K-1: rows for local rank q,
 * written straight into its receive region (peer memory; my own region for q = local). */
__global__ void __launch_bounds__(kPushThreads) hier_pack_kernel(cb_moe_hier_dev_t h) {
  const cb_moe_dev_t &a = h.m;
  __shared__ int rpre[CB_MAX_RANKS][CB_MAX_RANKS], pre[kMaxLists + 1];
  const int tid = threadIdx.x, lane = tid & 31, N = h.nnodes, P = row_parts(a.hidden);
  node_recv_prefix(h, rpre);
  if (tid == 0) {
    pre[0] = 0;
    for (int L = 0; L < N + h.K; L++) {
      const int c =
          L < N ? (L == h.node ? 0 : h.my_counts[a.nranks + L]) : a.send_count[h.rank_at[h.node * h.K + L - N]];
      pre[L + 1] = pre[L] + c * P;
    }
  }
  __syncthreads();
  for (int k = blockIdx.x * kWarps + (tid >> 5); k < pre[N + h.K]; k += gridDim.x * kWarps) {
    const int L = section_of(pre, k), j = (k - pre[L]) / P, part = (k - pre[L]) % P;
    if (L < N) {
      const int t = h.node_idx[(size_t)L * a.cap + j];
      char *dst = h.net_send + ((size_t)L * a.cap + j) * h.nrow_bytes;
      write_row(a, t, part, dst, lane);
      if (part == 0) write_node_meta(h, t, L, node_meta(h, dst), lane);
    } else {
      const int q = L - N, d = h.rank_at[h.node * h.K + q];
      const int t = a.send_idx[(size_t)d * a.cap + j];
      const size_t row = (size_t)rpre[q][a.rank] + j;
      write_row(a, t, part, h.recv_rows[q] + row * a.row_bytes, lane);
      if (part == 0) write_meta(a, t, d, h.recv_meta[q] + row * a.meta_bytes, lane);
    }
  }
}

/* Each received node row to every local rank q that needs it (send_pos >= 0), at the place
 * the flat path's packing gives it; the per-rank metadata is rebuilt from the global ids. */
__global__ void __launch_bounds__(kPushThreads) hier_forward_kernel(cb_moe_hier_dev_t h) {
  const cb_moe_dev_t &a = h.m;
  __shared__ int rpre[CB_MAX_RANKS][CB_MAX_RANKS], pre[CB_MAX_RANKS + 1];
  const int tid = threadIdx.x, lane = tid & 31, N = h.nnodes, P = row_parts(a.hidden), KP = h.K * P;
  node_recv_prefix(h, rpre);
  if (tid == 0) {
    pre[0] = 0;
    for (int i = 0; i < N; i++) pre[i + 1] = pre[i] + rows_from_node(h, i) * KP;
  }
  __syncthreads();
  const int nvec = (int)(a.row_bytes / 16), per = (nvec + P - 1) / P, K = a.topk;
  for (int k = blockIdx.x * kWarps + (tid >> 5); k < pre[N]; k += gridDim.x * kWarps) {
    const int i = section_of(pre, k), idx = k - pre[i], j = idx / KP, q = idx % KP / P, part = idx % P;
    char *nrow = h.net_recv + ((size_t)i * a.cap + j) * h.nrow_bytes;
    const int32_t *hm = node_meta(h, nrow);
    const int src = hm[0], t = hm[1], pos = hm[2 + 2 * K + q];
    if (pos < 0) continue;
    const size_t row = (size_t)rpre[q][src] + pos;
    const uint4 *from = (const uint4 *)nrow;
    uint4 *to = (uint4 *)(h.recv_rows[q] + row * a.row_bytes);
    const int v1 = min(nvec, (part + 1) * per);
    for (int v = part * per + lane; v < v1; v += 128) {
      uint4 x[4];
#pragma unroll
      for (int u = 0; u < 4; u++)
        if (v + 32 * u < v1) x[u] = from[v + 32 * u];
#pragma unroll
      for (int u = 0; u < 4; u++)
        if (v + 32 * u < v1) to[v + 32 * u] = x[u];
    }
    if (part == 0) {
      char *m = h.recv_meta[q] + row * a.meta_bytes;
      const int d = h.rank_at[h.node * h.K + q];
      if (lane == 0) {
        meta_ints(m)[0] = src;
        meta_ints(m)[1] = t;
      }
      if (lane < K) {
        const int le = local_expert(hm[2 + lane], a.experts_per_rank, d);
        meta_ints(m)[2 + lane] = le;
        meta_weights(m, K)[lane] = le >= 0 ? ((const float *)hm)[2 + K + lane] : 0.0f;
      }
    }
  }
}

__global__ void hier_barrier_kernel(cb_moe_hier_dev_t h, int slot) {
  __threadfence_system(); /* the previous kernels' peer writes, before the release below */
  const uint32_t e = h.barrier_epoch[slot] + 1;
  cb_block_barrier(h.pads, h.local, h.K, slot, e, h.m.timeout_ns, h.m.ctl);
  if (threadIdx.x == 0) h.barrier_epoch[slot] = e;
}

/* ---- combine ---- */

/* Per node row received from node i: the sum of the combine rows of this node's ranks for it,
 * into comb_send region i (sent back to the source's rail peer). */
__global__ void __launch_bounds__(kPushThreads) hier_node_reduce_kernel(cb_moe_hier_dev_t h) {
  const cb_moe_dev_t &a = h.m;
  __shared__ int rpre[CB_MAX_RANKS][CB_MAX_RANKS], pre[CB_MAX_RANKS + 1];
  const int tid = threadIdx.x, lane = tid & 31, N = h.nnodes, P = row_parts(a.hidden), K = a.topk;
  node_recv_prefix(h, rpre);
  if (tid == 0) {
    pre[0] = 0;
    for (int i = 0; i < N; i++) pre[i + 1] = pre[i] + rows_from_node(h, i) * P;
  }
  __syncthreads();
  for (int k = blockIdx.x * kWarps + (tid >> 5); k < pre[N]; k += gridDim.x * kWarps) {
    const int i = section_of(pre, k), j = (k - pre[i]) / P, part = (k - pre[i]) % P;
    const int32_t *hm = node_meta(h, h.net_recv + ((size_t)i * a.cap + j) * h.nrow_bytes);
    const int src = hm[0];
    const uint4 *rows[CB_MAX_RANKS];
#pragma unroll
    for (int q = 0; q < CB_MAX_RANKS; q++) {
      const int pos = q < h.K ? hm[2 + 2 * K + q] : -1;
      rows[q] = pos < 0 ? nullptr : (const uint4 *)(h.comb[q] + ((size_t)rpre[q][src] + pos) * a.comb_row_bytes);
    }
    sum_rows(rows, (uint4 *)(h.comb_send + ((size_t)i * a.cap + j) * a.comb_row_bytes), a.hidden, part, lane);
  }
}

/* out[t]: this node's ranks' combine rows (peer reads) plus one partial per other node. */
__global__ void __launch_bounds__(kPushThreads) hier_final_reduce_kernel(cb_moe_hier_dev_t h) {
  const cb_moe_dev_t &a = h.m;
  __shared__ int rpre[CB_MAX_RANKS][CB_MAX_RANKS];
  const int tid = threadIdx.x, lane = tid & 31, n = a.nranks, N = h.nnodes, P = row_parts(a.hidden);
  node_recv_prefix(h, rpre);
  __syncthreads();
  for (int k = blockIdx.x * kWarps + (tid >> 5); k < a.ntokens * P; k += gridDim.x * kWarps) {
    const int t = k / P, part = k % P;
    /* [0, K): ranks of this node; [K, K + N): partials of the other nodes */
    const uint4 *rows[2 * CB_MAX_RANKS];
#pragma unroll
    for (int x = 0; x < 2 * CB_MAX_RANKS; x++) {
      rows[x] = nullptr;
      if (x < h.K) {
        const int pos = a.send_pos[(size_t)t * n + h.rank_at[h.node * h.K + x]];
        if (pos >= 0) rows[x] = (const uint4 *)(h.comb[x] + ((size_t)rpre[x][a.rank] + pos) * a.comb_row_bytes);
      } else if (x < h.K + N && x - h.K != h.node) {
        const int J = x - h.K, pos = h.node_pos[(size_t)t * N + J];
        if (pos >= 0) rows[x] = (const uint4 *)(h.comb_recv + ((size_t)J * a.cap + pos) * a.comb_row_bytes);
      }
    }
    sum_rows(rows, (uint4 *)((char *)a.out + (size_t)t * a.hidden * 2), a.hidden, part, lane);
  }
}

} // namespace

extern "C" void cb_moe_hier_layout(const cb_moe_hier_dev_t *h, cudaStream_t s) {
  hier_layout_kernel<<<h->nnodes, kLayoutThreads, 0, s>>>(*h);
  CB_CUDA_LAUNCH("moe hier_layout_kernel");
}
extern "C" void cb_moe_hier_recv_counts(const cb_moe_hier_dev_t *h, cudaStream_t s) {
  hier_recv_counts_kernel<<<1, 32, 0, s>>>(*h);
  CB_CUDA_LAUNCH("moe hier_recv_counts_kernel");
}
extern "C" void cb_moe_hier_pack(const cb_moe_hier_dev_t *h, cudaStream_t s) {
  hier_pack_kernel<<<h->m.push_blocks, kPushThreads, 0, s>>>(*h);
  CB_CUDA_LAUNCH("moe hier_pack_kernel");
}
extern "C" void cb_moe_hier_forward(const cb_moe_hier_dev_t *h, cudaStream_t s) {
  hier_forward_kernel<<<h->m.push_blocks, kPushThreads, 0, s>>>(*h);
  CB_CUDA_LAUNCH("moe hier_forward_kernel");
}
extern "C" void cb_moe_hier_node_barrier(const cb_moe_hier_dev_t *h, int slot, cudaStream_t s) {
  if (h->K < 2) return;
  hier_barrier_kernel<<<1, 32, 0, s>>>(*h, slot);
  CB_CUDA_LAUNCH("moe hier_barrier_kernel");
}
extern "C" void cb_moe_hier_node_reduce(const cb_moe_hier_dev_t *h, cudaStream_t s) {
  hier_node_reduce_kernel<<<h->m.push_blocks, kPushThreads, 0, s>>>(*h);
  CB_CUDA_LAUNCH("moe hier_node_reduce_kernel");
}
extern "C" void cb_moe_hier_final_reduce(const cb_moe_hier_dev_t *h, cudaStream_t s) {
  hier_final_reduce_kernel<<<h->m.push_blocks, kPushThreads, 0, s>>>(*h);
  CB_CUDA_LAUNCH("moe hier_final_reduce_kernel");
}
