/* Two-shot all-reduce (push): reduce-scatter then all-gather, for bandwidth-bound sizes.
 *
 * The message is cut into n shards of L elements (L a multiple of the vector width); rank q
 * owns shard q. Per block b (same slicing on every rank):
 *   1. reduce-scatter push: for every peer q, write my slice b of shard q into q's scratch
 *      slot [my rank] (NVLink stores);
 *   2. barrier: peers' block b pushed slice b of my shard into my scratch;
 *   3. reduce my shard's slice b in rank order (my input + n-1 scratch slots, all local reads),
 *      write it to my output and push it into every peer's output (NVLink stores);
 *   4. barrier: peers' block b has pushed their shards' slice b into my output.
 * Traffic per rank: 2·(n-1)/n·S each way over NVLink — the bus-bandwidth optimum.
 *
 * Hazards: my push of call k+1 into q's scratch comes after barrier 4 of call k, which q passes
 * only after reading its scratch (step 3); peers write my output only between my barriers 2 and
 * 4 of a call. So inputs may be any buffer and in place works (a peer writes only my shard
 * slots that I have already pushed). The output must be peer-mapped (it is: data region).
 * Scratch per rank: n slots of L elements (≈ S).
 *
 * The two halves also run alone, for the hierarchical all-reduce (collectives/allreduce_hier.c):
 *   reduce-scatter (steps 1-3, the reduced shard stored only into my own output; barrier slot 0)
 *   all-gather     (push my output's shard into every peer's output; barrier slot 1)
 * Each half then counts its own epochs (the caller passes one epoch array per half) and the
 * caller closes the hazards the dropped barriers closed (allreduce_hier.c says how). */
#include "allreduce_common.cuh"
#include "copy.cuh"

namespace {

enum { kReduceScatter = 1, kAllGather = 2, kAllReduce = kReduceScatter | kAllGather };

/* Elements [lo, min(hi, len)) of a shard: dst[i] = src[i], 16-byte vectors then the tail. */
template <typename T>
__device__ __forceinline__ void push_slice(T *dst, const T *src, size_t lo, size_t hi, size_t len) {
  constexpr int N = cb_vec<T>::N;
  size_t h = hi < len ? hi : len, vh = h / N;
  cb_copy_vectors(dst, src, lo / N + threadIdx.x, vh, blockDim.x);
  for (size_t i = (lo > vh * N ? lo : vh * N) + threadIdx.x; i < h; i += blockDim.x) dst[i] = src[i];
}

template <typename T, int kStages>
__global__ void __launch_bounds__(kArThreads) twoshot_kernel(cb_ar_launch_t a) {
  constexpr int N = cb_vec<T>::N;
  const int r = a.rank, n = a.nranks, b = blockIdx.x, tid = threadIdx.x;
  const uint32_t e = a.epoch[b] + 1;
  const size_t L = cb_ar_shard_elems(a.count, sizeof(T), n);
  void *pads[CB_MAX_RANKS];
#pragma unroll
  for (int q = 0; q < CB_MAX_RANKS; q++) pads[q] = q < n ? (char *)a.base[q] + a.pad_off : nullptr;

  size_t lo, hi; /* my block's slice of a shard, relative to the shard start */
  cb_block_slice(L, N, b, gridDim.x, &lo, &hi);

  if constexpr (kStages == kAllGather) {
    /* my output's shard into every peer's output */
    size_t start = (size_t)r * L, len = cb_piece_len(a.count, L, (size_t)r);
    for (int q = 0; q < n; q++)
      if (q != r) push_slice<T>((T *)((char *)a.base[q] + a.out_off) + start, (const T *)a.out + start, lo, hi, len);
  } else {
    /* 1. reduce-scatter push */
    for (int q = 0; q < n; q++) {
      if (q == r) continue;
      T *dst = (T *)((char *)a.base[q] + a.scratch_off) + (size_t)r * L;
      push_slice<T>(dst, (const T *)a.in + (size_t)q * L, lo, hi, cb_piece_len(a.count, L, (size_t)q));
    }

    cb_block_barrier(pads, r, n, 0, e, a.timeout_ns, a.ctl);

    /* 3. reduce my shard slice and push it everywhere (reduce-scatter alone: into my output) */
    size_t start = (size_t)r * L;
    size_t h = hi < cb_piece_len(a.count, L, (size_t)r) ? hi : cb_piece_len(a.count, L, (size_t)r);
    const void *src[CB_MAX_RANKS];
    T *outs[CB_MAX_RANKS];
#pragma unroll
    for (int q = 0; q < CB_MAX_RANKS; q++) {
      src[q] = q == r ? (const void *)((const T *)a.in + start)
                      : (const void *)((const T *)((const char *)a.base[r] + a.scratch_off) + (size_t)q * L);
      outs[q] = q < n ? (T *)((char *)a.base[q] + a.out_off) + start : nullptr;
    }
    if constexpr (kStages == kReduceScatter) {
      outs[0] = outs[r];
      cb_reduce_to<T>(src, n, outs, 1, lo, h, a.op);
    } else {
      cb_reduce_to_all<T>(src, outs, n, lo, h, a.op);
    }
  }

  if constexpr ((kStages & kAllGather) != 0) cb_block_barrier(pads, r, n, 1, e, a.timeout_ns, a.ctl);
  if (tid == 0) a.epoch[b] = e;
}

template <typename T>
void launch(const cb_ar_launch_t *a, cudaStream_t s) {
  twoshot_kernel<T, kAllReduce><<<a->blocks, a->threads, 0, s>>>(*a);
  CB_CUDA_LAUNCH("twoshot_kernel");
}

template <typename T>
void launch_rs(const cb_ar_launch_t *a, cudaStream_t s) {
  twoshot_kernel<T, kReduceScatter><<<a->blocks, a->threads, 0, s>>>(*a);
  CB_CUDA_LAUNCH("twoshot_kernel (reduce-scatter)");
}

template <typename T>
void launch_ag(const cb_ar_launch_t *a, cudaStream_t s) {
  twoshot_kernel<T, kAllGather><<<a->blocks, a->threads, 0, s>>>(*a);
  CB_CUDA_LAUNCH("twoshot_kernel (all-gather)");
}

} // namespace

