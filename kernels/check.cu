/* Correctness kernels: pattern fill and layout-aware verification (check.h).
 *
 * Verification recomputes every expected value on the device from the pattern's seed, so a
 * check costs one read of the output and no host reference (8 GiB outputs check in
 * milliseconds). Counting is per thread, then one atomicAdd per thread. */
#include <math.h>

#include "check.h"
#include "dtype.cuh"
#include "error_gpu.h"
#include "grid.h"
#include "pattern.cuh"

namespace {

constexpr int kThreads = 256;

int grid_for(size_t n) { return cb_grid_blocks(n, kThreads, 4096); }

template <typename T>
__global__ void __launch_bounds__(kThreads)
    fill_kernel(T *buf, size_t n, uint64_t seed, int rank, int nranks, int iter, uint64_t offset, int dtype) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    buf[i] = cb_scalar<T>::from_float(cb_pattern_value(seed, rank, iter, offset + i, dtype, nranks));
}

__host__ __device__ double expected_value(cb_layout_t layout, int dtype, int op, size_t i, size_t count, int rank,
                                          int nranks, int root, uint64_t seed, int iter) {
  switch (layout) {
  case CB_LAYOUT_BROADCAST: return cb_pattern_value(seed, root, iter, i, dtype, nranks);
  case CB_LAYOUT_SCATTER: return cb_pattern_value(seed, root, iter, (uint64_t)rank * count + i, dtype, nranks);
  case CB_LAYOUT_GATHER: /* the root's output is an all-gather's */
  case CB_LAYOUT_ALLGATHER: return cb_pattern_value(seed, (int)(i / count), iter, i % count, dtype, nranks);
  case CB_LAYOUT_ALLTOALL:
    return cb_pattern_value(seed, (int)(i / count), iter, (uint64_t)rank * count + i % count, dtype, nranks);
  case CB_LAYOUT_SENDRECV: return cb_pattern_value(seed, (rank - 1 + nranks) % nranks, iter, i, dtype, nranks);
  default: {
    uint64_t idx = layout == CB_LAYOUT_REDUCESCATTER ? (uint64_t)rank * count + i : i;
    double acc = cb_pattern_value(seed, 0, iter, idx, dtype, nranks);
    for (int r = 1; r < nranks; r++) {
      double v = cb_pattern_value(seed, r, iter, idx, dtype, nranks);
      if (op == CB_MAX) acc = v > acc ? v : acc;
      else if (op == CB_MIN) acc = v < acc ? v : acc;
      else acc += v;
    }
    return cb_redop_is_avg(op) ? acc / nranks : acc;
  }
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    verify_kernel(cb_layout_t layout, int dtype, int op, const T *out, size_t n, size_t count, int rank, int nranks,
                  int root, uint64_t seed, int iter, cb_verify_result_t *res) {
  const float tol = cb_check_tolerance(dtype, op, nranks);
  unsigned long long wrong = 0, digest = 0, first = ~0ull;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    T raw = out[i];
    float got = cb_scalar<T>::to_float(raw);
    double exp = expected_value(layout, dtype, op, i, count, rank, nranks, root, seed, iter);
    /* exact ops: the expected value is representable, so compare after rounding it to T */
    float want = tol == 0.0f ? cb_scalar<T>::to_float(cb_scalar<T>::from_float((float)exp)) : (float)exp;
    bool ok = tol == 0.0f ? got == want : fabsf(got - want) <= tol; /* NaN (poison) fails both */
    if (!ok) {
      wrong++;
      if (i < first) first = i;
    }
    unsigned long long bits = 0;
    memcpy(&bits, &raw, sizeof raw);
    digest += cb_mix64(bits ^ (i * 0x9e3779b97f4a7c15ull));
  }
  if (wrong) {
    atomicAdd(&res->wrong, wrong);
    atomicMin(&res->first_bad, first);
  }
  atomicAdd(&res->digest, digest);
}

template <typename T>
void launch_fill(void *buf, size_t n, uint64_t seed, int rank, int nranks, int iter, uint64_t offset, int dtype,
                 cudaStream_t s) {
  if (!n) return;
  fill_kernel<T><<<grid_for(n), kThreads, 0, s>>>((T *)buf, n, seed, rank, nranks, iter, offset, dtype);
  CB_CUDA_LAUNCH("fill_kernel");
}

template <typename T>
void launch_verify(cb_layout_t layout, int dtype, int op, const void *out, size_t n, size_t count, int rank, int nranks,
                   int root, uint64_t seed, int iter, cb_verify_result_t *res, cudaStream_t s) {
  if (!n) return;
  verify_kernel<T><<<grid_for(n), kThreads, 0, s>>>(layout, dtype, op, (const T *)out, n, count, rank, nranks, root,
                                                    seed, iter, res);
  CB_CUDA_LAUNCH("verify_kernel");
}

/* One element of type T, copied to the host as raw bytes, as a double. */
template <typename T>
void read_as(const unsigned char *raw, double *v) {
  T x;
  memcpy(&x, raw, sizeof x);
  *v = cb_scalar<T>::to_float(x);
}

} // namespace

extern "C" void cb_fill_pattern(int dtype, void *buf, size_t n, uint64_t seed, int rank, int nranks, int iter,
                                uint64_t offset, cudaStream_t s) {
  CB_DISPATCH_DTYPE("cb_fill_pattern", dtype, launch_fill, buf, n, seed, rank, nranks, iter, offset, dtype, s);
}

extern "C" void cb_verify(cb_layout_t layout, int dtype, int op, const void *out, size_t n, size_t count, int rank,
                          int nranks, int root, uint64_t seed, int iter, cb_verify_result_t *res, cudaStream_t s) {
  cb_verify_result_t init = {0, ~0ull, 0};
  CB_CUDA(cudaMemcpyAsync(res, &init, sizeof init, cudaMemcpyHostToDevice, s));
  CB_DISPATCH_DTYPE("cb_verify", dtype, launch_verify, layout, dtype, op, out, n, count, rank, nranks, root, seed, iter,
                    res, s);
}

extern "C" double cb_expected_host(cb_layout_t layout, int dtype, int op, size_t i, size_t count, int rank, int nranks,
                                   int root, uint64_t seed, int iter) {
  return expected_value(layout, dtype, op, i, count, rank, nranks, root, seed, iter);
}

extern "C" double cb_read_element(int dtype, const void *buf, size_t i) {
  unsigned char raw[4] = {0};
  const size_t es = cb_dtype_size(dtype);
  if (!es) return NAN;
  CB_CUDA(cudaMemcpy(raw, (const char *)buf + i * es, es, cudaMemcpyDeviceToHost));
  double v = NAN;
  CB_DISPATCH_DTYPE("cb_read_element", dtype, read_as, raw, &v);
  return v;
}
