/* CPU test of the classic families' buffer plan (collectives/buffers.c): offsets and totals for
 * every family (the rooted ones and hypercube too), and the overflow guard: a count whose products wrap size_t (2^61
 * floats, or 2^62 elements x 8 ranks) must be refused, never planned as a small allocation. Needs the CUDA and NCCL
 * headers (collective.h) but no GPU and no CUDA call. */
#include <stdint.h>

#include "buffers.h"
#include "cb_testing.h"

static cb_params_t params(cb_family_t f, size_t count, cb_dtype_t t, int inplace) {
  cb_params_t p;
  memset(&p, 0, sizeof p);
  p.family = f;
  p.count = count;
  p.dtype = t;
  p.inplace = inplace;
  p.bytes = count * cb_dtype_size(t);
  return p;
}

static void test_layouts(void) {
  cb_buffer_plan_t o;
  char why[256] = "";
  cb_params_t p = params(CB_ALLREDUCE, 1000, CB_FLOAT, 0);
  CHECK(cb_plan_buffers(&p, 4, 1, &o, why, sizeof why) == 0, "%s", why);
  CHECK_EQ_INT(o.send_elems, 1000);
  CHECK_EQ_INT(o.recv_off, 4096);
  CHECK_EQ_INT(o.total_bytes, 8192);
  p = params(CB_ALLGATHER, 100, CB_FLOAT, 1);
  CHECK(cb_plan_buffers(&p, 4, 3, &o, why, sizeof why) == 0, "%s", why);
  CHECK_EQ_INT(o.recv_elems, 400);
  CHECK_EQ_INT(o.send_off, 1200);
  CHECK_EQ_INT(o.total_bytes, 1792);
  p = params(CB_ALLTOALL, 0, CB_BF16, 0);
  CHECK(cb_plan_buffers(&p, 8, 0, &o, why, sizeof why) == 0, "%s", why);
  CHECK_EQ_INT(o.total_bytes, 256);
  /* the rooted families, in place as nccl-tests and NCCL 2.28 lay them out: gather sends from
   * recv + rank x count (the root's is recv + root x count), scatter receives into send + rank x
   * count; broadcast and reduce use one buffer of count */
  p = params(CB_GATHER, 64, CB_HALF, 1);
  CHECK(cb_plan_buffers(&p, 3, 2, &o, why, sizeof why) == 0, "%s", why);
  CHECK_EQ_INT(o.send_elems, 64);
  CHECK_EQ_INT(o.recv_elems, 192);
  CHECK_EQ_INT(o.send_off, 256);
  CHECK_EQ_INT(o.recv_off, 0);
  p = params(CB_SCATTER, 64, CB_FLOAT, 1);
  CHECK(cb_plan_buffers(&p, 4, 1, &o, why, sizeof why) == 0, "%s", why);
  CHECK_EQ_INT(o.send_elems, 256);
  CHECK_EQ_INT(o.recv_elems, 64);
  CHECK_EQ_INT(o.send_off, 0);
  CHECK_EQ_INT(o.recv_off, 256);
  p = params(CB_SCATTER, 64, CB_FLOAT, 0);
  CHECK(cb_plan_buffers(&p, 4, 1, &o, why, sizeof why) == 0, "%s", why);
  CHECK_EQ_INT(o.recv_off, 1024);
  CHECK_EQ_INT(o.total_bytes, 1280);
  p = params(CB_BROADCAST, 1000, CB_FLOAT, 1);
  CHECK(cb_plan_buffers(&p, 8, 5, &o, why, sizeof why) == 0, "%s", why);
  CHECK_EQ_INT(o.send_off, 0);
  CHECK_EQ_INT(o.recv_off, 0);
  CHECK_EQ_INT(o.total_bytes, 4096);
  p = params(CB_HYPERCUBE, 10, CB_FLOAT, 1);
  CHECK(cb_plan_buffers(&p, 4, 3, &o, why, sizeof why) == 0, "%s", why);
  CHECK_EQ_INT(o.recv_elems, 40);
  CHECK_EQ_INT(o.send_off, 120);
}

static void expect_refused(cb_family_t f, size_t count, cb_dtype_t t, int inplace, int n) {
  cb_buffer_plan_t o;
  char why[256] = "";
  cb_params_t p = params(f, count, t, inplace);
  int rc = cb_plan_buffers(&p, n, n - 1, &o, why, sizeof why);
  CHECK(rc == -1, "%s count %zu x %d ranks planned %zu bytes", cb_family_name(f), count, n, o.total_bytes);
  CHECK_CONTAINS(why, "1 TiB");
}

static void test_overflow(void) {
  expect_refused(CB_ALLREDUCE, (size_t)1 << 61, CB_FLOAT, 0, 2);
  expect_refused(CB_ALLREDUCE, ((size_t)18446744073709551488ull) / 4, CB_FLOAT, 1, 2);
  expect_refused(CB_ALLREDUCE, SIZE_MAX, CB_FP8E4M3, 1, 1);
  expect_refused(CB_ALLTOALL, (size_t)1 << 62, CB_FP8E4M3, 0, 8);
  expect_refused(CB_ALLGATHER, ((size_t)1 << 40) / 4 + 1, CB_FP8E4M3, 1, 4);
  expect_refused(CB_REDUCESCATTER, (size_t)1 << 63, CB_BF16, 0, 2);
}

int main(void) {
  test_layouts();
  test_overflow();
  return cb_test_finish("test_buffers");
}
