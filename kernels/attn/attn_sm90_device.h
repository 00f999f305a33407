/* What the Hopper attention launchers (attn_fwd_sm90.cu, attn_bwd_sm90.cu) read of the current
 * device for their grids: its SM count (the backward's split, the sections' two waves) and its
 * L2 size (the causal order's sections, attn_sm90_order.h). Read per launch: the ring may run on
 * any device the caller has made current. */
#ifndef CB_ATTN_SM90_DEVICE_H
#define CB_ATTN_SM90_DEVICE_H

#include <cuda_runtime.h>
#include <stdio.h>

/* 0 with *sms and *l2_bytes, or -1 with why (`who` starts the message). */
static inline int cb_sm90_device(int *sms, int *l2_bytes, const char *who, char *why, size_t n) {
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(l2_bytes, cudaDevAttrL2CacheSize, dev);
  if (e != cudaSuccess) {
    snprintf(why, n, "%s: cannot read the device's SM count and L2 size: %s", who, cudaGetErrorString(e));
    return -1;
  }
  return 0;
}

#endif
