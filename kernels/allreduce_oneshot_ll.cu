/* One-shot all-reduce on the LL ("low latency") protocol: for the smallest messages.
 *
 * Each 4-byte word of the input travels with the call's epoch in one 8-byte store
 * {data, epoch} into every peer's LL buffer. An 8-byte store arrives whole, so the receiver
 * polls the word itself until its flag equals the epoch: no separate flag, no system fence, no
 * barrier: one NVLink hop of latency. The price is twice the bytes on the wire, so it serves
 * small messages only.
 *
 * LL buffers are double-buffered by epoch parity. A rank can only start call k+1 after it has
 * received every peer's call-k data, which each peer sent after finishing call k-1, so
 * buffer (k+1) % 2 (last read in call k-1) is free. Stale words carry epoch k-1 or older and
 * never match. Inputs are read in whole 16-byte vectors: buffers must be padded to 16 bytes
 * (collbench's are padded to 256); outputs are written exactly.
 *
 * Scratch per rank: LL[2][n][V] x 32 bytes, V = 16-byte vectors in the message. */
#include "allreduce_common.cuh"
#include "ll.cuh"

namespace {

template <typename T>
__global__ void __launch_bounds__(kArThreads) oneshot_ll_kernel(cb_ar_launch_t a) {
  constexpr int N = cb_vec<T>::N;
  const int r = a.rank, n = a.nranks, b = blockIdx.x, tid = threadIdx.x;
  const uint32_t e = a.epoch[b] + 1;
  const size_t V = (a.count + N - 1) / N; /* vectors, the last one possibly partial */
  const size_t par = e & 1;
  /* LL slot of (parity, source, vector): 32 bytes = 4 x {word, epoch} */
  auto slot = [&](int owner, int src, size_t v) -> char * {
    return (char *)a.base[owner] + a.scratch_off + (((par * n + src) * V) + v) * 32;
  };
  size_t per = (V + gridDim.x - 1) / gridDim.x, v0 = per * b, v1 = v0 + per;
  if (v1 > V) v1 = V;

  for (size_t v = v0 + tid; v < v1; v += blockDim.x) {
    uint4 x = ((const uint4 *)a.in)[v];
    for (int q = 0; q < n; q++) {
      if (q == r) continue;
      char *d = slot(q, r, v);
      cb_ll_send(d, x.x, e);
      cb_ll_send(d + 8, x.y, e);
      cb_ll_send(d + 16, x.z, e);
      cb_ll_send(d + 24, x.w, e);
    }
  }
  for (size_t v = v0 + tid; v < v1; v += blockDim.x) {
    float acc[N], f[N];
    for (int q = 0; q < n; q++) {
      uint4 raw;
      if (q == r) {
        raw = ((const uint4 *)a.in)[v];
      } else {
        const char *s = slot(r, q, v);
        raw.x = cb_ll_recv(s, e, a.timeout_ns, r, q);
        raw.y = cb_ll_recv(s + 8, e, a.timeout_ns, r, q);
        raw.z = cb_ll_recv(s + 16, e, a.timeout_ns, r, q);
        raw.w = cb_ll_recv(s + 24, e, a.timeout_ns, r, q);
      }
      cb_vec_to_float<T>(raw, q == 0 ? acc : f);
      if (q > 0) {
#pragma unroll
        for (int i = 0; i < N; i++) acc[i] = cb_combine(a.op, acc[i], f[i]);
      }
    }
    if (a.op == 3) {
#pragma unroll
      for (int i = 0; i < N; i++) acc[i] = acc[i] / (float)n;
    }
    uint4 out = cb_vec_from_float<T>(acc);
    if ((v + 1) * N <= a.count) {
      ((uint4 *)a.out)[v] = out;
    } else {
      cb_vec<T> o;
      o.raw = out;
      for (size_t i = v * N; i < a.count; i++) ((T *)a.out)[i] = o.e[i - v * N];
    }
  }
  if (tid == 0) a.epoch[b] = e;
}

template <typename T>
void launch(const cb_ar_launch_t *a, cudaStream_t s) {
  oneshot_ll_kernel<T><<<a->blocks, a->threads, 0, s>>>(*a);
  CB_CUDA_LAUNCH("oneshot_ll_kernel");
}

} // namespace

extern "C" size_t cb_ar_oneshot_ll_scratch(size_t count, int dtype, int nranks) {
  size_t N = 16 / cb_dtype_bytes(dtype);
  return 2 * (size_t)nranks * ((count + N - 1) / N) * 32;
}

extern "C" void cb_ar_oneshot_ll_grid(size_t count, int dtype, int nranks, int max_blocks, int *blocks, int *threads) {
  size_t N = 16 / cb_dtype_bytes(dtype), V = (count + N - 1) / N;
  /* one vector per thread, in blocks of 128: every poll of a peer's word is in flight at once
   * and even small messages spread over many SMs (64 KiB: 32 blocks rather than 8) */
  const int threads_per_block = 128;
  size_t b = (V + threads_per_block - 1) / threads_per_block;
  if (b < 1) b = 1;
  if (b > (size_t)max_blocks) b = (size_t)max_blocks;
  *blocks = (int)b;
  *threads = threads_per_block;
}

extern "C" void cb_ar_oneshot_ll_launch(const cb_ar_launch_t *a, cudaStream_t s) { CB_DISPATCH_DTYPE(a->dtype, launch, a, s); }
