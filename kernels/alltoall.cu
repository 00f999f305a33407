/* Custom all-to-all over peer memory: every rank pushes block q of its send buffer to rank q.
 *
 * Small messages, LL protocol (ll.cuh): each 4-byte word goes with the call's epoch in one
 * 8-byte store into the receiver's staging (double-buffered by epoch parity); the receiver
 * polls the words and copies them into its receive buffer. One NVLink hop, no barrier.
 *
 * Large messages, direct pushes: a start barrier (the receiver's previous call, and whatever
 * its stream did with the receive buffer since, is finished), every block copies its slice of
 * each peer's block straight into that peer's receive buffer (NVLink stores, 4 x 16-byte loads
 * in flight per thread), an end barrier (everything has landed). Bytes on the wire: (n-1)/n of
 * the buffer each way, the bus-bandwidth optimum; no staging copy.
 *
 * Across nodes the push kernel also sorts the blocks bound for other nodes by rail: block
 * (node j, local rank q) goes into local rank q's staging (alltoall.h), so the NCCL phase of
 * alltoall hier (collectives/alltoall_hier.c) sends one aggregated message per node pair and
 * rail, and what arrives is already at its final rank. */
#include "alltoall.h"
#include "copy.cuh"
#include "error_gpu.h"
#include "ll.cuh"

namespace {

constexpr int kA2aThreads = 512;

__global__ void __launch_bounds__(kA2aThreads) a2a_ll_kernel(cb_a2a_launch_t a) {
  const int r = a.rank, n = a.nranks, b = blockIdx.x, tid = threadIdx.x;
  const uint32_t e = a.epoch[b] + 1;
  const size_t B = a.block_bytes, W = (B + 3) / 4, par = e & 1;
  size_t per = (W + gridDim.x - 1) / gridDim.x, w0 = per * b, w1 = w0 + per;
  if (w1 > W) w1 = W;
  const char *send = (const char *)a.send;
  char *recv = (char *)a.base[r] + a.recv_off;
  /* slot of (parity, source, word) in owner's staging: 8 bytes */
  auto slot = [&](int owner, int src, size_t w) -> char * {
    return (char *)a.base[owner] + a.ll_off + (((par * n + src) * W) + w) * 8;
  };
  for (int q = 0; q < n; q++)
    for (size_t w = w0 + tid; w < w1; w += blockDim.x) {
      uint32_t x = cb_load_word(send + (size_t)q * B, w, B);
      if (q == r) cb_store_word(recv + (size_t)r * B, w, B, x);
      else cb_ll_send(slot(q, r, w), x, e);
    }
  for (int q = 0; q < n; q++) {
    if (q == r) continue;
    for (size_t w = w0 + tid; w < w1; w += blockDim.x)
      cb_store_word(recv + (size_t)q * B, w, B, cb_ll_recv(slot(r, q, w), e, a.timeout_ns, a.ctl, r, q));
  }
  if (tid == 0) a.epoch[b] = e;
}

__global__ void __launch_bounds__(kA2aThreads) a2a_push_kernel(cb_a2a_launch_t a) {
  const int r = a.rank, n = a.nranks, b = blockIdx.x, tid = threadIdx.x;
  const uint32_t e = a.epoch[b] + 1;
  const size_t B = a.block_bytes;
  void *pads[CB_MAX_RANKS];
#pragma unroll
  for (int q = 0; q < CB_MAX_RANKS; q++) pads[q] = q < n ? (char *)a.base[q] + a.pad_off : nullptr;
  /* slice of each block in 16-byte units; the last block takes the tail */
  size_t nv = (B + 15) / 16, per = (nv + gridDim.x - 1) / gridDim.x;
  size_t lo = per * b * 16, hi = b == (int)gridDim.x - 1 ? B : per * (b + 1) * 16;
  if (lo > B) lo = B;
  if (hi > B) hi = B;

  cb_block_barrier(pads, r, n, 0, e, a.timeout_ns, a.ctl);
  const bool aligned = B % 16 == 0 && ((uintptr_t)a.send & 15) == 0 && a.recv_off % 16 == 0 && a.stage_off % 16 == 0;
  /* where block (node j, local rank q) of my send buffer goes, in q's allocation */
  auto dst_of = [&](int q, int j) -> char * {
    return (char *)a.base[q] +
           (j == a.node ? a.recv_off + ((size_t)a.node * n + r) * B : a.stage_off + ((size_t)j * n + r) * B);
  };
  for (int j = 0; j < a.nnodes; j++) {
    const char *send = (const char *)a.send + (size_t)j * n * B;
    if (aligned) {
      /* Every thread loads the same vector of all n blocks, then stores each to its rank: local
       * and NVLink copies run side by side instead of one after the other (the link would idle
       * during the local copy), two vectors per thread per step for more loads in flight. */
      const size_t v0 = lo / 16, v1 = hi / 16, T = blockDim.x;
      for (size_t v = v0 + tid; v < v1; v += 2 * T) {
        const bool second = v + T < v1;
        uint4 x0[CB_MAX_RANKS], x1[CB_MAX_RANKS];
#pragma unroll
        for (int i = 0; i < CB_MAX_RANKS; i++)
          if (i < n) {
            const uint4 *s4 = (const uint4 *)(send + (size_t)((r + i) % n) * B);
            x0[i] = s4[v];
            if (second) x1[i] = s4[v + T];
          }
#pragma unroll
        for (int i = 0; i < CB_MAX_RANKS; i++)
          if (i < n) {
            uint4 *d4 = (uint4 *)dst_of((r + i) % n, j);
            d4[v] = x0[i];
            if (second) d4[v + T] = x1[i];
          }
      }
    } else {
      for (int i = 0; i < n; i++) {
        const int q = (r + i) % n;
        cb_copy_bytes(dst_of(q, j), send + (size_t)q * B, lo, hi, tid, blockDim.x);
      }
    }
  }
  cb_block_barrier(pads, r, n, 1, e, a.timeout_ns, a.ctl);
  if (tid == 0) a.epoch[b] = e;
}

} // namespace

extern "C" size_t cb_a2a_ll_scratch(size_t block_bytes, int nranks) {
  return 2 * (size_t)nranks * ((block_bytes + 3) / 4) * 8;
}

extern "C" void cb_a2a_grid(size_t block_bytes, int nranks, int ll, const cb_grid_limits_t *g, int *blocks,
                            int *threads) {
  /* LL: one word per thread (every poll in flight at once); push: two 16-byte vectors of every
   * block per thread */
  size_t units = ll ? (block_bytes + 3) / 4 : (block_bytes + 31) / 32;
  size_t b = (units + kA2aThreads - 1) / kA2aThreads;
  /* as the two-shot all-reduce: more than one block per SM only above 64 MiB per rank */
  size_t cap = (size_t)cb_grid_cap(g, kA2aThreads);
  if (block_bytes * (size_t)nranks <= (64ull << 20) && cap > (size_t)g->sms) cap = (size_t)g->sms;
  if (b < 1) b = 1;
  if (b > cap) b = cap;
  *blocks = (int)b;
  *threads = kA2aThreads;
}

extern "C" void cb_a2a_launch(const cb_a2a_launch_t *a, cudaStream_t s) {
  if (a->ll) a2a_ll_kernel<<<a->blocks, a->threads, 0, s>>>(*a);
  else a2a_push_kernel<<<a->blocks, a->threads, 0, s>>>(*a);
  CB_CUDA_LAUNCH(a->ll ? "a2a_ll_kernel" : "a2a_push_kernel");
}
