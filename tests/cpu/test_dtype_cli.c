/* CPU test of the type and op values of the command line (launcher/args_values.c) and of the
 * family's type set (collectives/family.c): `-d all` gives every type the family takes in
 * nccl-tests' -d all order (moe and ringattn: their own two), `-o all` every op in nccl-tests'
 * order, nccl-tests' and NCCL's names and aliases reach the same types, a repeated type or op
 * is refused naming it, a later -d replaces an earlier `all`, and an --algo list that lacks
 * some of the family's types is refused with one line naming the types it takes. */
#include <stdarg.h>
#include <string.h>

#include "args.h"
#include "cb_testing.h"

static cb_args_t A;
static char err[1024];

/* Parses "collbench" followed by the arguments (NULL-terminated). */
static int parse(const char *first, ...) {
  char *argv[16] = {"collbench"};
  int argc = 1;
  va_list ap;
  va_start(ap, first);
  for (const char *a = first; a && argc < 15; a = va_arg(ap, const char *)) argv[argc++] = (char *)a;
  va_end(ap);
  argv[argc] = NULL;
  memset(err, 0, sizeof err);
  return cb_args_parse(argc, argv, &A, err, sizeof err);
}
#define PARSE(...) parse(__VA_ARGS__, (const char *)NULL)

static void test_all_dtypes(void) {
  static const cb_dtype_t nccl_order[] = {CB_INT8, CB_UINT8, CB_INT32,  CB_UINT32, CB_INT64,   CB_UINT64,
                                          CB_HALF, CB_FLOAT, CB_DOUBLE, CB_BF16,   CB_FP8E4M3, CB_FP8E5M2};
  static const char *classic[] = {"allreduce", "allgather", "reducescatter", "alltoall", "sendrecv"};
  for (size_t f = 0; f < sizeof classic / sizeof classic[0]; f++) {
    CHECK(PARSE(classic[f], "-d", "all") == CB_ARGS_OK, "%s -d all: %s", classic[f], err);
    CHECK_EQ_INT(A.ndtypes, CB_NDTYPES);
    CHECK_EQ_INT(A.dtypes_all, 1);
    for (int i = 0; i < A.ndtypes && i < CB_NDTYPES; i++) CHECK_EQ_INT(A.dtypes[i], nccl_order[i]);
  }
  CHECK(PARSE("moe", "-d", "all") == CB_ARGS_OK, "moe -d all: %s", err);
  CHECK_EQ_INT(A.ndtypes, 2);
  CHECK_EQ_INT(A.dtypes[0], CB_BF16);
  CHECK_EQ_INT(A.dtypes[1], CB_FP8E4M3);
  CHECK(PARSE("ringattn", "-d", "ALL") == CB_ARGS_OK, "ringattn -d ALL: %s", err);
  CHECK_EQ_INT(A.ndtypes, 2);
  CHECK_EQ_INT(A.dtypes[0], CB_HALF);
  CHECK_EQ_INT(A.dtypes[1], CB_BF16);
  /* a later -d replaces the list, and with it `all` */
  CHECK(PARSE("allreduce", "-d", "all", "-d", "int64") == CB_ARGS_OK, "%s", err);
  CHECK_EQ_INT(A.ndtypes, 1);
  CHECK_EQ_INT(A.dtypes[0], CB_INT64);
  CHECK_EQ_INT(A.dtypes_all, 0);
  /* all and a type it holds: given twice */
  CHECK(PARSE("allreduce", "-d", "all,uint") == CB_ARGS_ERROR, "all,uint accepted");
  CHECK_CONTAINS(err, "'uint' given twice");
  CHECK(PARSE("allreduce", "-d", "int32,int") == CB_ARGS_ERROR, "int32,int accepted");
  CHECK_CONTAINS(err, "'int' given twice");
  /* moe and ringattn refuse the integers by name */
  CHECK(PARSE("moe", "-d", "uint8") == CB_ARGS_ERROR, "moe uint8 accepted");
  CHECK_CONTAINS(err, "uint8");
  CHECK(PARSE("ringattn", "-d", "int64") == CB_ARGS_ERROR, "ringattn int64 accepted");
  CHECK_CONTAINS(err, "int64");
}

