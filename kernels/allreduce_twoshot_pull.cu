/* Two-shot all-reduce by pulls: the large-message form that needs no scratch.
 *
 * The message is cut into n shards of L elements (as in twoshot); rank r owns shard r. Per
 * block b (same slicing on every rank):
 *   1. start barrier: every peer's block b has started, so the work queued before this call on
 *      each peer (its input, the last reader of its output) is finished;
 *   2. for my shard's slice b: load it from every rank's input (n-1 NVLink reads, one local),
 *      reduce in rank order, store the result into every rank's output (n-1 NVLink writes);
 *   3. end barrier: every peer's block b is done reading my input and writing my output.
 * Traffic per rank: 2·(n-1)/n·S each way over NVLink, as twoshot, but reads and writes share
 * one pass with no barrier between reduce-scatter and all-gather, and nothing is staged:
 * scratch is 0 bytes whatever the size (twoshot stages ≈ S per rank).
 *
 * Hazards: only rank q touches shard q, on every rank, and each element is read (from every
 * input) by the same thread that then writes it (into every output), so in place is safe.
 * Inputs and outputs must be peer-mapped at the same offsets on every rank (in_off, out_off:
 * collbench's data region). */
#include "allreduce_common.cuh"

namespace {

template <typename T>
__global__ void __launch_bounds__(kArThreads) twoshot_pull_kernel(cb_ar_launch_t a) {
  constexpr int N = cb_vec<T>::N;
  const int r = a.rank, n = a.nranks, b = blockIdx.x, tid = threadIdx.x;
  const uint32_t e = a.epoch[b] + 1;
  const size_t L = cb_ar_shard_elems(a.count, sizeof(T), n);
  const size_t start = (size_t)r * L, len = cb_piece_len(a.count, L, (size_t)r);

  void *pads[CB_MAX_RANKS];
  const void *src[CB_MAX_RANKS];
  T *outs[CB_MAX_RANKS];
#pragma unroll
  for (int q = 0; q < CB_MAX_RANKS; q++) {
    pads[q] = q < n ? (char *)a.base[q] + a.pad_off : nullptr;
    src[q] = q < n ? (const void *)((const T *)((const char *)a.base[q] + a.in_off) + start) : nullptr;
    outs[q] = q < n ? (T *)((char *)a.base[q] + a.out_off) + start : nullptr;
  }

  size_t lo, hi;
  cb_block_slice(L, N, b, gridDim.x, &lo, &hi);
  if (hi > len) hi = len;

  cb_block_barrier(pads, r, n, 0, e, a.timeout_ns, a.ctl);

  /* most of the 2n loads in flight per thread are remote */
  cb_reduce_to_all<T>(src, outs, n, lo, hi, a.op);

  cb_block_barrier(pads, r, n, 1, e, a.timeout_ns, a.ctl);
  if (tid == 0) a.epoch[b] = e;
}

template <typename T>
void launch(const cb_ar_launch_t *a, cudaStream_t s) {
  twoshot_pull_kernel<T><<<a->blocks, a->threads, 0, s>>>(*a);
  CB_CUDA_LAUNCH("twoshot_pull_kernel");
}

} // namespace

extern "C" void cb_ar_twoshot_pull_launch(const cb_ar_launch_t *a, cudaStream_t s) {
  CB_DISPATCH_DTYPE("all-reduce", a->dtype, launch, a, s);
}
