/* NVTX range names (launcher/nvtx.h): FAMILY/ALGO/DTYPE/SIZE/MODE:STEP, the sweep point as
 * collbench's -b reads it (K/M/G/T only when exact), T<tokens>, S<seq>; too small a buffer is
 * reported, never overrun. */
#include <string.h>

#include "cb_testing.h"
#include "nvtx.h"

int main(void) {
  char size[32], name[256];
  CHECK_EQ_INT(cb_nvtx_size('B', 8ull << 30, size, sizeof size), 0);
  CHECK_EQ_STR(size, "8G");
  cb_nvtx_size('B', 8, size, sizeof size);
  CHECK_EQ_STR(size, "8");
  cb_nvtx_size('B', 1536, size, sizeof size); /* 1.5 KiB: not exact in K */
  CHECK_EQ_STR(size, "1536");
  cb_nvtx_size('B', 256 << 10, size, sizeof size);
  CHECK_EQ_STR(size, "256K");
  cb_nvtx_size('B', 3ull << 40, size, sizeof size);
  CHECK_EQ_STR(size, "3T");
  cb_nvtx_size('B', 2048ull << 40, size, sizeof size); /* no suffix above T */
  CHECK_EQ_STR(size, "2048T");
  cb_nvtx_size('T', 4096, size, sizeof size);
  CHECK_EQ_STR(size, "T4096");
  cb_nvtx_size('S', 65536, size, sizeof size);
  CHECK_EQ_STR(size, "S65536");
  CHECK_EQ_INT(cb_nvtx_name(name, sizeof name, "allreduce", "twoshot", "bfloat16", "8G", "graph", "round"), 0);
  CHECK_EQ_STR(name, "allreduce/twoshot/bfloat16/8G/graph:round");
  cb_nvtx_name(name, sizeof name, "ringattn", "ring", "bfloat16", "S65536", "eager-causal", "check");
  CHECK_EQ_STR(name, "ringattn/ring/bfloat16/S65536/eager-causal:check");
  char small[12];
  memset(small, 'x', sizeof small);
  CHECK_EQ_INT(cb_nvtx_name(small, sizeof small, "allreduce", "twoshot", "float", "8", "eager", "setup"), -1);
  CHECK(memchr(small, 0, sizeof small) != NULL, "truncated name not terminated");
  CHECK_EQ_INT(cb_nvtx_size('B', 1ull << 30, size, 2), -1);
  return cb_test_finish("nvtx names");
}
