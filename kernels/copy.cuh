/* Bulk copies for peer-memory kernels: 16-byte vectors with several loads in flight per
 * thread when both ends are 16-byte aligned, 4-byte words or bytes otherwise (all-to-all
 * blocks of odd sizes start at odd offsets). */
#ifndef CB_COPY_CUH
#define CB_COPY_CUH

#include <stddef.h>
#include <stdint.h>

constexpr int kCopyUnroll = 4;

/* dst[v] = src[v] for v = first, first + stride, ... < end (16-byte vectors): kCopyUnroll
 * loads are issued before the stores, so each thread keeps 64 bytes in flight. */
__device__ __forceinline__ void cb_copy_vectors(void *dst, const void *src, size_t first, size_t end, size_t stride) {
  uint4 *d = (uint4 *)dst;
  const uint4 *s = (const uint4 *)src;
  size_t v = first;
  for (; v + (kCopyUnroll - 1) * stride < end; v += kCopyUnroll * stride) {
    uint4 x[kCopyUnroll];
#pragma unroll
    for (int u = 0; u < kCopyUnroll; u++) x[u] = s[v + u * stride];
#pragma unroll
    for (int u = 0; u < kCopyUnroll; u++) d[v + u * stride] = x[u];
  }
  for (; v < end; v += stride) d[v] = s[v];
}

/* Copies bytes [lo, hi) of src to dst with the widest access both pointers allow; the calling
 * threads of a block share the work (thread tid of nthreads). */
__device__ __forceinline__ void cb_copy_bytes(char *dst, const char *src, size_t lo, size_t hi, int tid, int nthreads) {
  if (hi <= lo) return;
  uintptr_t a = (uintptr_t)(dst + lo) | (uintptr_t)(src + lo);
  size_t n = hi - lo;
  if ((a & 15) == 0) {
    size_t nv = n / 16;
    cb_copy_vectors(dst + lo, src + lo, tid, nv, nthreads);
    for (size_t i = lo + nv * 16 + tid; i < hi; i += nthreads) dst[i] = src[i];
  } else if ((a & 3) == 0) {
    size_t nw = n / 4;
    for (size_t w = tid; w < nw; w += nthreads) ((uint32_t *)(dst + lo))[w] = ((const uint32_t *)(src + lo))[w];
    for (size_t i = lo + nw * 4 + tid; i < hi; i += nthreads) dst[i] = src[i];
  } else {
    for (size_t i = lo + tid; i < hi; i += nthreads) dst[i] = src[i];
  }
}

/* Word w (4 bytes) of a buffer of `len` bytes that may start at any alignment; bytes past
 * len read as 0. */
__device__ __forceinline__ uint32_t cb_load_word(const char *p, size_t w, size_t len) {
  size_t o = 4 * w;
  if (((uintptr_t)(p + o) & 3) == 0 && o + 4 <= len) return *(const uint32_t *)(p + o);
  uint32_t x = 0;
  for (int i = 0; i < 4 && o + i < len; i++) x |= (uint32_t)(unsigned char)p[o + i] << (8 * i);
  return x;
}

__device__ __forceinline__ void cb_store_word(char *p, size_t w, size_t len, uint32_t x) {
  size_t o = 4 * w;
  if (((uintptr_t)(p + o) & 3) == 0 && o + 4 <= len) {
    *(uint32_t *)(p + o) = x;
    return;
  }
  for (int i = 0; i < 4 && o + i < len; i++) p[o + i] = (char)(x >> (8 * i));
}

#endif
