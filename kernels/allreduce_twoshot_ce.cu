/* Two-shot all-reduce with copy-engine reduce-scatter: the large-message form that hands half
 * the NVLink traffic to the copy engines.
 *
 * The message is cut into n shards of L elements; rank r owns shard r, and every shard is cut
 * into K chunks of C elements. The host side (collectives/allreduce_twoshot_ce.c) queues, on
 * the caller's stream, for each chunk c and each peer q: a copy-engine copy of my chunk c of
 * shard q into q's scratch slot [my rank], then a stream write of 1 into q's ready flag
 * (c, my rank); the write carries a memory fence, so q sees the data before the flag. On a
 * second stream, forked from and joined back into the caller's, this kernel runs at the same
 * time: for each chunk c, every block waits for the ready flags (c, q) of all peers, reduces
 * its slice of chunk c of my shard in rank order (my input + n-1 scratch slots, local reads)
 * and stores the result into every rank's output (NVLink writes from the SMs). Copies of chunk
 * c+1 overlap the reduction and all-gather of chunk c.
 *
 * The flags are written with a constant (captured graphs replay the same value), so the
 * kernel clears them: the last block to finish clears all K·(n-1) of them before it arrives at
 * the end barrier, and no peer can queue the next call's copies before every one of my blocks
 * has arrived there. The end barrier (per block, as in twoshot) also tells me every peer has
 * finished writing my output and reading its scratch, so the next call may overwrite both.
 *
 * Traffic per rank: 2·(n-1)/n·S each way over NVLink, half by copy engines, half by SM stores.
 * Scratch per rank: n slots of L elements (≈ S), as twoshot. */
#include "allreduce_common.cuh"

namespace {

/* The ready flag of (chunk c, source q) in a pad, and the pad word counting finished blocks. */
constexpr int kReadySlot = 2, kDoneSlot = 3;

template <typename T>
__global__ void __launch_bounds__(kArThreads) twoshot_ce_kernel(cb_ar_launch_t a) {
  constexpr int N = cb_vec<T>::N;
  const int r = a.rank, n = a.nranks, b = blockIdx.x, tid = threadIdx.x;
  const uint32_t e = a.epoch[b] + 1;
  const size_t L = cb_ar_shard_elems(a.count, sizeof(T), n);
  const size_t start = (size_t)r * L, len = cb_piece_len(a.count, L, (size_t)r);
  const size_t C = a.chunk;
  const int K = (int)((L + C - 1) / C);
  void *pads[CB_MAX_RANKS];
#pragma unroll
  for (int q = 0; q < CB_MAX_RANKS; q++) pads[q] = q < n ? (char *)a.base[q] + a.pad_off : nullptr;
  T *outs[CB_MAX_RANKS];
#pragma unroll
  for (int q = 0; q < CB_MAX_RANKS; q++) outs[q] = q < n ? (T *)((char *)a.base[q] + a.out_off) + start : nullptr;

  for (int c = 0; c < K; c++) {
    if (tid < n && tid != r) {
      const uint32_t *f = cb_pad_flag(pads[r], kReadySlot, c, tid);
      cb_wait_geq_acquire_sys(f, 1, a.timeout_ns, a.ctl, r, tid, kReadySlot);
    }
    __syncthreads();
    const size_t c0 = (size_t)c * C, clen = cb_piece_len(len, C, (size_t)c);
    size_t lo, hi; /* relative to the chunk */
    cb_block_slice(clen, N, b, gridDim.x, &lo, &hi);
    const void *src[CB_MAX_RANKS];
    T *dst[CB_MAX_RANKS];
#pragma unroll
    for (int q = 0; q < CB_MAX_RANKS; q++) {
      src[q] = q == r ? (const void *)((const T *)a.in + start + c0)
                      : (const void *)((const T *)((const char *)a.base[r] + a.scratch_off) + (size_t)q * L + c0);
      dst[q] = q < n ? outs[q] + c0 : nullptr;
    }
    cb_reduce_to_all<T>(src, dst, n, lo, hi, a.op);
  }

  /* the last block to get here clears the ready flags for the next call */
  __syncthreads();
  if (tid == 0) {
    uint32_t *done = cb_pad_flag(pads[r], kDoneSlot, 0, 0);
    if (atomicAdd(done, 1u) == gridDim.x - 1) {
      for (int c = 0; c < K; c++)
        for (int q = 0; q < n; q++)
          if (q != r) *(volatile uint32_t *)cb_pad_flag(pads[r], kReadySlot, c, q) = 0;
      *(volatile uint32_t *)done = 0;
      __threadfence_system();
    }
  }
  cb_block_barrier(pads, r, n, 1, e, a.timeout_ns, a.ctl);
  if (tid == 0) a.epoch[b] = e;
}

template <typename T>
void launch(const cb_ar_launch_t *a, cudaStream_t s) {
  twoshot_ce_kernel<T><<<a->blocks, a->threads, 0, s>>>(*a);
  CB_CUDA_LAUNCH("twoshot_ce_kernel");
}

} // namespace

extern "C" void cb_ar_twoshot_ce_launch(const cb_ar_launch_t *a, cudaStream_t s) {
  CB_DISPATCH_DTYPE("all-reduce", a->dtype, launch, a, s);
}

extern "C" uint32_t *cb_ar_twoshot_ce_ready_flag(void *pad, int chunk, int src) {
  return cb_pad_flag(pad, kReadySlot, chunk, src);
}
