/* cb_attn_fwd and its variants (attn.h): launch the block-attention kernel of
 * attn_fwd_kernel.cuh in the (rows per warp, main-loop form) instantiation asked for or chosen
 * by head dimension, with its shared-memory size, and report its occupancy. The kernel, its
 * forms and its tuning notes are in attn_fwd_kernel.cuh. */
#include <stdio.h>
#include <type_traits>
#include <utility>

#include "attn_fwd_kernel.cuh"
#include "attn_sm90_tile.h"

/* ---- launcher ---- */

template <typename T, int D, int kMT, int kForm>
static int cb_attn_launch(const cb_attn_params &p, int batch, cudaStream_t s, char *why, size_t n) {
  const size_t smem = cb_attn_smem_bytes(D, kForm);
  auto kernel = cb_attn_fwd_kernel<T, D, kMT, kForm>;
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  /* All of the unified L1 / shared memory as shared memory (228 KB on sm_90), so that
   * cb_attn_shape<kMT>::min_ctas CTAs fit on an SM; the kernel barely uses L1 (cp.async.cg
   * bypasses it). The driver takes it as a hint when it launches. */
  if (e == cudaSuccess)
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                             (int)cudaSharedmemCarveoutMaxShared);
  if (e != cudaSuccess) {
    snprintf(why, n, "attention: cannot set %zu bytes of shared memory per CTA: %s", smem, cudaGetErrorString(e));
    return -1;
  }
  const dim3 grid((unsigned)((p.q_len + CB_ATTN_BLOCK_M - 1) / CB_ATTN_BLOCK_M), (unsigned)p.heads,
                  (unsigned)batch);
  kernel<<<grid, cb_attn_shape<kMT>::threads, smem, s>>>(p);
  return 0;
}

/* The instantiated (rows per warp, form) pairs: 16 rows per warp in form 0 only. */
static int cb_attn_form_ok(int rows_per_warp, int form, char *why, size_t n) {
  if (rows_per_warp != 16 && rows_per_warp != 32) {
    snprintf(why, n, "attention: %d rows per warp unsupported (16 or 32)", rows_per_warp);
    return 0;
  }
  if (form < 0 || form >= CB_ATTN_FORMS || (rows_per_warp == 16 && form != CB_ATTN_FORM_TILE)) {
    snprintf(why, n, "attention: kernel form %d unsupported with %d rows per warp", form, rows_per_warp);
    return 0;
  }
  return 1;
}

/* f(std::integral_constant<int, kMT>, std::integral_constant<int, kForm>) for a (rows per warp,
 * form) pair cb_attn_form_ok accepted: the one place that maps the run-time pair to the
 * instantiated kernels. */
template <typename F>
static auto cb_attn_with_form(int rows_per_warp, int form, F &&f) {
  using std::integral_constant;
  using two = integral_constant<int, 2>;
  if (rows_per_warp == 16) return f(integral_constant<int, 1>(), integral_constant<int, CB_ATTN_FORM_TILE>());
  switch (form) {
  case CB_ATTN_FORM_HALVES:
    return f(two(), integral_constant<int, CB_ATTN_FORM_HALVES>());
  case CB_ATTN_FORM_SPLIT:
    return f(two(), integral_constant<int, CB_ATTN_FORM_SPLIT>());
  case CB_ATTN_FORM_SPLIT_ALWAYS:
    return f(two(), integral_constant<int, CB_ATTN_FORM_SPLIT_ALWAYS>());
  case CB_ATTN_FORM_SPLIT_PLAIN:
    return f(two(), integral_constant<int, CB_ATTN_FORM_SPLIT_PLAIN>());
  case CB_ATTN_FORM_HALVES_SEQ:
    return f(two(), integral_constant<int, CB_ATTN_FORM_HALVES_SEQ>());
  case CB_ATTN_FORM_HALVES_SEQ_LOADS:
    return f(two(), integral_constant<int, CB_ATTN_FORM_HALVES_SEQ_LOADS>());
  case CB_ATTN_FORM_HALVES_SEQ_TREE:
    return f(two(), integral_constant<int, CB_ATTN_FORM_HALVES_SEQ_TREE>());
  case CB_ATTN_FORM_HALVES_SEQ_BOTH:
    return f(two(), integral_constant<int, CB_ATTN_FORM_HALVES_SEQ_BOTH>());
  default:
    return f(two(), integral_constant<int, CB_ATTN_FORM_TILE>());
  }
}

template <typename T, int D>
static int cb_attn_launch_form(const cb_attn_params &p, int batch, int rows_per_warp, int form, cudaStream_t s,
                               char *why, size_t n) {
  return cb_attn_with_form(rows_per_warp, form, [&](auto mt, auto fm) {
    return cb_attn_launch<T, D, decltype(mt)::value, decltype(fm)::value>(p, batch, s, why, n);
  });
}

