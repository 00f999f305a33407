/* Launcher of the Hopper backward block-attention kernel (attn_bwd_sm90_kernel.cuh): cb_attn_bwd
 * of attn_bwd.h. Its arguments are checked by cb_attn_bwd_check_args (attn_bwd_args.cu: the
 * backward's buffers, then the forward's rules on the same shape); TMA maps of Q, dO (boxes of
 * the head dim's query tile), K, V (128-row boxes) and dq (64-row boxes) (sm90_tma.h). sm_90
 * only: elsewhere, or where TMA cannot take the tensors, the call is refused with the reason
 * ("not supported: ..."), which the ring's rows carry. */
#include <cuda.h>
#include <limits.h>
#include <stdio.h>

#include "attn.h"
#include "attn_bwd.h"
#include "attn_bwd_sm90_kernel.cuh"
#include "attn_bwd_sm90_schedule.h"
#include "attn_params.h"
#include "attn_sm90_device.h"
#include "sm90_tma.h"

static_assert(cb_attn_bwd_sm90_smem_bytes(128) <= CB_SM90_SMEM_MAX &&
                  cb_attn_bwd_sm90_smem_bytes(64) <= CB_SM90_SMEM_MAX,
              "the backward must fit an sm_90 CTA's shared memory");

template <typename T, int D>
static int cb_bwd_launch(const cb_attn_bwd_args_t *a, const cb_attn_args_t *f, cudaStream_t s, char *why, size_t n) {
  cb_attn_bwd_params bp;
  bp.f = cb_attn_params_of(f);
  bp.dout = a->dout, bp.lse = a->lse, bp.delta = a->delta, bp.dq = a->dq, bp.dk = a->dk, bp.dv = a->dv;
  bp.scale = a->scale;
  int sms = 0, l2 = 0;
  if (cb_sm90_device(&sms, &l2, "attention backward", why, n) < 0) return -1;
  /* the largest grid any split makes, bounded first: the schedule's arithmetic is in int */
  const long most = (long)cb_bwd_key_tiles(bp.f) * a->heads * a->batch;
  if (most > INT_MAX) {
    snprintf(why, n, "attention backward: %ld key tiles x heads x batch exceed the grid's %d CTAs", most, INT_MAX);
    return -1;
  }
  long free_at[CB_BWD_MODEL_SMS];
  bp.grid =
      cb_bwd_sm90_grid_of(bp.f, a->batch, D, sms < CB_BWD_MODEL_SMS ? sms : CB_BWD_MODEL_SMS, (size_t)l2, free_at);
  CUtensorMap tq, tk, tv, tdo, tdq;
  if (cb_sm90_map(&tq, a->q, a->bf16, D, a->heads, a->q_len, a->batch, cb_bwd_block_m(D), why, n) ||
      cb_sm90_map(&tdo, a->dout, a->bf16, D, a->heads, a->q_len, a->batch, cb_bwd_block_m(D), why, n) ||
      cb_sm90_map(&tk, a->k, a->bf16, D, a->kv_heads, a->kv_len, a->batch, CB_BWD_BLOCK_N, why, n) ||
      cb_sm90_map(&tv, a->v, a->bf16, D, a->kv_heads, a->kv_len, a->batch, CB_BWD_BLOCK_N, why, n) ||
      cb_sm90_map_f32(&tdq, a->dq, D, a->heads, a->q_len, a->batch, CB_BWD_DQ_ROWS, why, n))
    return -1;
  const size_t smem = cb_attn_bwd_sm90_smem_bytes(D);
  auto kernel = cb_attn_bwd_sm90_kernel<T, D>;
  const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  if (e != cudaSuccess) {
    snprintf(why, n, "attention backward: cannot set %zu bytes of shared memory per CTA: %s", smem,
             cudaGetErrorString(e));
    return -1;
  }
  const long ctas = (long)cb_bwd_key_tiles(bp.f) * a->kv_heads * a->batch * bp.grid.split; /* <= most */
  kernel<<<(unsigned)ctas, CB_SM90_THREADS, smem, s>>>(tq, tk, tv, tdo, tdq, bp);
  return 0;
}

extern "C" int cb_attn_bwd(const cb_attn_bwd_args_t *a, cudaStream_t s, char *why, size_t n) {
  if (cb_attn_bwd_check_args(a, why, n) < 0 || cb_attn_check_consecutive(&a->qpos, &a->kvpos, a->causal, why, n) < 0)
    return -1;
  const cb_attn_args_t f = cb_attn_bwd_fwd_args(a);
  if (a->q_len == 0 || a->kv_len == 0) return 0; /* nothing to add */
  char use[160];
  if (!cb_attn_fwd_sm90_usable(&f, use, sizeof use)) {
    snprintf(why, n, "not supported: the backward block kernel needs wgmma and TMA (%s)", use);
    return -1;
  }
  if (a->bf16)
    return a->head_dim == 128 ? cb_bwd_launch<__nv_bfloat16, 128>(a, &f, s, why, n)
                              : cb_bwd_launch<__nv_bfloat16, 64>(a, &f, s, why, n);
  return a->head_dim == 128 ? cb_bwd_launch<__half, 128>(a, &f, s, why, n)
                            : cb_bwd_launch<__half, 64>(a, &f, s, why, n);
}
