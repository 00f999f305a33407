/* attn_cudnn.h and attn_cudnn_bwd.h in a build without cuDNN (CMake: -DCB_CUDNN=OFF, or cuDNN not found): the
 * cuDNN rows say CB_ATTN_NO_CUDNN (from cb_cudnn_available in their supported()), and nothing
 * else of the build changes. Needs neither cuDNN nor a GPU, so the CPU tests link it as it is. */
#include <stdio.h>

#include "attn_cudnn.h"
#include "attn_cudnn_bwd.h"
#include "error.h"

int cb_cudnn_version(char *buf, size_t n) {
  snprintf(buf, n, "%s", CB_ATTN_NO_CUDNN);
  return 0;
}

int cb_cudnn_available(char *why, size_t n) {
  snprintf(why, n, "%s", CB_ATTN_NO_CUDNN);
  return 0;
}

int cb_cudnn_create(cb_cudnn_t **ctx, char *why, size_t n) {
  *ctx = NULL;
  snprintf(why, n, "%s", CB_ATTN_NO_CUDNN);
  return -1;
}

void cb_cudnn_destroy(cb_cudnn_t *ctx) { (void)ctx; }

int cb_cudnn_prepare(cb_cudnn_t *ctx, const cb_cudnn_key_t *k, char *why, size_t n) {
  (void)ctx, (void)k;
  snprintf(why, n, "%s", CB_ATTN_NO_CUDNN);
  return -1;
}

size_t cb_cudnn_mem(const cb_cudnn_t *ctx) {
  (void)ctx;
  return 0;
}

void cb_cudnn_attend(cb_cudnn_t *ctx, const cb_cudnn_key_t *k, float scale, const void *q, const void *kk,
                     const void *v, void *o, float *stats, cudaStream_t s) {
  CB_DIE(CB_EXIT_RUNTIME, "cuDNN attention called in a build without cuDNN (its rows should have said: %s)",
         CB_ATTN_NO_CUDNN);
}

int cb_cudnn_bwd_supported(char *why, size_t n) {
  snprintf(why, n, "%s", CB_ATTN_NO_CUDNN);
  return 0;
}

int cb_cudnn_prepare_bwd(cb_cudnn_t *ctx, const cb_cudnn_key_t *k, char *why, size_t n) {
  (void)ctx, (void)k;
  snprintf(why, n, "%s", CB_ATTN_NO_CUDNN);
  return -1;
}

void cb_cudnn_attend_bwd(cb_cudnn_t *ctx, const cb_cudnn_key_t *k, float scale, const cb_cudnn_bwd_io_t *io,
                         cudaStream_t s) {
  CB_DIE(CB_EXIT_RUNTIME, "cuDNN attention backward called in a build without cuDNN (its rows should have said: %s)",
         CB_ATTN_NO_CUDNN);
}
