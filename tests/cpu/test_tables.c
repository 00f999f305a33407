/* CPU test of the name and formula tables: base/dtype.c (data types, aliases, sizes,
 * reduction ops) and collectives/family.c (family names, properties, and the nccl-tests
 * bandwidth and count definitions). The expected bus-bandwidth factors and count columns are
 * written out here from nccl-tests' doc/PERFORMANCE.md, independently of family.c's table:
 *   allreduce 2(n-1)/n, count N;  allgather, reducescatter, alltoall (n-1)/n, count N/n;
 *   sendrecv 1, count N  (N = bytes / element size). */
#include <stdint.h>
#include <string.h>

#include "cb_testing.h"
#include "dtype.h"
#include "family.h"

static void test_dtypes(void) {
  static const struct {
    const char *name;
    cb_dtype_t t;
  } names[] = {
      {"float", CB_FLOAT},        {"fp32", CB_FLOAT},         {"float32", CB_FLOAT},   {"FLOAT", CB_FLOAT},
      {"half", CB_HALF},          {"fp16", CB_HALF},          {"float16", CB_HALF},    {"Half", CB_HALF},
      {"bfloat16", CB_BF16},      {"bf16", CB_BF16},          {"BF16", CB_BF16},       {"fp8e4m3", CB_FP8E4M3},
      {"e4m3", CB_FP8E4M3},       {"float8e4m3", CB_FP8E4M3}, {"fp8e5m2", CB_FP8E5M2}, {"e5m2", CB_FP8E5M2},
      {"float8e5m2", CB_FP8E5M2},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    cb_dtype_t t = CB_NDTYPES;
    CHECK(cb_dtype_parse(names[i].name, &t) == 0 && t == names[i].t, "cb_dtype_parse('%s') -> %d, expected %d",
          names[i].name, (int)t, (int)names[i].t);
  }
  const char *bad[] = {"",       "double", "float64", "int8",   "int32", "fp8",
                       "e4m3fn", "bfloat", "floa",    "float ", " half", "none"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cb_dtype_t t = CB_HALF;
    CHECK(cb_dtype_parse(bad[i], &t) == -1, "cb_dtype_parse('%s') accepted", bad[i]);
    CHECK(t == CB_HALF, "cb_dtype_parse('%s') wrote the output on failure", bad[i]);
  }
  static const size_t sizes[CB_NDTYPES] = {4, 2, 2, 1, 1};
  static const char *canon[CB_NDTYPES] = {"float", "half", "bfloat16", "fp8e4m3", "fp8e5m2"};
  for (int t = 0; t < CB_NDTYPES; t++) {
    CHECK_EQ_INT(cb_dtype_size((cb_dtype_t)t), sizes[t]);
    CHECK_EQ_STR(cb_dtype_name((cb_dtype_t)t), canon[t]);
    cb_dtype_t back;
    CHECK(cb_dtype_parse(cb_dtype_name((cb_dtype_t)t), &back) == 0 && back == (cb_dtype_t)t, "name round trip %d", t);
    CHECK_CONTAINS(cb_dtype_accepted(), canon[t]);
    CHECK_EQ_INT(cb_dtype_is_fp8((cb_dtype_t)t), t == CB_FP8E4M3 || t == CB_FP8E5M2);
  }
  CHECK_EQ_STR(cb_dtype_name(CB_NDTYPES), "?");
  CHECK_EQ_INT(cb_dtype_size(CB_NDTYPES), 0);
  CHECK_EQ_STR(cb_dtype_name((cb_dtype_t)-1), "?");
}

static void test_redops(void) {
  static const char *canon[CB_NREDOPS] = {"sum", "max", "min", "avg"};
  for (int op = 0; op < CB_NREDOPS; op++) {
    cb_redop_t got = CB_OP_NONE;
    CHECK(cb_redop_parse(canon[op], &got) == 0 && got == (cb_redop_t)op, "cb_redop_parse('%s')", canon[op]);
    CHECK_EQ_STR(cb_redop_name((cb_redop_t)op), canon[op]);
    CHECK_CONTAINS(cb_redop_accepted(), canon[op]);
  }
  cb_redop_t got = CB_OP_NONE;
  CHECK(cb_redop_parse("SUM", &got) == 0 && got == CB_SUM, "case-insensitive op names");
  const char *bad[] = {"", "none", "prod", "product", "mean", "average", "su", "sum "};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK(cb_redop_parse(bad[i], &got) == -1, "cb_redop_parse('%s') accepted", bad[i]);
  CHECK_EQ_STR(cb_redop_name(CB_OP_NONE), "none");
  CHECK_EQ_STR(cb_redop_name((cb_redop_t)(CB_OP_NONE + 1)), "?");
}

