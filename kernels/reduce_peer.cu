/* One-shot reduce by pulls, for small and medium messages over NVLink (rooted_oneshot.h).
 *
 * Per block b (the same slice on every rank):
 *   1. start barrier: every rank's input of this call is written and visible;
 *   2. on the root only: load my slice from every rank's input (n-1 NVLink reads, one local),
 *      reduce in rank order with fp32 accumulation (reduce.cuh, the all-reduce kernels' order, so
 *      the result has the same bits as theirs) and store it into my output; each element is read
 *      by the thread that writes it, so in place is safe;
 *   3. end barrier: the root no longer reads any input, which its owner may overwrite next.
 * Traffic: the root's link carries (n-1)·S in; nothing is staged. */
#include "allreduce_common.cuh"
#include "rooted_oneshot.h"

namespace {

template <typename T>
__global__ void __launch_bounds__(kArThreads) reduce_peer_kernel(cb_rooted_launch_t a) {
  constexpr int N = cb_vec<T>::N;
  const int r = a.rank, n = a.nranks, b = blockIdx.x;
  const uint32_t e = a.epoch[b] + 1;
  void *pads[CB_MAX_RANKS];
  const void *src[CB_MAX_RANKS];
#pragma unroll
  for (int q = 0; q < CB_MAX_RANKS; q++) {
    pads[q] = q < n ? (char *)a.base[q] + a.pad_off : nullptr;
    src[q] = q == r ? a.in : q < n ? (const void *)((const char *)a.base[q] + a.in_off) : nullptr;
  }

  size_t lo, hi;
  cb_block_slice(a.count, N, b, gridDim.x, &lo, &hi);

  cb_block_barrier(pads, r, n, 0, e, a.timeout_ns, a.ctl);
  if (r == a.root) {
    T *outs[1] = {(T *)a.out};
    cb_reduce_to<T>(src, n, outs, 1, lo, hi, a.op);
  }
  cb_block_barrier(pads, r, n, 1, e, a.timeout_ns, a.ctl);

  if (threadIdx.x == 0) a.epoch[b] = e;
}

template <typename T>
void launch(const cb_rooted_launch_t *a, cudaStream_t s) {
  reduce_peer_kernel<T><<<a->blocks, a->threads, 0, s>>>(*a);
  CB_CUDA_LAUNCH("reduce_peer_kernel");
}

} // namespace

extern "C" void cb_reduce_peer_launch(const cb_rooted_launch_t *a, cudaStream_t s) {
  CB_DISPATCH_DTYPE("reduce", a->dtype, launch, a, s);
}
