/* One-shot all-reduce (push): for latency-bound sizes.
 *
 * Each rank writes its input straight into every peer's staging area (posted NVLink stores, no
 * round trip), raises one flag per peer, waits for the peers' flags, and reduces the n staged
 * copies locally in rank order. One barrier per call, one network hop of latency.
 *
 * Staging is double-buffered by the parity of the call's epoch: a rank can only start call k+1
 * after every peer has arrived at call k's barrier, and a peer arrives there only after it has
 * finished call k-1's reads, so writing staging[(k+1) % 2] never races a reader. Inputs and
 * outputs can be any device buffers, in place or not: peers never touch them.
 *
 * Scratch per rank: staging[2][n][S], S = the message rounded up to 256 bytes. Traffic per
 * rank: (n-1)·S out and (n-1)·S in over NVLink, n·S read locally. */
#include "allreduce_common.cuh"

namespace {

template <typename T>
__global__ void __launch_bounds__(kArThreads) oneshot_kernel(cb_ar_launch_t a) {
  constexpr int N = cb_vec<T>::N;
  const int r = a.rank, n = a.nranks, b = blockIdx.x, tid = threadIdx.x;
  const uint32_t e = a.epoch[b] + 1;
  const size_t S = CB_ALIGN_UP(a.count * sizeof(T), (size_t)256);
  const size_t stage = a.scratch_off + (size_t)(e & 1) * (size_t)n * S; /* staging[parity] */
  void *pads[CB_MAX_RANKS];
#pragma unroll
  for (int q = 0; q < CB_MAX_RANKS; q++) pads[q] = q < n ? (char *)a.base[q] + a.pad_off : nullptr;

  size_t lo, hi;
  cb_block_slice(a.count, N, b, gridDim.x, &lo, &hi);
  const size_t v_lo = lo / N, v_hi = hi / N; /* whole vectors; [v_hi*N, hi) is the tail */

  /* 1. push my slice into staging[parity][r] of every peer */
  for (size_t v = v_lo + tid; v < v_hi; v += blockDim.x) {
    uint4 x = ((const uint4 *)a.in)[v];
    for (int q = 0; q < n; q++)
      if (q != r) ((uint4 *)((char *)a.base[q] + stage + (size_t)r * S))[v] = x;
  }
  for (size_t i = v_hi * N + tid; i < hi; i += blockDim.x) {
    T x = ((const T *)a.in)[i];
    for (int q = 0; q < n; q++)
      if (q != r) ((T *)((char *)a.base[q] + stage + (size_t)r * S))[i] = x;
  }

  /* 2. every peer's block b has pushed the same slice to me */
  cb_block_barrier(pads, r, n, 0, e, a.timeout_ns, a.ctl);

  /* 3. reduce the n copies in rank order: mine from my input, the others from my staging */
  const void *src[CB_MAX_RANKS];
#pragma unroll
  for (int q = 0; q < CB_MAX_RANKS; q++)
    src[q] = q == r ? a.in : (const void *)((const char *)a.base[r] + stage + (size_t)q * S);
  for (size_t v = v_lo + tid; v < v_hi; v += blockDim.x) ((uint4 *)a.out)[v] = cb_reduce_vec<T>(src, n, v, a.op);
  for (size_t i = v_hi * N + tid; i < hi; i += blockDim.x) ((T *)a.out)[i] = cb_reduce_scalar<T>(src, n, i, a.op);

  if (tid == 0) a.epoch[b] = e;
}

template <typename T>
void launch(const cb_ar_launch_t *a, cudaStream_t s) {
  oneshot_kernel<T><<<a->blocks, a->threads, 0, s>>>(*a);
  CB_CUDA_LAUNCH("oneshot_kernel");
}

} // namespace

extern "C" size_t cb_ar_oneshot_scratch(size_t count, int dtype, int nranks) {
  return 2 * (size_t)nranks * CB_ALIGN_UP(count * cb_dtype_size(dtype), (size_t)256);
}

extern "C" void cb_ar_oneshot_grid(size_t count, int dtype, int nranks, const cb_grid_limits_t *g, int *blocks,
                                   int *threads) {
  size_t nvec = count * cb_dtype_size(dtype) / 16;
  /* one vector per thread per block up to the cap: small messages use few blocks, so few
   * flags cross the link */
  size_t b = (nvec + kArThreads - 1) / kArThreads, cap = (size_t)cb_grid_cap(g, kArThreads);
  if (b < 1) b = 1;
  if (b > cap) b = cap;
  *blocks = (int)b;
  *threads = kArThreads;
}

extern "C" void cb_ar_oneshot_launch(const cb_ar_launch_t *a, cudaStream_t s) {
  CB_DISPATCH_DTYPE("all-reduce", a->dtype, launch, a, s);
}
