/* One-shot all-reduce on the LL ("low latency") protocol: for the smallest messages.
 *
 * Each pair of 4-byte input words travels with the call's epoch in one 16-byte line
 * {data0, epoch, data1, epoch} into every peer's LL buffer (ll.cuh); a thread's 16-byte
 * input vector makes two lines, laid out so each warp store is one contiguous run. Each 8-byte
 * half of a line arrives whole, so the receiver polls the line itself until both epochs match:
 * no separate flag, no system fence, no barrier: one NVLink hop of latency. The price is twice
 * the bytes on the wire, so it serves small messages only.
 *
 * LL buffers are double-buffered by epoch parity. A rank can only start call k+1 after it has
 * received every peer's call-k data, which each peer sent after finishing call k-1, so
 * buffer (k+1) % 2 (last read in call k-1) is free. Stale words carry epoch k-1 or older and
 * never match. Inputs are read in whole 16-byte vectors: buffers must be padded to 16 bytes
 * (collbench's are padded to 256); outputs are written exactly.
 *
 * Scratch per rank: LL[2][n][2V] x 16 bytes, V = 16-byte vectors in the message. */
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
  /* LL line j (0, 1) of (parity, source, vector v): line j*V + v of the (parity, source)
   * region of 2V 16-byte lines, so a warp's j-th stores are one contiguous run */
  auto line = [&](int owner, int src, int j, size_t v) -> char * {
    return (char *)a.base[owner] + a.scratch_off + ((par * n + src) * 2 * V + (size_t)j * V + v) * 16;
  };
  size_t per = (V + gridDim.x - 1) / gridDim.x, v0 = per * b, v1 = v0 + per;
  if (v1 > V) v1 = V;

  for (size_t v = v0 + tid; v < v1; v += blockDim.x) {
    uint4 x = ((const uint4 *)a.in)[v];
    for (int q = 0; q < n; q++) {
      if (q == r) continue;
      cb_ll_send_line(line(q, r, 0, v), x.x, x.y, e);
      cb_ll_send_line(line(q, r, 1, v), x.z, x.w, e);
    }
  }
  for (size_t v = v0 + tid; v < v1; v += blockDim.x) {
    cb_acc_t<T> acc[N], f[N];
    for (int q = 0; q < n; q++) {
      uint4 raw;
      if (q == r) {
        raw = ((const uint4 *)a.in)[v];
      } else {
        uint2 lo = cb_ll_recv_line(line(r, q, 0, v), e, a.timeout_ns, a.ctl, r, q);
        uint2 hi = cb_ll_recv_line(line(r, q, 1, v), e, a.timeout_ns, a.ctl, r, q);
        raw = make_uint4(lo.x, lo.y, hi.x, hi.y);
      }
      cb_vec_to_acc<T>(raw, q == 0 ? acc : f);
      if (q > 0) {
#pragma unroll
        for (int i = 0; i < N; i++) acc[i] = cb_combine(a.op, acc[i], f[i]);
      }
    }
#pragma unroll
    for (int i = 0; i < N; i++) acc[i] = cb_finish_op(a.op, acc[i], n);
    uint4 out = cb_vec_from_acc<T>(acc);
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
  size_t N = 16 / cb_dtype_size(dtype);
  return 2 * (size_t)nranks * ((count + N - 1) / N) * 32;
}

extern "C" void cb_ar_oneshot_ll_grid(size_t count, int dtype, int nranks, const cb_grid_limits_t *g, int *blocks,
                                      int *threads) {
  size_t N = 16 / cb_dtype_size(dtype), V = (count + N - 1) / N;
  /* one vector per thread, in blocks of 128: every poll of a peer's word is in flight at once
   * and even small messages spread over many SMs (64 KiB: 32 blocks rather than 8) */
  const int threads_per_block = 128;
  size_t b = (V + threads_per_block - 1) / threads_per_block, cap = (size_t)cb_grid_cap(g, threads_per_block);
  if (b < 1) b = 1;
  if (b > cap) b = cap;
  *blocks = (int)b;
  *threads = threads_per_block;
}

extern "C" void cb_ar_oneshot_ll_launch(const cb_ar_launch_t *a, cudaStream_t s) {
  CB_DISPATCH_DTYPE("all-reduce", a->dtype, launch, a, s);
}
