/* NVTX range names (nvtx.h): plain string formatting, no CUDA, so the CPU tests check them. */
#include <stdio.h>

#include "nvtx.h"

int cb_nvtx_size(char kind, uint64_t value, char *buf, size_t n) {
  int w;
  if (kind == 'T' || kind == 'S') {
    w = snprintf(buf, n, "%c%llu", kind, (unsigned long long)value);
  } else {
    static const char suffix[] = "KMGT";
    int k = -1;
    uint64_t v = value;
    while (k < 3 && v >= 1024 && v % 1024 == 0) v /= 1024, k++;
    w = k < 0 ? snprintf(buf, n, "%llu", (unsigned long long)v)
              : snprintf(buf, n, "%llu%c", (unsigned long long)v, suffix[k]);
  }
  return w < 0 || (size_t)w >= n ? -1 : 0;
}

int cb_nvtx_name(char *buf, size_t n, const char *family, const char *algo, const char *dtype, const char *size,
                 const char *mode, const char *step) {
  int w = snprintf(buf, n, "%s/%s/%s/%s/%s:%s", family, algo, dtype, size, mode, step);
  return w < 0 || (size_t)w >= n ? -1 : 0;
}
