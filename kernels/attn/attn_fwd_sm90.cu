/* Launcher of the Hopper block-attention kernel (attn_fwd_sm90_kernel.cuh): the TMA tensor maps of
 * Q, K and V encoded on the host, the instantiated (dtype, head dim) kernels, and the test whether this device and
 * these arguments can take the kernel. Built for sm_90a only (kernels/CMakeLists.txt); cb_attn_fwd (attn_fwd.cu) calls
 * it on sm_90 devices and falls back to the mma.sync kernel elsewhere.
 *
 * Tensor maps (sm90_tma.h): rows past the end of a tensor arrive as zeros, which is how partial
 * tiles and any q_len / kv_len are handled: the kernel masks keys past kv_len and never stores
 * rows past q_len. */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <limits.h>
#include <stdio.h>

#include "attn.h"
#include "attn_fwd_sm90_kernel.cuh"
#include "attn_params.h"
#include "attn_sm90_device.h"
#include "attn_sm90_order.h"
#include "sm90_tma.h"

static_assert(cb_attn_fwd_sm90_smem_bytes(128, 2) <= CB_SM90_SMEM_MAX &&
                  cb_attn_fwd_sm90_smem_bytes(64, 3) <= CB_SM90_SMEM_MAX,
              "every forward tile must fit an sm_90 CTA's shared memory");

/* The kernel with W consumer warpgroups on its grid: tq's map, the launch. */
template <typename T, int D, int W>
static int cb_sm90_launch_w(const cb_attn_args_t *a, cb_attn_params p, int l2, int sms, cudaStream_t s, char *why,
                            size_t n) {
  const int qtiles = (a->q_len + cb_fwd_block_m(W) - 1) / cb_fwd_block_m(W);
  const long ctas = (long)qtiles * a->heads * a->batch; /* bounded first: the order's arithmetic is in int */
  if (ctas > INT_MAX) {
    snprintf(why, n, "attention (wgmma): %ld CTAs exceed the grid's %d", ctas, INT_MAX);
    return -1;
  }
  /* a causal section's pairs share K and V (16-bit) of kv heads: a group of pairs per kv head */
  p.sections = cb_sm90_sections((size_t)a->kv_len * D * 4 / p.group, (size_t)l2 / 2, a->heads * a->batch,
                                (2 * sms + qtiles - 1) / qtiles); /* half of L2, two waves at least */
  CUtensorMap tq, tk, tv;
  const int bf16 = a->bf16;
  if (cb_sm90_map(&tq, a->q, bf16, D, a->heads, a->q_len, a->batch, cb_fwd_block_m(W), why, n)) return -1;
  if (a->kv_len == 0) { /* no key tile is ever loaded (every CTA has 0 tiles): any valid map will do */
    tk = tq;
    tv = tq;
  } else if (cb_sm90_map(&tk, a->k, bf16, D, a->kv_heads, a->kv_len, a->batch, CB_SM90_BLOCK_N, why, n) ||
             cb_sm90_map(&tv, a->v, bf16, D, a->kv_heads, a->kv_len, a->batch, CB_SM90_BLOCK_N, why, n)) {
    return -1;
  }
  p.tiles = (int)ctas;
  /* one scheduler slot per launch, drawn in turn: launches on other streams count apart */
  static unsigned launches;
  p.sched_slot = (int)(__atomic_fetch_add(&launches, 1u, __ATOMIC_RELAXED) % CB_FWD_SCHED_SLOTS);
  const int grid = cb_fwd_grid(p.tiles, sms);
  const size_t smem = cb_attn_fwd_sm90_smem_bytes(D, W);
  auto kernel = cb_attn_fwd_sm90_kernel<T, D, W>;
  const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  if (e != cudaSuccess) {
    snprintf(why, n, "attention (wgmma): cannot set %zu bytes of shared memory per CTA: %s", smem,
             cudaGetErrorString(e));
    return -1;
  }
  kernel<<<(unsigned)grid, cb_fwd_threads(W), smem, s>>>(tq, tk, tv, p);
  return 0;
}

template <typename T, int D>
static int cb_sm90_launch(const cb_attn_args_t *a, cudaStream_t s, char *why, size_t n) {
  const cb_attn_params p = cb_attn_params_of(a);
  int sms = 0, l2 = 0;
  if (cb_sm90_device(&sms, &l2, "attention (wgmma)", why, n) < 0) return -1;
  if (D == 64 && cb_fwd_wgs(D, a->causal, a->q_len, (long)a->heads * a->batch, sms) == 2)
    return cb_sm90_launch_w<T, D, 2>(a, p, l2, sms, s, why, n);
  return cb_sm90_launch_w<T, D, cb_fwd_consumer_wgs(D)>(a, p, l2, sms, s, why, n);
}

extern "C" int cb_attn_fwd_sm90_usable(const cb_attn_args_t *a, char *why, size_t n) {
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
    snprintf(why, n, "no CUDA device");
    return 0;
  }
  if (major != 9 || minor != 0) {
    snprintf(why, n, "sm_%d%d has no wgmma", major, minor);
    return 0;
  }
  const uintptr_t mis = ((uintptr_t)a->q | (uintptr_t)a->k | (uintptr_t)a->v) & 15u;
  if (mis) {
    snprintf(why, n, "q, k or v not 16-byte aligned (TMA)");
    return 0;
  }
  return 1;
}

extern "C" int cb_attn_fwd_sm90(const cb_attn_args_t *a, cudaStream_t s, char *why, size_t n) {
  if (cb_attn_check_args(a, why, n) < 0 || cb_attn_check_consecutive(&a->qpos, &a->kvpos, a->causal, why, n) < 0)
    return -1;
  if (a->q_len == 0) return 0;
  if (!cb_attn_fwd_sm90_usable(a, why, n)) return -1;
  if (a->bf16)
    return a->head_dim == 128 ? cb_sm90_launch<__nv_bfloat16, 128>(a, s, why, n)
                              : cb_sm90_launch<__nv_bfloat16, 64>(a, s, why, n);
  return a->head_dim == 128 ? cb_sm90_launch<__half, 128>(a, s, why, n) : cb_sm90_launch<__half, 64>(a, s, why, n);
}
