/* MPI test on CPU ranks (no GPU) of every type and op (issue 43), run under mpirun -np 2, 3, 4:
 *
 *   parse    `-d all -o all` and nccl-tests' aliases give the same types and ops on every rank,
 *            in nccl-tests' order;
 *   plan     every classic family's plan() for every type at sizes that do and do not hold whole
 *            elements (8-byte types included): bytes, elements, the count column and the busbw
 *            factor as nccl-tests defines them, the refusals naming the reason, the same on
 *            every rank;
 *   values   each rank fills its input with the check's pattern (kernels/pattern.cuh) in the
 *            type, the ranks reduce it with MPI itself (MPI_Allreduce, MPI_Reduce_scatter_block,
 *            MPI_Allgather with MPI's own integer and floating types), and every element must
 *            equal the expected value the GPU check computes (kernels/check.cu cb_expected_host)
 *            bit for bit (avg of float and double: within the check's tolerance): an independent
 *            reduction confirming the expected values for the integers, double and float, every
 *            op (avg: MPI's sum divided as NCCL divides).
 *
 * Rank 0 prints "PASS dtypes (N ranks)" when every check holds on every rank. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cb_testing.h"
#include "check.h"
#include "mpi_testing.h"
#include "params.h"
#include "pattern.cuh"

static cb_args_t A;

static void test_parse(int nranks) {
  char err[512] = "";
  char *argv[] = {"collbench", "allreduce", "-d", "all", "-o", "all", NULL};
  CHECK(cb_args_parse(6, argv, &A, err, sizeof err) == CB_ARGS_OK, "parse: %s", err);
  int mine[2 + CB_NDTYPES + CB_NREDOPS] = {A.ndtypes, A.nops}, lo[2 + CB_NDTYPES + CB_NREDOPS],
                            hi[2 + CB_NDTYPES + CB_NREDOPS];
  for (int i = 0; i < A.ndtypes; i++) mine[2 + i] = A.dtypes[i];
  for (int i = 0; i < A.nops; i++) mine[2 + CB_NDTYPES + i] = A.ops[i];
  const int n = 2 + CB_NDTYPES + CB_NREDOPS;
  MPI_Allreduce(mine, lo, n, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(mine, hi, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(memcmp(lo, hi, sizeof lo) == 0, "ranks parsed -d all -o all differently (%d ranks)", nranks);
  CHECK_EQ_INT(A.ndtypes, CB_NDTYPES);
  CHECK_EQ_INT(A.nops, CB_NREDOPS);
  CHECK_EQ_INT(A.dtypes[0], CB_INT8);
  CHECK_EQ_INT(A.dtypes[8], CB_DOUBLE);
  CHECK_EQ_INT(A.ops[1], CB_PROD);
  char *argv2[] = {"collbench", "reducescatter", "-d", "int,uint,fp64,char", "-o", "prod", NULL};
  CHECK(cb_args_parse(6, argv2, &A, err, sizeof err) == CB_ARGS_OK, "parse aliases: %s", err);
  CHECK(A.ndtypes == 4 && A.dtypes[0] == CB_INT32 && A.dtypes[1] == CB_UINT32 && A.dtypes[2] == CB_DOUBLE &&
            A.dtypes[3] == CB_INT8,
        "aliases");
}

/* plan() of every classic family and type, against nccl-tests' definitions written out here */
static void test_plan(int nranks) {
  static const cb_family_t fams[] = {CB_ALLREDUCE, CB_ALLGATHER, CB_REDUCESCATTER, CB_ALLTOALL, CB_SENDRECV};
  static const int per_rank[] = {0, 1, 1, 1, 0};
  static const double busbw[] = {-2.0, -1.0, -1.0, -1.0, 1.0}; /* < 0: -k (n-1)/n */
  static const uint64_t sizes[] = {1, 8, 12, 24, 1032, 65544, 1048576, 2097160};
  for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++)
    for (int t = 0; t < CB_NDTYPES; t++)
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const cb_family_info_t *fi = cb_family_info(fams[f]);
        cb_params_t p;
        memset(&p, 0, sizeof p);
        p.family = fams[f];
        p.dtype = (cb_dtype_t)t;
        p.op = fi->reduces ? CB_SUM : CB_OP_NONE;
        p.point = sizes[s];
        char what[256], why[256] = "";
        int rc = fi->plan(&p, nranks, "eager", what, sizeof what, why, sizeof why);
        const uint64_t es = cb_dtype_size(t), elems = sizes[s] / es;
        const int whole = sizes[s] % es == 0, divides = !per_rank[f] || elems % (uint64_t)nranks == 0;
        CHECK_EQ_INT(p.bytes, sizes[s]);
        if (!whole || !divides) {
          CHECK(rc != 0, "%s %s %llu B planned", fi->name, cb_dtype_name(p.dtype), (unsigned long long)sizes[s]);
          CHECK_CONTAINS(why, whole ? "do not divide" : "not a whole number");
          continue;
        }
        CHECK(rc == 0, "%s %s %llu B: %s", fi->name, cb_dtype_name(p.dtype), (unsigned long long)sizes[s], why);
        CHECK_EQ_INT(p.elements, elems);
        CHECK_EQ_INT(p.count, per_rank[f] ? elems / (uint64_t)nranks : elems);
        CHECK_CONTAINS(what, cb_dtype_name(p.dtype));
        const double want = busbw[f] < 0 ? -busbw[f] * (nranks - 1) / (double)nranks : busbw[f];
        CHECK_NEAR(cb_busbw_factor(fams[f], nranks), want, 1e-12);
      }
}

