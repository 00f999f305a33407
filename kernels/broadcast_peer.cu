/* One-shot broadcast by pulls, for small and medium messages over NVLink (rooted_oneshot.h).
 *
 * Per block b (the same slice on every rank):
 *   1. start barrier: every rank's block b has started, so the work queued on the root before
 *      this call (its input) is finished and visible;
 *   2. copy my slice of the root's input (base[root] + in_off) into my output: one NVLink read
 *      per element on each non-root rank, a local copy on the root (none in place);
 *   3. end barrier: nobody still reads the root's input, which the root may overwrite next.
 * Traffic: the root's link carries (n-1)·S out, each other rank's S in; nothing is staged. */
#include "allreduce_common.cuh"
#include "rooted_oneshot.h"

namespace {

template <typename T>
__global__ void __launch_bounds__(kArThreads) broadcast_peer_kernel(cb_rooted_launch_t a) {
  constexpr int N = cb_vec<T>::N;
  const int r = a.rank, n = a.nranks, b = blockIdx.x, tid = threadIdx.x;
  const uint32_t e = a.epoch[b] + 1;
  void *pads[CB_MAX_RANKS];
#pragma unroll
  for (int q = 0; q < CB_MAX_RANKS; q++) pads[q] = q < n ? (char *)a.base[q] + a.pad_off : nullptr;
  const T *src = (const T *)((const char *)a.base[a.root] + a.in_off);
  T *out = (T *)a.out;

  size_t lo, hi;
  cb_block_slice(a.count, N, b, gridDim.x, &lo, &hi);
  const size_t v_lo = lo / N, v_hi = hi / N;

  cb_block_barrier(pads, r, n, 0, e, a.timeout_ns, a.ctl);
  if ((const void *)src != (const void *)out) {
    for (size_t v = v_lo + tid; v < v_hi; v += blockDim.x) ((uint4 *)out)[v] = cb_ld_cg_v4((const uint4 *)src + v);
    for (size_t i = v_hi * N + tid; i < hi; i += blockDim.x) out[i] = cb_ld_cg_scalar<T>(src, i);
  }
  cb_block_barrier(pads, r, n, 1, e, a.timeout_ns, a.ctl);

  if (tid == 0) a.epoch[b] = e;
}

template <typename T>
void launch(const cb_rooted_launch_t *a, cudaStream_t s) {
  broadcast_peer_kernel<T><<<a->blocks, a->threads, 0, s>>>(*a);
  CB_CUDA_LAUNCH("broadcast_peer_kernel");
}

} // namespace

extern "C" void cb_rooted_peer_grid(size_t count, int dtype, const cb_grid_limits_t *g, int *blocks, int *threads) {
  size_t nvec = count * cb_dtype_size(dtype) / 16;
  size_t b = (nvec + kArThreads - 1) / kArThreads, cap = (size_t)cb_grid_cap(g, kArThreads);
  if (b < 1) b = 1;
  if (b > cap) b = cap;
  *blocks = (int)b;
  *threads = kArThreads;
}

extern "C" void cb_broadcast_peer_launch(const cb_rooted_launch_t *a, cudaStream_t s) {
  CB_DISPATCH_DTYPE("broadcast", a->dtype, launch, a, s);
}
