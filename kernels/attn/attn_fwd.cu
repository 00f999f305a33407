/* cb_attn_fwd and cb_attn_fwd_mma (attn.h): launch the mma.sync block-attention kernel of
 * attn_fwd_mma_kernel.cuh for the dtype and head dim asked for, with its shared-memory size, or the
 * Hopper kernel (attn_fwd_sm90.cu) where it can run. The kernel and its tuning notes are in
 * attn_fwd_mma_kernel.cuh and attn_mma_tile.cuh. */
#include <stdio.h>

#include "attn_fwd_mma_kernel.cuh"

/* ---- launcher ---- */

template <typename T, int D>
static int cb_attn_launch(const cb_attn_params &p, int batch, cudaStream_t s, char *why, size_t n) {
  const size_t smem = cb_attn_smem_bytes(D);
  auto kernel = cb_attn_fwd_kernel<T, D>;
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  /* All of the unified L1 / shared memory as shared memory (228 KB on sm_90), so that
   * CB_ATTN_MIN_CTAS CTAs fit on an SM; the kernel barely uses L1 (cp.async.cg bypasses it).
   * The driver takes it as a hint when it launches. */
  if (e == cudaSuccess)
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                             (int)cudaSharedmemCarveoutMaxShared);
  if (e != cudaSuccess) {
    snprintf(why, n, "attention: cannot set %zu bytes of shared memory per CTA: %s", smem, cudaGetErrorString(e));
    return -1;
  }
  const dim3 grid((unsigned)((p.q_len + CB_ATTN_BLOCK_M - 1) / CB_ATTN_BLOCK_M), (unsigned)p.heads, (unsigned)batch);
  kernel<<<grid, CB_ATTN_THREADS, smem, s>>>(p);
  return 0;
}

extern "C" int cb_attn_fwd_mma(const cb_attn_args_t *a, cudaStream_t s, char *why, size_t n) {
  if (cb_attn_check_args(a, why, n) < 0 || cb_attn_check_consecutive(&a->qpos, &a->kvpos, a->causal, why, n) < 0)
    return -1;
  const cb_attn_params p = cb_attn_params_of(a);
  if (a->q_len == 0) return 0; /* nothing to compute or write */
  if (a->bf16)
    return a->head_dim == 128 ? cb_attn_launch<__nv_bfloat16, 128>(p, a->batch, s, why, n)
                              : cb_attn_launch<__nv_bfloat16, 64>(p, a->batch, s, why, n);
  return a->head_dim == 128 ? cb_attn_launch<__half, 128>(p, a->batch, s, why, n)
                            : cb_attn_launch<__half, 64>(p, a->batch, s, why, n);
}

extern "C" int64_t cb_attn_fwd_ctas(int64_t q_rows, int heads, int batch) {
  return (q_rows + CB_ATTN_BLOCK_M - 1) / CB_ATTN_BLOCK_M * heads * batch;
}

/* sm_90: the Hopper kernel (attn_fwd_sm90.cu); any other GPU, or arguments TMA cannot take:
 * the mma.sync kernel (cb_attn_fwd_mma above). cb_attn_fwd_kernel_name says which, for the
 * rows' notes. */
extern "C" const char *cb_attn_fwd_kernel_name(const cb_attn_args_t *a, char *buf, size_t n) {
  char why[160];
  if (cb_attn_fwd_sm90_usable(a, why, sizeof why)) snprintf(buf, n, "wgmma");
  else snprintf(buf, n, "mma.sync (fallback: %s)", why);
  return buf;
}

extern "C" int cb_attn_fwd(const cb_attn_args_t *a, cudaStream_t s, char *why, size_t n) {
  char tmp[160];
  if (a && cb_attn_fwd_sm90_usable(a, tmp, sizeof tmp)) return cb_attn_fwd_sm90(a, s, why, n);
  return cb_attn_fwd_mma(a, s, why, n);
}