static void test_family_names(void) {
  static const char *canon[CB_NFAMILIES] = {"allreduce", "allgather", "reducescatter", "alltoall",
                                            "sendrecv",  "moe",       "ringattn",      "alltoallv"};
  for (int f = 0; f < CB_NFAMILIES; f++) {
    cb_family_t got = CB_NFAMILIES;
    CHECK(cb_family_parse(canon[f], &got) == 0 && got == (cb_family_t)f, "cb_family_parse('%s')", canon[f]);
    CHECK_EQ_STR(cb_family_name((cb_family_t)f), canon[f]);
    CHECK_EQ_STR(cb_family_info((cb_family_t)f)->name, canon[f]);
    char names[256];
    CHECK_CONTAINS(cb_family_accepted(", ", names, sizeof names), canon[f]);
  }
  cb_family_t got;
  CHECK(cb_family_parse("ALLTOALL", &got) == 0 && got == CB_ALLTOALL, "case-insensitive family names");
  const char *bad[] = {"", "all", "allreduc", "all_reduce", "all-reduce", "broadcast", "reduce", "ring_attn"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK(cb_family_parse(bad[i], &got) == -1, "cb_family_parse('%s') accepted", bad[i]);
  CHECK(cb_family_info(CB_NFAMILIES) == NULL, "info past the table");
  CHECK_EQ_STR(cb_family_name(CB_NFAMILIES), "?");

  /* properties the CLI and the bench rely on */
  static const struct {
    cb_family_t f;
    int reduces, inplace, per_rank;
    const char *points; /* the sweep option ("" for bytes: -b/-e/-f/-i/--sizes) */
  } props[] = {
      {CB_ALLREDUCE, 1, 1, 0, ""},   {CB_ALLGATHER, 0, 1, 1, ""}, {CB_REDUCESCATTER, 1, 1, 1, ""},
      {CB_ALLTOALL, 0, 0, 1, ""},    {CB_SENDRECV, 0, 0, 0, ""},  {CB_MOE, 0, 0, 0, "tokens"},
      {CB_RINGATTN, 0, 0, 0, "seq"}, {CB_ALLTOALLV, 0, 0, 0, ""},
  };
  for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
    const cb_family_info_t *fi = cb_family_info(props[i].f);
    CHECK(fi->reduces == props[i].reduces, "%s reduces %d", fi->name, fi->reduces);
    CHECK(fi->has_inplace == props[i].inplace, "%s has_inplace %d", fi->name, fi->has_inplace);
    CHECK(fi->count_per_rank == props[i].per_rank, "%s count_per_rank %d", fi->name, fi->count_per_rank);
    CHECK_EQ_STR(fi->points ? fi->points->option : "", props[i].points);
  }
}

/* What the engine and the command line take from every describer (family.h) without asking:
 * a plan, an NVTX letter, a configuration that fits the arguments' room with its defaults and
 * option parser, options that fit the `given` bits, metrics that fit cb_inst_t, variants with
 * their NVTX suffixes, and no option name twice in one family. */
