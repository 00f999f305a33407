/* Correctness kernels: pattern fill and layout-aware verification (check.h).
 *
 * Verification recomputes every expected value on the device from the pattern's seed, so a
 * check costs one read of the output and no host reference (8 GiB outputs check in
 * milliseconds). Counting is per thread, then one atomicAdd per thread. Expected values are
 * computed in cb_ref_t<T> (dtype.cuh: double for the floating types, the type itself for the
 * integers) with the kernels' own op arithmetic (redop.cuh): integer results, wrapping and
 * avg's truncating division included, compare exactly. */
#include <math.h>

#include "check.h"
#include "dtype.cuh"
#include "error_gpu.h"
#include "grid.h"
#include "pattern.cuh"
#include "redop.cuh"

namespace {

constexpr int kThreads = 256;

int grid_for(size_t n) { return cb_grid_blocks(n, kThreads, 4096); }

template <typename T>
__global__ void __launch_bounds__(kThreads)
    fill_kernel(T *buf, size_t n, uint64_t seed, int rank, int nranks, int iter, uint64_t offset, int dtype, int op) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    buf[i] = cb_from_ref<T>((cb_ref_t<T>)cb_pattern_op_value(seed, rank, iter, offset + i, dtype, nranks, op));
}

template <typename T>
__host__ __device__ cb_ref_t<T> expected_value(cb_layout_t layout, int dtype, int op, size_t i, size_t count, int rank,
                                               int nranks, int root, uint64_t seed, int iter) {
  using R = cb_ref_t<T>;
  switch (layout) {
  case CB_LAYOUT_BROADCAST: return (R)cb_pattern_op_value(seed, root, iter, i, dtype, nranks, op);
  case CB_LAYOUT_SCATTER:
    return (R)cb_pattern_op_value(seed, root, iter, (uint64_t)rank * count + i, dtype, nranks, op);
  case CB_LAYOUT_GATHER: /* the root's output is an all-gather's */
  case CB_LAYOUT_ALLGATHER: return (R)cb_pattern_op_value(seed, (int)(i / count), iter, i % count, dtype, nranks, op);
  case CB_LAYOUT_ALLTOALL:
    return (R)cb_pattern_op_value(seed, (int)(i / count), iter, (uint64_t)rank * count + i % count, dtype, nranks, op);
  case CB_LAYOUT_SENDRECV:
    return (R)cb_pattern_op_value(seed, (rank - 1 + nranks) % nranks, iter, i, dtype, nranks, op);
  default: {
    uint64_t idx = layout == CB_LAYOUT_REDUCESCATTER ? (uint64_t)rank * count + i : i;
    R acc = (R)cb_pattern_op_value(seed, 0, iter, idx, dtype, nranks, op);
    for (int r = 1; r < nranks; r++)
      acc = cb_combine(op, acc, (R)cb_pattern_op_value(seed, r, iter, idx, dtype, nranks, op));
    return cb_finish_op(op, acc, nranks);
  }
  }
}

/* got against want: the integers exactly; exact floating ops after rounding want to T (it is
 * representable); avg within the tolerance. NaN (the poison) fails every comparison. */
template <typename T>
__host__ __device__ bool element_ok(T raw, cb_ref_t<T> want, double tol) {
  cb_ref_t<T> got = cb_to_ref<T>(raw);
  if constexpr (std::is_integral<T>::value) {
    return got == want;
  } else {
    if (tol == 0.0) return got == cb_to_ref<T>(cb_from_ref<T>(want));
    return fabs(got - want) <= tol;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    verify_kernel(cb_layout_t layout, int dtype, int op, const T *out, size_t n, size_t count, int rank, int nranks,
                  int root, uint64_t seed, int iter, cb_verify_result_t *res) {
  const double tol = cb_check_tolerance(dtype, op, nranks);
  unsigned long long wrong = 0, digest = 0, first = ~0ull;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    T raw = out[i];
    bool ok = element_ok<T>(raw, expected_value<T>(layout, dtype, op, i, count, rank, nranks, root, seed, iter), tol);
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
void launch_fill(void *buf, size_t n, uint64_t seed, int rank, int nranks, int iter, uint64_t offset, int dtype, int op,
                 cudaStream_t s) {
  if (!n) return;
  fill_kernel<T><<<grid_for(n), kThreads, 0, s>>>((T *)buf, n, seed, rank, nranks, iter, offset, dtype, op);
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
  *v = (double)cb_to_ref<T>(x);
}

template <typename T>
void expected_as(cb_layout_t layout, int dtype, int op, size_t i, size_t count, int rank, int nranks, int root,
                 uint64_t seed, int iter, double *v) {
  *v = (double)expected_value<T>(layout, dtype, op, i, count, rank, nranks, root, seed, iter);
}

template <typename T>
void element_ok_as(int dtype, int op, int nranks, const void *raw, double want, int *ok) {
  T x;
  memcpy(&x, raw, sizeof x);
  *ok = element_ok<T>(x, (cb_ref_t<T>)want, cb_check_tolerance(dtype, op, nranks));
}

} // namespace

extern "C" void cb_fill_pattern(int dtype, void *buf, size_t n, uint64_t seed, int rank, int nranks, int iter,
                                uint64_t offset, cudaStream_t s) {
  cb_fill_pattern_op(dtype, CB_SUM, buf, n, seed, rank, nranks, iter, offset, s);
}

extern "C" void cb_fill_pattern_op(int dtype, int op, void *buf, size_t n, uint64_t seed, int rank, int nranks,
                                   int iter, uint64_t offset, cudaStream_t s) {
  CB_DISPATCH_DTYPE("cb_fill_pattern", dtype, launch_fill, buf, n, seed, rank, nranks, iter, offset, dtype, op, s);
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
  double v = NAN;
  CB_DISPATCH_DTYPE("cb_expected_host", dtype, expected_as, layout, dtype, op, i, count, rank, nranks, root, seed, iter,
                    &v);
  return v;
}

extern "C" int cb_element_ok_host(int dtype, int op, int nranks, const void *raw, double want) {
  int ok = 0;
  CB_DISPATCH_DTYPE("cb_element_ok_host", dtype, element_ok_as, dtype, op, nranks, raw, want, &ok);
  return ok;
}

extern "C" double cb_read_element_host(int dtype, const void *raw) {
  double v = NAN;
  CB_DISPATCH_DTYPE("cb_read_element_host", dtype, read_as, (const unsigned char *)raw, &v);
  return v;
}

extern "C" double cb_read_element(int dtype, const void *buf, size_t i) {
  unsigned char raw[8] = {0};
  const size_t es = cb_dtype_size(dtype);
  if (!es) return NAN;
  CB_CUDA(cudaMemcpy(raw, (const char *)buf + i * es, es, cudaMemcpyDeviceToHost));
  double v = NAN;
  CB_DISPATCH_DTYPE("cb_read_element", dtype, read_as, raw, &v);
  return v;
}
