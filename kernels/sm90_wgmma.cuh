/* Hopper warpgroup matrix multiply-accumulate (wgmma, sm_90a) for the attention kernels
 * (kernels/attn/attn_fwd_sm90_kernel.cuh, the forward; kernels/attn/attn_bwd_sm90_kernel.cuh, the backward):
 * shared-memory matrix descriptors, the fence / commit / wait that order the asynchronous
 * operations, and the instruction shapes the attention kernel issues.
 *
 * A wgmma is issued by the 128 threads of a warpgroup together and runs asynchronously: its
 * accumulator registers (and, in the register-A form, its A registers) must not be touched
 * until wgmma.wait_group says it has completed. cb_wgmma_fence_operand ties a register array
 * to such a point so that the compiler neither reads it earlier nor reuses its registers.
 *
 * Accumulator layout of m64nN (fp32), thread t of warp w of the warpgroup, g = t / 4,
 * q = t % 4: d[4i + 0..1] = row 16w + g, columns 8i + 2q, +1; d[4i + 2..3] = row 16w + g + 8,
 * same columns (mma.sync's C layout repeated over the N / 8 column blocks). The register A
 * operand of m64nNk16 (16-bit) is mma.sync's m16n8k16 A fragment per warp: a[0] = (g, 2q..),
 * a[1] = (g + 8, 2q..), a[2] = (g, 2q + 8..), a[3] = (g + 8, 2q + 8..), two elements each.
 *
 * Descriptors (PTX ISA, "matrix descriptor"): bits 0-13 start address / 16, 16-29 leading
 * byte offset / 16, 32-45 stride byte offset / 16, 62-63 swizzle (1 = 128-byte). With the
 * 128-byte swizzle the data is in atoms of 8 rows x 128 bytes (1024 bytes), 16-byte chunk c of
 * row r stored at chunk c ^ (r % 8), which is exactly what TMA writes with
 * CU_TENSOR_MAP_SWIZZLE_128B:
 *   K-major (the reduction dimension contiguous: Q and K for Q K^T): stride offset = 1024
 *     (from one 8-row group to the next), leading offset unused; the k16 step s within an
 *     atom's 64 columns starts 32 s bytes further (the swizzle is applied to the address).
 *   MN-major (the output dimension contiguous: V for P V, transposed on the fly): leading
 *     offset = bytes from one 64-column atom to the next along N, stride offset = 1024 (from
 *     one group of 8 keys to the next); the k16 step s starts 16 s rows = 2048 s bytes further.
 * The wrappers below are mechanical (one per shape the kernels issue: both operands from shared
 * memory at N 32, 64 and 128, A from registers at N 64 and 128): the register lists are long. */
#ifndef CB_SM90_WGMMA_CUH
#define CB_SM90_WGMMA_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

__device__ __forceinline__ uint64_t cb_wgmma_desc_sw128(uint32_t smem_addr, uint32_t lead_bytes,
                                                        uint32_t stride_bytes) {
  return (uint64_t)((smem_addr & 0x3FFFFu) >> 4) | ((uint64_t)((lead_bytes >> 4) & 0x3FFFu) << 16) |
         ((uint64_t)((stride_bytes >> 4) & 0x3FFFu) << 32) | (1ull << 62);
}

/* Descriptor d moved bytes further on in shared memory: its 14-bit address field holds
 * address / 16, and every operand of the attention kernels ends below 256 KB, so the add never
 * carries out of the field. A kernel makes each operand's descriptor once and every wgmma's
 * from it with one add (FlashAttention-3's, CUTLASS's form): with a warp-uniform base the
 * compiler keeps that add on the uniform datapath instead of rebuilding the descriptor in
 * per-thread registers for every instruction. */
__device__ __forceinline__ uint64_t cb_wgmma_desc_add(uint64_t d, uint32_t bytes) { return d + (bytes >> 4); }

/* Orders register writes by ordinary instructions before the wgmma that reads them. */
__device__ __forceinline__ void cb_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
/* Closes the group of wgmma issued since the last commit. */
__device__ __forceinline__ void cb_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
/* Waits until at most kPending committed groups are still running. */
template <int kPending>
__device__ __forceinline__ void cb_wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

template <int N>
__device__ __forceinline__ void cb_wgmma_fence_operand(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; i++) asm volatile("" : "+f"(r[i])::"memory");
}
template <int N>
__device__ __forceinline__ void cb_wgmma_fence_operand(uint32_t (&r)[N][4]) {
#pragma unroll
  for (int i = 0; i < N; i++)
#pragma unroll
    for (int j = 0; j < 4; j++) asm volatile("" : "+r"(r[i][j])::"memory");
}

/* D[64 x N] += A[64 x 16] B[16 x N], A in registers, B MN-major in shared memory. */
template <int N>
__device__ __forceinline__ void cb_wgmma_rs_tb(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t b, bool bf16);

