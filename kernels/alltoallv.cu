/* alltoallv over peer memory: every rank pushes its block for peer q, of any size (a multiple of
 * 16 bytes, alltoallv_counts.h), straight into q's receive buffer at the offset q expects it,
 * as the MoE dispatch pushes each token to its destination rank, with the all-to-all's protocol
 * (kernels/alltoall.cu): a start barrier (the receiver's previous call, and whatever its stream
 * did with the receive buffer since, is finished), the copies, an end barrier (everything has
 * landed). Grid block b copies slice b of every peer's block, peers in the order r+1, r+2, ...
 * so the ranks do not all write to the same peer at once; each slice is whole 16-byte vectors
 * with four loads in flight per thread (copy.cuh). Blocks with nothing to copy still take part in
 * both barriers: the barrier is per block number across the ranks. */
#include "alltoall.h"
#include "alltoallv.h"
#include "copy.cuh"
#include "error_gpu.h"
#include "signal.cuh"

namespace {

constexpr int kA2avThreads = 512; /* what cb_a2a_grid gives the push (kernels/alltoall.cu) */

__global__ void __launch_bounds__(kA2avThreads) a2av_push_kernel(cb_a2av_launch_t a) {
  const int r = a.rank, n = a.nranks, b = blockIdx.x, tid = threadIdx.x;
  const uint32_t e = a.epoch[b] + 1;
  void *pads[CB_MAX_RANKS];
#pragma unroll
  for (int q = 0; q < CB_MAX_RANKS; q++) pads[q] = q < n ? (char *)a.base[q] + a.pad_off : nullptr;

  cb_block_barrier(pads, r, n, 0, e, a.timeout_ns, a.ctl);
  for (int i = 0; i < n; i++) {
    const int q = (r + 1 + i) % n; /* myself last */
    const size_t B = a.bytes[q];
    if (B == 0) continue;
    /* slice b of this block, in 16-byte vectors (B is a multiple of 16) */
    const size_t nv = B / 16, per = (nv + gridDim.x - 1) / gridDim.x;
    size_t v0 = per * b, v1 = v0 + per;
    if (v0 > nv) v0 = nv;
    if (v1 > nv) v1 = nv;
    const char *src = (const char *)a.send + a.send_off[q] + v0 * 16;
    char *dst = (char *)a.base[q] + a.recv_off + a.dst_off[q] + v0 * 16;
    cb_copy_vectors(dst, src, tid, v1 - v0, blockDim.x);
  }
  cb_block_barrier(pads, r, n, 1, e, a.timeout_ns, a.ctl);
  if (tid == 0) a.epoch[b] = e;
}

} // namespace

extern "C" void cb_a2av_grid(size_t max_bytes, int nranks, const cb_grid_limits_t *g, int *blocks, int *threads) {
  /* the all-to-all push's grid for blocks of the largest size (alltoall.h): two 16-byte vectors
   * of every block per thread, at most one block per SM up to 64 MiB per rank */
  cb_a2a_grid(max_bytes, nranks, 0, g, blocks, threads);
}

extern "C" void cb_a2av_launch(const cb_a2av_launch_t *a, cudaStream_t s) {
  if (a->threads > kA2avThreads)
    CB_DIE(CB_EXIT_RUNTIME, "a2av_push_kernel: %d threads, launch bounds %d", a->threads, kA2avThreads);
  a2av_push_kernel<<<a->blocks, a->threads, 0, s>>>(*a);
  CB_CUDA_LAUNCH("a2av_push_kernel");
}
