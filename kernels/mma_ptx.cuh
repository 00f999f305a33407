/* Thin wrappers for the warp-level PTX the tensor-core kernels use (sm_80+, tuned on sm_90):
 * cp.async 16-byte copies into shared memory with commit / wait groups, ldmatrix.x4 (plain and
 * transposed) from shared-memory byte addresses, ex2.approx, and mma.sync m16n8k16 with fp32
 * accumulation for bf16 and fp16 operands. Fragment layouts: mma_frag.h. Device code only. */
#ifndef CB_MMA_PTX_CUH
#define CB_MMA_PTX_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

__device__ __forceinline__ uint32_t cb_smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

/* 16-byte global -> shared copy; src_bytes 0 zero-fills the destination (src must still be a
 * valid address). .cg: cache in L2 only (data streamed through shared memory). */
__device__ __forceinline__ void cb_cp_async16(void *dst, const void *src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(cb_smem_addr(dst)), "l"(src), "r"(src_bytes));
}
/* the same for a whole 16 bytes, to a shared-memory byte address (cb_smem_addr) */
__device__ __forceinline__ void cb_cp_async16_s(uint32_t dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cb_cp_async_commit(void) { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cb_cp_async_wait(void) {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/* ldmatrix from a shared-memory byte address (cb_smem_addr of the tile + 2 x element offset) */
__device__ __forceinline__ void cb_ldmatrix_x4(uint32_t r[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void cb_ldmatrix_x4_trans(uint32_t r[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

__device__ __forceinline__ float cb_ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

/* Per-dtype pieces: the mma instruction, fp32 pair -> packed 16-bit pair (low half = lo) and
 * back. */
#define CB_MMA_16816(ab)                                                                         \
  "mma.sync.aligned.m16n8k16.row.col.f32." ab "." ab ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, " \
  "{%8, %9}, {%0, %1, %2, %3};\n"
#define CB_MMA_16816_OPERANDS                      \
  : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])                 \
  : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1)

template <typename T>
struct cb_mma_op {
  static constexpr bool bf16 = std::is_same<T, __nv_bfloat16>::value;
  static_assert(bf16 || std::is_same<T, __half>::value, "bf16 or fp16");
  static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
    uint32_t u;
    if constexpr (bf16) {
      const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
      memcpy(&u, &v, 4);
    } else {
      const __half2 v = __floats2half2_rn(lo, hi);
      memcpy(&u, &v, 4);
    }
    return u;
  }
  /* the two values of a pack()ed pair, as floats */
  static __device__ __forceinline__ float2 unpack(uint32_t u) {
    if constexpr (bf16) return make_float2(__uint_as_float(u << 16), __uint_as_float(u & 0xffff0000u));
    else
      return make_float2(__half2float(__ushort_as_half((unsigned short)(u & 0xffffu))),
                         __half2float(__ushort_as_half((unsigned short)(u >> 16))));
  }
  static __device__ __forceinline__ void mma(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
    if constexpr (bf16) asm volatile(CB_MMA_16816("bf16") CB_MMA_16816_OPERANDS);
    else asm volatile(CB_MMA_16816("f16") CB_MMA_16816_OPERANDS);
  }
};

#endif
