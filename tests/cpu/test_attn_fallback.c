/* Which block kernel collbench's ring-attention rows run (kernels/attn/attn.h, cb_attn_fwd_kernel_name):
 * the Hopper kernel on an sm_90 device, the mma.sync fallback everywhere else, with the reason
 * the row's note then carries. On a machine without a GPU (CI) the answer must be the fallback
 * with "no CUDA device"; on a GPU machine the test checks the answer matches the device. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "attn.h"

static int failures;

static void expect_prefix(const char *got, const char *want, const char *what) {
  if (strncmp(got, want, strlen(want)) != 0) {
    fprintf(stderr, "FAIL %s: '%s' does not start with '%s'\n", what, got, want);
    failures++;
  } else {
    printf("ok   %s: %s\n", what, got);
  }
}

int main(void) {
  static __attribute__((aligned(16))) char buf[256];
  cb_attn_args_t a;
  memset(&a, 0, sizeof a);
  a.q = a.k = a.v = buf;
  a.batch = 1, a.heads = 2, a.kv_heads = 2, a.head_dim = 128, a.q_len = 4, a.kv_len = 4, a.bf16 = 1;
  char name[200], want[64];
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    (void)cudaGetLastError();
    expect_prefix(cb_attn_fwd_kernel_name(&a, name, sizeof name), "mma.sync (fallback: no CUDA device", "no GPU");
  } else {
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
    if (major == 9 && minor == 0) {
      expect_prefix(cb_attn_fwd_kernel_name(&a, name, sizeof name), "wgmma", "sm_90");
      a.k = buf + 2; /* TMA needs 16-byte aligned tensors: the fallback takes these */
      expect_prefix(cb_attn_fwd_kernel_name(&a, name, sizeof name), "mma.sync (fallback: q, k or v not 16-byte",
                    "sm_90, misaligned k");
    } else {
      snprintf(want, sizeof want, "mma.sync (fallback: sm_%d%d has no wgmma", major, minor);
      expect_prefix(cb_attn_fwd_kernel_name(&a, name, sizeof name), want, "not sm_90");
    }
  }
  return failures ? 1 : 0;
}
