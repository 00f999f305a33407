/* The 64-bit mixing function every seeded stream in collbench derives from (check patterns,
 * MoE routing, output digests): the splitmix64 finalizer, a good bijective mix for counters.
 * One definition for host and device, so host references and kernels draw the same numbers. */
#ifndef CB_MIX64_H
#define CB_MIX64_H

#include <stdint.h>

#include "hostdev.h"

CB_HD uint64_t cb_mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

#endif