static void test_describers(void) {
  for (int f = 0; f < CB_NFAMILIES; f++) {
    const cb_family_info_t *fi = cb_family_info((cb_family_t)f);
    CHECK(fi->plan != NULL, "%s has no plan()", fi->name);
    CHECK(fi->nvtx_letter == 'B' || fi->nvtx_letter == 'T' || fi->nvtx_letter == 'S', "%s NVTX letter '%c'", fi->name,
          fi->nvtx_letter);
    CHECK(fi->config_size <= CB_FAMILY_CONFIG_MAX, "%s config %zu bytes", fi->name, fi->config_size);
    CHECK(!fi->config_size || fi->defaults, "%s has a configuration but no defaults()", fi->name);
    CHECK(!fi->nopts || (fi->option && fi->config_size), "%s has options but no option() or configuration", fi->name);
    CHECK(fi->nopts >= 0 && fi->nopts <= 32, "%s: %d options do not fit the given bits", fi->name, fi->nopts);
    CHECK(fi->nmetrics >= 0 && fi->nmetrics <= CB_MAX_METRICS, "%s: %d metrics", fi->name, fi->nmetrics);
    CHECK(!fi->nmetrics || fi->metrics, "%s declares metrics without their table", fi->name);
    CHECK(fi->nvariants <= 1 || fi->nvtx_variant, "%s: %d variants without NVTX suffixes", fi->name, fi->nvariants);
    CHECK(!fi->points || (fi->points->first >= fi->points->min && fi->points->last <= fi->points->max),
          "%s: default sweep outside its values", fi->name);
    for (int i = 0; i < fi->nopts; i++)
      for (int j = 0; j < i; j++)
        CHECK(strcmp(fi->opts[i].name, fi->opts[j].name) != 0, "%s: --%s twice", fi->name, fi->opts[i].name);
  }
}

/* nccl-tests' busbw factors, written independently of family.c. */
static double reference_factor(cb_family_t f, int n) {
  switch (f) {
  case CB_ALLREDUCE: return 2.0 * (n - 1) / n;
  case CB_ALLGATHER:
  case CB_REDUCESCATTER:
  case CB_ALLTOALL:
  case CB_ALLTOALLV: return (double)(n - 1) / n; /* alltoallv: nccl-tests' AlltoAllvGetBw */
  case CB_SENDRECV: return 1.0;
  case CB_MOE: return 1.0;      /* moe: busbw = algbw (family.h) */
  case CB_RINGATTN: return 1.0; /* ringattn: busbw = algbw (family.h) */
  default: return -1.0;
  }
}

static void test_busbw(void) {
  int ns[] = {1, 2, 3, 4, 8, 16, 72};
  for (int f = 0; f < CB_NFAMILIES; f++)
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
      double got = cb_busbw_factor((cb_family_t)f, ns[i]), want = reference_factor((cb_family_t)f, ns[i]);
      CHECK(fabs(got - want) < 1e-12, "busbw factor %s n=%d: %.15g, expected %.15g", cb_family_name((cb_family_t)f),
            ns[i], got, want);
    }
  /* the literal values for the rank counts users run */
  CHECK_NEAR(cb_busbw_factor(CB_ALLREDUCE, 1), 0.0, 1e-15);
  CHECK_NEAR(cb_busbw_factor(CB_ALLREDUCE, 2), 1.0, 1e-15);
  CHECK_NEAR(cb_busbw_factor(CB_ALLREDUCE, 4), 1.5, 1e-15);
  CHECK_NEAR(cb_busbw_factor(CB_ALLREDUCE, 8), 1.75, 1e-15);
  CHECK_NEAR(cb_busbw_factor(CB_ALLGATHER, 2), 0.5, 1e-15);
  CHECK_NEAR(cb_busbw_factor(CB_REDUCESCATTER, 4), 0.75, 1e-15);
  CHECK_NEAR(cb_busbw_factor(CB_ALLTOALL, 8), 0.875, 1e-15);
  CHECK_NEAR(cb_busbw_factor(CB_ALLTOALL, 1), 0.0, 1e-15);
  CHECK_NEAR(cb_busbw_factor(CB_SENDRECV, 1), 1.0, 1e-15);
  CHECK_NEAR(cb_busbw_factor(CB_SENDRECV, 8), 1.0, 1e-15);
  CHECK_NEAR(cb_busbw_factor(CB_MOE, 8), 1.0, 1e-15);
  /* nonsense input gives 0, not a division by zero */
  CHECK(cb_busbw_factor(CB_ALLREDUCE, 0) == 0.0, "n=0");
  CHECK(cb_busbw_factor(CB_NFAMILIES, 4) == 0.0, "unknown family");
}