/* the 16 accumulator registers of an m64n32 wgmma, as asm operands */
#define CB_WGMMA_D16                                                                                          \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), \
      "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])

/* the 32 accumulator registers of an m64n64 wgmma, as asm operands */
#define CB_WGMMA_D32                                                                                          \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), \
      "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),  \
      "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), \
      "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])

/* the 64 accumulator registers of an m64n128 wgmma, as asm operands */
#define CB_WGMMA_D64                                                                                          \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), \
      "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),  \
      "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), \
      "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), \
      "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), \
      "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
      "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), \
      "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])

#define CB_WGMMA_RS_TB_N64(ty)                                                     \
  "wgmma.mma_async.sync.aligned.m64n64k16.f32." ty "." ty " {"                     \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "         \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}, {%32, %33, %34, %35}, %36, 1, 1, 1, 1;\n"
template <>
__device__ __forceinline__ void cb_wgmma_rs_tb<64>(float (&d)[32], const uint32_t (&a)[4], uint64_t b, bool bf16) {
  if (bf16)
    asm volatile(CB_WGMMA_RS_TB_N64("bf16") : CB_WGMMA_D32 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
  else asm volatile(CB_WGMMA_RS_TB_N64("f16") : CB_WGMMA_D32 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
}

#define CB_WGMMA_RS_TB_N128(ty)                                                      \
  "wgmma.mma_async.sync.aligned.m64n128k16.f32." ty "." ty " {"                      \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "           \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"   \
  "}, {%64, %65, %66, %67}, %68, 1, 1, 1, 1;\n"
template <>
__device__ __forceinline__ void cb_wgmma_rs_tb<128>(float (&d)[64], const uint32_t (&a)[4], uint64_t b, bool bf16) {
  if (bf16)
    asm volatile(CB_WGMMA_RS_TB_N128("bf16") : CB_WGMMA_D64 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
  else asm volatile(CB_WGMMA_RS_TB_N128("f16") : CB_WGMMA_D64 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
}

/* D[64 x N] = A[64 x 16] B[16 x N] (+ D when acc != 0), N = 32, 64 or 128, A and B in shared
 * memory, each K-major (kTA / kTB = 0) or MN-major (1); bf16 or fp16 inputs (a compile-time
 * constant at every call). The forward's S = Q K^T (N 128, both K-major); the backward's
 * S^T = K Q^T, dP^T = V dO^T (N 64, both K-major) and dQ = dS K (dS stored [key][row], K
 * [key][dim]: both MN-major; N 32 at D 64, a warpgroup's half of the columns). */
#define CB_WGMMA_SS_N32(ty)                                              \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"                           \
  "wgmma.mma_async.sync.aligned.m64n32k16.f32." ty "." ty " {"           \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15" \
  "}, %16, %17, p, 1, 1, %19, %20;\n}\n"
#define CB_WGMMA_SS_N64(ty)                                                        \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                     \
  "wgmma.mma_async.sync.aligned.m64n64k16.f32." ty "." ty " {"                     \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "         \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}, %32, %33, p, 1, 1, %35, %36;\n}\n"
#define CB_WGMMA_SS_N128(ty)                                                         \
  "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                       \
  "wgmma.mma_async.sync.aligned.m64n128k16.f32." ty "." ty " {"                      \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "           \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"   \
  "}, %64, %65, p, 1, 1, %67, %68;\n}\n"
template <int N, int kTA = 0, int kTB = 0>
__device__ __forceinline__ void cb_wgmma_ss(float (&d)[N / 2], uint64_t a, uint64_t b, int acc, bool bf16) {
  static_assert(N == 32 || N == 64 || N == 128, "cb_wgmma_ss: N is 32, 64 or 128");
  if constexpr (N == 32) {
    if (bf16) asm volatile(CB_WGMMA_SS_N32("bf16") : CB_WGMMA_D16 : "l"(a), "l"(b), "r"(acc), "n"(kTA), "n"(kTB));
    else asm volatile(CB_WGMMA_SS_N32("f16") : CB_WGMMA_D16 : "l"(a), "l"(b), "r"(acc), "n"(kTA), "n"(kTB));
  } else if constexpr (N == 64) {
    if (bf16) asm volatile(CB_WGMMA_SS_N64("bf16") : CB_WGMMA_D32 : "l"(a), "l"(b), "r"(acc), "n"(kTA), "n"(kTB));
    else asm volatile(CB_WGMMA_SS_N64("f16") : CB_WGMMA_D32 : "l"(a), "l"(b), "r"(acc), "n"(kTA), "n"(kTB));
  } else {
    if (bf16) asm volatile(CB_WGMMA_SS_N128("bf16") : CB_WGMMA_D64 : "l"(a), "l"(b), "r"(acc), "n"(kTA), "n"(kTB));
    else asm volatile(CB_WGMMA_SS_N128("f16") : CB_WGMMA_D64 : "l"(a), "l"(b), "r"(acc), "n"(kTA), "n"(kTB));
  }
}

#endif