extern "C" int cb_attn_fwd_form(const cb_attn_args_t *a, int rows_per_warp, int form, cudaStream_t s, char *why,
                                size_t n) {
  if (cb_attn_check_args(a, why, n) < 0) return -1;
  if (!cb_attn_form_ok(rows_per_warp, form, why, n)) return -1;
  const cb_attn_params p = cb_attn_params_of(a);
  if (a->q_len == 0) return 0; /* nothing to compute or write */
  if (a->bf16)
    return a->head_dim == 128 ? cb_attn_launch_form<__nv_bfloat16, 128>(p, a->batch, rows_per_warp, form, s, why, n)
                              : cb_attn_launch_form<__nv_bfloat16, 64>(p, a->batch, rows_per_warp, form, s, why, n);
  return a->head_dim == 128 ? cb_attn_launch_form<__half, 128>(p, a->batch, rows_per_warp, form, s, why, n)
                            : cb_attn_launch_form<__half, 64>(p, a->batch, rows_per_warp, form, s, why, n);
}

extern "C" int cb_attn_fwd_shape(const cb_attn_args_t *a, int rows_per_warp, cudaStream_t s, char *why,
                                 size_t n) {
  return cb_attn_fwd_form(a, rows_per_warp,
                          rows_per_warp == 16                      ? CB_ATTN_FORM_TILE
                          : a && a->head_dim == 64 ? CB_ATTN_FORM_D64 : CB_ATTN_FORM_D128,
                          s, why, n);
}

template <int D, int kMT, int kForm>
static cudaError_t cb_attn_occupancy_of(int *ctas) {
  auto kernel = cb_attn_fwd_kernel<__nv_bfloat16, D, kMT, kForm>;
  const cudaError_t e =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)cb_attn_smem_bytes(D, kForm));
  if (e != cudaSuccess) return e;
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(ctas, kernel, cb_attn_shape<kMT>::threads,
                                                       cb_attn_smem_bytes(D, kForm));
}

template <int D>
static cudaError_t cb_attn_occupancy_dim(int rows_per_warp, int form, int *ctas) {
  return cb_attn_with_form(rows_per_warp, form, [&](auto mt, auto fm) {
    return cb_attn_occupancy_of<D, decltype(mt)::value, decltype(fm)::value>(ctas);
  });
}

extern "C" int cb_attn_fwd_form_occupancy(int head_dim, int rows_per_warp, int form, int *ctas_per_sm, char *why,
                                          size_t n) {
  if (head_dim != 64 && head_dim != 128) {
    snprintf(why, n, "attention occupancy: head dim %d unsupported", head_dim);
    return -1;
  }
  if (!cb_attn_form_ok(rows_per_warp, form, why, n)) return -1;
  const cudaError_t e = head_dim == 128 ? cb_attn_occupancy_dim<128>(rows_per_warp, form, ctas_per_sm)
                                        : cb_attn_occupancy_dim<64>(rows_per_warp, form, ctas_per_sm);
  if (e != cudaSuccess) {
    snprintf(why, n, "attention occupancy: %s", cudaGetErrorString(e));
    return -1;
  }
  return 0;
}

extern "C" int cb_attn_fwd_occupancy(int head_dim, int rows_per_warp, int *ctas_per_sm, char *why, size_t n) {
  return cb_attn_fwd_form_occupancy(head_dim, rows_per_warp,
                                    rows_per_warp == 16 ? CB_ATTN_FORM_TILE
                                    : head_dim == 64    ? CB_ATTN_FORM_D64
                                                        : CB_ATTN_FORM_D128,
                                    ctas_per_sm, why, n);
}

extern "C" int64_t cb_attn_fwd_ctas(int64_t q_rows, int heads, int batch) {
  return (q_rows + CB_ATTN_BLOCK_M - 1) / CB_ATTN_BLOCK_M * heads * batch;
}

/* sm_90: the Hopper kernel (attn_fwd_sm90.cu); any other GPU, or arguments TMA cannot take:
 * the mma.sync kernel above. cb_attn_fwd_kernel_name says which, for the rows' notes. */
extern "C" const char *cb_attn_fwd_kernel_name(const cb_attn_args_t *a, char *buf, size_t n) {
  char why[160];
  if (cb_attn_fwd_sm90_usable(a, why, sizeof why))
    snprintf(buf, n, "wgmma");
  else
    snprintf(buf, n, "mma.sync (fallback: %s)", why);
  return buf;
}

extern "C" int cb_attn_fwd(const cb_attn_args_t *a, cudaStream_t s, char *why, size_t n) {
  char tmp[160];
  if (a && cb_attn_fwd_sm90_usable(a, tmp, sizeof tmp)) return cb_attn_fwd_sm90(a, 0, CB_SM90_PINGPONG, s, why, n);
  return cb_attn_fwd_shape(a, a && a->head_dim == 64 ? CB_ATTN_ROWS_PER_WARP_D64 : CB_ATTN_ROWS_PER_WARP_D128, s,
                           why, n);
}
