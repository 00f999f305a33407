/* Range lists ("0-5,8,10-11") for tables, binding reports and rankfiles: the same notation
 * as hwloc's list bitmaps and Linux cpu lists, so users can paste them into taskset/numactl. */
#include <stdio.h>
#include <string.h>

#include "placement.h"

int cb_format_list(const int *v, int nv, char *buf, size_t n) {
  size_t used = 0;
  if (n == 0) return -1;
  buf[0] = 0;
  for (int i = 0; i < nv;) {
    int j = i;
    while (j + 1 < nv && v[j + 1] == v[j] + 1) j++;
    int w = j > i ? snprintf(buf + used, n - used, "%s%d-%d", i ? "," : "", v[i], v[j])
                  : snprintf(buf + used, n - used, "%s%d", i ? "," : "", v[i]);
    if (w < 0 || (size_t)w >= n - used) {
      if (n >= 4) strcpy(buf + n - 4, "...");
      return -1;
    }
    used += (size_t)w;
    i = j + 1;
  }
  return 0;
}