extern "C" size_t cb_ar_twoshot_scratch(size_t count, int dtype, int nranks) {
  return (size_t)nranks * cb_ar_shard_elems(count, cb_dtype_size(dtype), nranks) * cb_dtype_size(dtype);
}

extern "C" void cb_ar_twoshot_grid(size_t count, int dtype, int nranks, const cb_grid_limits_t *g, int *blocks,
                                   int *threads) {
  size_t N = 16 / cb_dtype_size(dtype), L = cb_ar_shard_elems(count, cb_dtype_size(dtype), nranks);
  size_t b = (L / N + kArThreads - 1) / kArThreads;
  /* The cap is 256 unless CB_MAX_BLOCKS says otherwise; up to 64 MiB per rank at most one
   * block per SM (132 on H200). Measured on 2 x H200 (docs/decisions/allreduce.md): 2 GiB went from 340
   * to 363 GB/s busbw with 256 blocks, 16 MiB got slower; 264 blocks (exactly two per SM)
   * stayed at 340. */
  size_t cap = (size_t)cb_grid_cap(g, kArThreads);
  if (count * cb_dtype_size(dtype) <= (64ull << 20) && cap > (size_t)g->sms) cap = (size_t)g->sms;
  if (b < 1) b = 1;
  if (b > cap) b = cap;
  *blocks = (int)b;
  *threads = kArThreads;
}

extern "C" void cb_ar_twoshot_launch(const cb_ar_launch_t *a, cudaStream_t s) {
  CB_DISPATCH_DTYPE("all-reduce", a->dtype, launch, a, s);
}

extern "C" void cb_ar_twoshot_rs_launch(const cb_ar_launch_t *a, cudaStream_t s) {
  CB_DISPATCH_DTYPE("all-reduce (reduce-scatter half)", a->dtype, launch_rs, a, s);
}

extern "C" void cb_ar_twoshot_ag_launch(const cb_ar_launch_t *a, cudaStream_t s) {
  CB_DISPATCH_DTYPE("all-reduce (all-gather half)", a->dtype, launch_ag, a, s);
}