static void expect_count(cb_family_t f, size_t bytes, size_t esize, int n, size_t want_elems, size_t want_count) {
  size_t elems = 0, count = 0;
  char why[256] = "";
  int rc = cb_family_count(f, bytes, esize, n, &elems, &count, why, sizeof why);
  CHECK(rc == 0 && elems == want_elems && count == want_count,
        "%s %zu B x%zu n=%d: rc %d elements %zu count %zu, expected %zu %zu (%s)", cb_family_name(f), bytes, esize, n,
        rc, elems, count, want_elems, want_count, why);
}

static void expect_count_error(cb_family_t f, size_t bytes, size_t esize, int n, const char *sub) {
  size_t elems = 99, count = 99;
  char why[256] = "";
  int rc = cb_family_count(f, bytes, esize, n, &elems, &count, why, sizeof why);
  CHECK(rc == -1, "%s %zu B x%zu n=%d accepted (count %zu)", cb_family_name(f), bytes, esize, n, count);
  if (sub) CHECK_CONTAINS(why, sub);
}

static void test_counts(void) {
  int ns[] = {1, 2, 4, 8};
  for (size_t i = 0; i < 4; i++) {
    int n = ns[i];
    size_t bytes = 1 << 20; /* 1 MiB of float: N = 262144 */
    size_t N = bytes / 4;
    expect_count(CB_ALLREDUCE, bytes, 4, n, N, N);
    expect_count(CB_ALLGATHER, bytes, 4, n, N, N / n);
    expect_count(CB_REDUCESCATTER, bytes, 4, n, N, N / n);
    expect_count(CB_ALLTOALL, bytes, 4, n, N, N / n);
    expect_count(CB_SENDRECV, bytes, 4, n, N, N);
    expect_count(CB_ALLREDUCE, 2, 2, n, 1, 1); /* a single bf16 element */
    expect_count(CB_SENDRECV, 1, 1, n, 1, 1);
    expect_count(CB_ALLREDUCE, 0, 4, n, 0, 0);
    expect_count(CB_ALLTOALL, 0, 4, n, 0, 0);
  }
  /* allreduce and sendrecv take any element count; per-rank families need N divisible by n */
  expect_count(CB_ALLREDUCE, 12, 4, 8, 3, 3);
  expect_count(CB_SENDRECV, 12, 4, 8, 3, 3);
  expect_count(CB_ALLGATHER, 24, 4, 3, 6, 2);
  expect_count(CB_ALLTOALL, 8, 1, 8, 8, 1);
  expect_count_error(CB_ALLGATHER, 12, 4, 8, "3 elements");
  expect_count_error(CB_REDUCESCATTER, 12, 4, 2, "3 elements");
  expect_count_error(CB_ALLTOALL, 4, 1, 8, "8 ranks");
  expect_count_error(CB_ALLTOALL, 6, 2, 2, "3 elements");
  /* sizes that are not whole elements */
  expect_count_error(CB_ALLREDUCE, 6, 4, 1, "6 B");
  expect_count_error(CB_SENDRECV, 3, 2, 1, "3 B");
  expect_count_error(CB_ALLGATHER, 1030, 4, 2, "1030 B");
  /* nonsense arguments */
  expect_count_error(CB_ALLREDUCE, 8, 0, 2, NULL);
  expect_count_error(CB_ALLREDUCE, 8, 4, 0, NULL);
  expect_count_error(CB_NFAMILIES, 8, 4, 2, NULL);
}

/* Sizes past the 1 TiB collbench can allocate are a row error before any GPU work: 2^63 B of
 * float once became a 2^61-element count whose buffer products overflowed. */
static void test_counts_past_allocatable(void) {
  expect_count(CB_ALLREDUCE, (size_t)1 << 40, 4, 2, (size_t)1 << 38, (size_t)1 << 38);
  expect_count_error(CB_ALLREDUCE, (size_t)1 << 63, 4, 2, "1 TiB");
  expect_count_error(CB_ALLREDUCE, (size_t)18446744073709551488ull, 4, 1, "1 TiB");
  expect_count_error(CB_ALLTOALL, ((size_t)1 << 40) + 8, 1, 8, "1 TiB");
}

int main(void) {
  test_dtypes();
  test_redops();
  test_family_names();
  test_describers();
  test_busbw();
  test_counts();
  test_counts_past_allocatable();
  return cb_test_finish("test_tables");
}
