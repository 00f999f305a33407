/* CPU test of cb_nccl_supported (collectives/nccl_common.c), the checks every NCCL form makes
 * before a row runs: fp8 needs NCCL >= 2.24 and sm_90 (else a "skipped" row naming both), and
 * avg of fp8 on a one-rank communicator, which NCCL 2.28.3 answers with "invalid argument"
 * (a probe on one H200), is refused with that reason up to NCCL 2.28 while
 * every other op, dtype and rank count passes; every type and op maps to NCCL's own (the
 * integers, double and prod included). Host code only: the world is filled in here. */
#include <string.h>

#include "cb_testing.h"
#include "nccl_common.h"

static int ok(int nranks, int version, int fp8, cb_dtype_t dt, cb_redop_t op, char *why, size_t n) {
  cb_world_t w;
  memset(&w, 0, sizeof w);
  w.mpi.nranks = nranks;
  w.nccl_version = version;
  w.nccl_fp8 = fp8;
  w.cc_major = 9;
  cb_params_t p;
  memset(&p, 0, sizeof p);
  p.family = CB_ALLREDUCE;
  p.dtype = dt;
  p.op = op;
  p.count = 1024;
  why[0] = 0;
  return cb_nccl_supported(&w, &p, why, n);
}

int main(void) {
  char why[256];
  const cb_dtype_t fp8[] = {CB_FP8E4M3, CB_FP8E5M2};
  for (int i = 0; i < 2; i++) {
    CHECK_EQ_INT(ok(1, 22803, 1, fp8[i], CB_AVG, why, sizeof why), 0);
    CHECK_CONTAINS(why, "NCCL 2.28.3 refuses avg of");
    CHECK_CONTAINS(why, cb_dtype_name(fp8[i]));
    CHECK_EQ_INT(ok(1, 22899, 1, fp8[i], CB_AVG, why, sizeof why), 0);
    /* the other ops, more ranks, a later NCCL */
    CHECK_EQ_INT(ok(1, 22803, 1, fp8[i], CB_SUM, why, sizeof why), 1);
    CHECK_EQ_INT(ok(1, 22803, 1, fp8[i], CB_MAX, why, sizeof why), 1);
    CHECK_EQ_INT(ok(1, 22803, 1, fp8[i], CB_MIN, why, sizeof why), 1);
    CHECK_EQ_INT(ok(2, 22803, 1, fp8[i], CB_AVG, why, sizeof why), 1);
    CHECK_EQ_INT(ok(8, 22803, 1, fp8[i], CB_AVG, why, sizeof why), 1);
    CHECK_EQ_INT(ok(1, 22900, 1, fp8[i], CB_AVG, why, sizeof why), 1);
    /* no fp8 in this NCCL or GPU: skipped, whatever the op */
    CHECK_EQ_INT(ok(2, 22300, 0, fp8[i], CB_SUM, why, sizeof why), 0);
    CHECK_CONTAINS(why, "skipped: NCCL 2.23.0");
  }
  const cb_dtype_t wide[] = {CB_FLOAT, CB_HALF, CB_BF16};
  for (int i = 0; i < 3; i++) CHECK_EQ_INT(ok(1, 22803, 1, wide[i], CB_AVG, why, sizeof why), 1);
  /* the integers and double: every op on any rank count, and NCCL's own type for each */
  static const struct {
    cb_dtype_t t;
    ncclDataType_t nccl;
  } map[] = {{CB_FLOAT, ncclFloat32}, {CB_HALF, ncclFloat16},  {CB_BF16, ncclBfloat16}, {CB_INT8, ncclInt8},
             {CB_UINT8, ncclUint8},   {CB_INT32, ncclInt32},   {CB_UINT32, ncclUint32}, {CB_INT64, ncclInt64},
             {CB_UINT64, ncclUint64}, {CB_DOUBLE, ncclFloat64}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
    CHECK_EQ_INT(cb_nccl_dtype(map[i].t), map[i].nccl);
    for (int op = 0; op < CB_NREDOPS; op++)
      for (int n = 1; n <= 8; n *= 2) CHECK_EQ_INT(ok(n, 22803, 0, map[i].t, (cb_redop_t)op, why, sizeof why), 1);
  }
  CHECK_EQ_INT(cb_nccl_dtype(CB_FP8E4M3), ncclFloat8e4m3);
  CHECK_EQ_INT(cb_nccl_dtype(CB_FP8E5M2), ncclFloat8e5m2);
  CHECK_EQ_INT(cb_nccl_op(CB_SUM), ncclSum);
  CHECK_EQ_INT(cb_nccl_op(CB_PROD), ncclProd);
  CHECK_EQ_INT(cb_nccl_op(CB_MAX), ncclMax);
  CHECK_EQ_INT(cb_nccl_op(CB_MIN), ncclMin);
  CHECK_EQ_INT(cb_nccl_op(CB_AVG), ncclAvg);
  return cb_test_finish("nccl_supported");
}