static MPI_Datatype mpi_type(int t) {
  switch (t) {
  case CB_INT8: return MPI_INT8_T;
  case CB_UINT8: return MPI_UINT8_T;
  case CB_INT32: return MPI_INT32_T;
  case CB_UINT32: return MPI_UINT32_T;
  case CB_INT64: return MPI_INT64_T;
  case CB_UINT64: return MPI_UINT64_T;
  case CB_DOUBLE: return MPI_DOUBLE;
  default: return MPI_FLOAT;
  }
}

/* element i of buf (of type t) as long double, and v stored into it */
static long double get(int t, const void *buf, size_t i) {
  switch (t) {
  case CB_INT8: return ((const int8_t *)buf)[i];
  case CB_UINT8: return ((const uint8_t *)buf)[i];
  case CB_INT32: return ((const int32_t *)buf)[i];
  case CB_UINT32: return ((const uint32_t *)buf)[i];
  case CB_INT64: return ((const int64_t *)buf)[i];
  case CB_UINT64: return ((const uint64_t *)buf)[i];
  case CB_DOUBLE: return ((const double *)buf)[i];
  default: return ((const float *)buf)[i];
  }
}
static void put(int t, void *buf, size_t i, long long v) {
  switch (t) {
  case CB_INT8: ((int8_t *)buf)[i] = (int8_t)v; break;
  case CB_UINT8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
  case CB_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
  case CB_UINT32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
  case CB_INT64: ((int64_t *)buf)[i] = v; break;
  case CB_UINT64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
  case CB_DOUBLE: ((double *)buf)[i] = (double)v; break;
  default: ((float *)buf)[i] = (float)v;
  }
}

/* NCCL's avg from MPI's sum: the floating types divide, the integers truncate toward zero */
static long double avg_of(int t, long double sum, int n) {
  if (!cb_dtype_is_int(t)) return t == CB_DOUBLE ? (long double)((double)sum / n) : (long double)((float)sum / n);
  return (long double)((long long)sum / n);
}

/* exact, except avg of the floating types: within the check's tolerance (pattern.cuh) */
static int matches(int t, int op, int n, long double got, double want) {
  if (op == CB_AVG && !cb_dtype_is_int(t)) return fabsl(got - (long double)want) <= cb_check_tolerance(t, op, n);
  return got == (long double)want;
}

/* MPI's reduction out (n elements) against the check's expected values; the first mismatch */
static void check_reduced(cb_layout_t layout, int t, int op, const void *out, size_t n, size_t count, int rank,
                          int nranks, uint64_t seed, int iter) {
  for (size_t i = 0; i < n; i++) {
    long double got = op == CB_AVG ? avg_of(t, get(t, out, i), nranks) : get(t, out, i);
    double want = cb_expected_host(layout, t, op, i, count, rank, nranks, 0, seed, iter);
    if (!matches(t, op, nranks, got, want)) {
      CHECK(0, "layout %d %s %s element %zu: MPI %Lg, expected %g", (int)layout, cb_dtype_name(t), cb_redop_name(op), i,
            got, want);
      return;
    }
  }
  cb_test_checks++;
}

static void test_values(int rank, int nranks) {
  static const int types[] = {CB_INT8, CB_UINT8, CB_INT32, CB_UINT32, CB_INT64, CB_UINT64, CB_DOUBLE, CB_FLOAT};
  static const int ops[] = {CB_SUM, CB_PROD, CB_MAX, CB_MIN, CB_AVG};
  static const MPI_Op mpi_ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_SUM};
  const size_t count = 1031; /* per rank (reduce-scatter, allgather); allreduce: count * nranks */
  const uint64_t seed = 9;
  const int iter = 2;
  const size_t total = count * (size_t)nranks;
  unsigned char *in = malloc(total * 8), *out = malloc(total * 8);
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    const int t = types[k];
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
      const int op = ops[o];
      for (size_t i = 0; i < total; i++) put(t, in, i, cb_pattern_op_value(seed, rank, iter, i, t, nranks, op));
      MPI_Allreduce(in, out, (int)total, mpi_type(t), mpi_ops[o], MPI_COMM_WORLD);
      check_reduced(CB_LAYOUT_ALLREDUCE, t, op, out, total, total, rank, nranks, seed, iter);
      MPI_Reduce_scatter_block(in, out, (int)count, mpi_type(t), mpi_ops[o], MPI_COMM_WORLD);
      check_reduced(CB_LAYOUT_REDUCESCATTER, t, op, out, count, count, rank, nranks, seed, iter);
    }
    /* the copying layouts use the sum pattern */
    for (size_t i = 0; i < count; i++) put(t, in, i, cb_pattern_op_value(seed, rank, iter, i, t, nranks, CB_SUM));
    MPI_Allgather(in, (int)count, mpi_type(t), out, (int)count, mpi_type(t), MPI_COMM_WORLD);
    check_reduced(CB_LAYOUT_ALLGATHER, t, CB_SUM, out, total, count, rank, nranks, seed, iter);
  }
  free(in);
  free(out);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  test_parse(nranks);
  test_plan(nranks);
  test_values(rank, nranks);
  int rc = cb_mpi_test_finish(rank, nranks, "dtypes");
  MPI_Finalize();
  return rc;
}
