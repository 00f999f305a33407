/* TEMPORARY stand-in for the backward block kernel (attn_bwd.h, cb_attn_bwd) until
 * kernels/attn_bwd_sm90.cu lands: every call is refused with the reason, so the ring-attention
 * backward rows say "not supported: ..." and the build links. Delete this file (and its line in
 * kernels/CMakeLists.txt) when the real kernel is added. */
#include <stdio.h>

#include "attn_bwd.h"

extern "C" int cb_attn_bwd(const cb_attn_bwd_args_t *a, cudaStream_t s, char *why, size_t n) {
  (void)s;
  if (cb_attn_bwd_check_args(a, why, n) < 0) return -1;
  snprintf(why, n, "not supported: backward kernel not built");
  return -1;
}