static void test_aliases(void) {
  static const struct {
    const char *name;
    cb_dtype_t t;
  } names[] = {{"int", CB_INT32},     {"uint", CB_UINT32}, {"char", CB_INT8},      {"fp16", CB_HALF},
               {"bf16", CB_BF16},     {"fp64", CB_DOUBLE}, {"f8e4m3", CB_FP8E4M3}, {"f8e5m2", CB_FP8E5M2},
               {"int8", CB_INT8},     {"uint8", CB_UINT8}, {"int64", CB_INT64},    {"uint64", CB_UINT64},
               {"double", CB_DOUBLE}, {"float", CB_FLOAT}, {"half", CB_HALF},      {"bfloat16", CB_BF16}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    CHECK(PARSE("allreduce", "-d", names[i].name) == CB_ARGS_OK, "-d %s: %s", names[i].name, err);
    CHECK(A.ndtypes == 1 && A.dtypes[0] == names[i].t, "-d %s -> %d", names[i].name, (int)A.dtypes[0]);
  }
  CHECK(PARSE("allreduce", "-d", "int16") == CB_ARGS_ERROR, "int16 accepted");
  CHECK_CONTAINS(err, "'int16'");
  CHECK_CONTAINS(err, "uint64");
}

static void test_all_ops(void) {
  static const cb_redop_t nccl_order[] = {CB_SUM, CB_PROD, CB_MAX, CB_MIN, CB_AVG};
  CHECK(PARSE("allreduce", "-o", "all") == CB_ARGS_OK, "-o all: %s", err);
  CHECK_EQ_INT(A.nops, CB_NREDOPS);
  for (int i = 0; i < A.nops && i < CB_NREDOPS; i++) CHECK_EQ_INT(A.ops[i], nccl_order[i]);
  CHECK(PARSE("reducescatter", "-o", "prod") == CB_ARGS_OK, "-o prod: %s", err);
  CHECK(A.nops == 1 && A.ops[0] == CB_PROD, "prod");
  CHECK(PARSE("allreduce", "-o", "sum,all") == CB_ARGS_ERROR, "sum,all accepted");
  CHECK_CONTAINS(err, "given twice");
  CHECK(PARSE("alltoall", "-o", "all") == CB_ARGS_ERROR, "alltoall -o all accepted");
  CHECK_CONTAINS(err, "takes no reduction op");
  CHECK(PARSE("allreduce", "-o", "mulsum") == CB_ARGS_ERROR, "mulsum accepted");
  CHECK_CONTAINS(err, "'mulsum'");
}

static void test_family_types(void) {
  const unsigned every = (1u << CB_NDTYPES) - 1u;
  CHECK_EQ_INT(cb_family_dtype_mask(CB_ALLREDUCE), every);
  CHECK_EQ_INT(cb_family_dtype_mask(CB_MOE), (1u << CB_BF16) | (1u << CB_FP8E4M3));
  CHECK_EQ_INT(cb_family_dtype_mask(CB_RINGATTN), (1u << CB_BF16) | (1u << CB_HALF));
  char why[512] = "";
  CHECK_EQ_INT(cb_family_check_all_dtypes(CB_ALLREDUCE, every, "nccl", 1, why, sizeof why), 0);
  CHECK_EQ_INT(cb_family_check_all_dtypes(CB_MOE, (1u << CB_BF16) | (1u << CB_FP8E4M3), "peer", 1, why, sizeof why), 0);
  const unsigned floats = (1u << CB_FLOAT) | (1u << CB_HALF) | (1u << CB_BF16);
  CHECK_EQ_INT(cb_family_check_all_dtypes(CB_ALLREDUCE, floats, "a, b", 2, why, sizeof why), -1);
  CHECK_CONTAINS(why, "-d all: --algo a, b take only float, half, bfloat16 (not fp8e4m3, fp8e5m2, int8");
  CHECK_CONTAINS(why, "double)");
  CHECK(strchr(why, '\n') == NULL, "one line");
}

int main(void) {
  test_all_dtypes();
  test_aliases();
  test_all_ops();
  test_family_types();
  return cb_test_finish("test_dtype_cli");
}
