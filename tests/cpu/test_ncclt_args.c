/* The nccl-tests drop-in's command line (launcher/ncclt_args.c): every nccl-tests 2.19 flag
 * translated into collbench's arguments, or refused with one line naming the flag; nccl-tests'
 * defaults passed explicitly; the NCCL_TESTS_* variables; the binary names. The collbench
 * command lines it makes are parsed again by collbench's own parser (cb_args_parse) where the
 * options exist in this build. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cb_testing.h"
#include "ncclt_args.h"
#include "sweep_order.h"

/* The environment of one case: NAME=value pairs. */
static const char *g_env[8];
static const char *fake_getenv(const char *name) {
  size_t len = strlen(name);
  for (int i = 0; g_env[i]; i++)
    if (strncmp(g_env[i], name, len) == 0 && g_env[i][len] == '=') return g_env[i] + len + 1;
  return NULL;
}

static cb_ncclt_opts_t g_o;
static char g_err[1024];
static char g_joined[4096];

/* Translates binary + NULL-terminated arguments; the result code, collbench's line joined. */
static int tr(const char *binary, ...) {
  char *argv[64];
  int argc = 0;
  argv[argc++] = (char *)binary;
  va_list ap;
  va_start(ap, binary);
  for (const char *a; (a = va_arg(ap, const char *));) argv[argc++] = (char *)a;
  va_end(ap);
  argv[argc] = NULL;
  int rc = cb_ncclt_translate(argc, argv, fake_getenv, &g_o, g_err, sizeof g_err);
  g_joined[0] = 0;
  if (rc == CB_NCCLT_OK)
    for (int i = 0; i < g_o.argc; i++) {
      strcat(g_joined, i ? " " : "");
      strcat(g_joined, g_o.argv[i]);
    }
  return rc;
}

#define OK(...) CHECK_EQ_INT(tr(__VA_ARGS__, NULL), CB_NCCLT_OK)
/* refused: one line naming what */
#define REFUSED(want, ...)                                    \
  do {                                                        \
    CHECK_EQ_INT(tr(__VA_ARGS__, NULL), CB_NCCLT_ERROR);      \
    CHECK_CONTAINS(g_err, want);                              \
    CHECK(!strchr(g_err, '\n'), "not one line: '%s'", g_err); \
  } while (0)

/* collbench's own parser takes the translated line. */
static void parses(void) {
  static cb_args_t a;
  char err[1024];
  int rc = cb_args_parse(g_o.argc, g_o.argv, &a, err, sizeof err);
  CHECK(rc == CB_ARGS_OK, "collbench refuses '%s': %s", g_joined, err);
}

static void defaults_and_sizes(void) {
  OK("all_reduce_perf");
  CHECK_EQ_STR(g_joined, "collbench allreduce -b 33554432 -e 33554432 -i 1048576 -n 20 -w 1 -c 1 -o sum --algo nccl");
  parses();
  CHECK_EQ_INT(g_o.ngpus, 1);
  CHECK_NEAR(g_o.min_bw, -1, 0);
  OK("/some/dir/all_gather_perf", "-b", "8", "-e", "128M", "-f", "2", "-g", "1");
  CHECK_EQ_STR(g_joined, "collbench allgather -b 8 -e 134217728 -f 2 -n 20 -w 1 -c 1 --algo nccl");
  parses();
  OK("reduce_scatter_perf", "--minbytes=1K", "--maxbytes", "1.5M", "--stepbytes=512", "-n", "5", "-w", "2", "-c", "0");
  CHECK_EQ_STR(g_joined, "collbench reducescatter -b 1024 -e 1572864 -i 512 -n 5 -w 2 -c 0 -o sum --algo nccl");
  parses();
  OK("sendrecv_perf", "-b8", "-e8", "-o", "max");
  CHECK_EQ_STR(g_joined, "collbench sendrecv -b 8 -e 8 -i 1048576 -n 20 -w 1 -c 1 --algo nccl");
  CHECK_EQ_STR(g_o.op, "max");
  parses();
  REFUSED("larger than -e", "all_reduce_perf", "-b", "1M", "-e", "1K");
  REFUSED("'1X'", "all_reduce_perf", "-b", "1X");
  REFUSED("'-8'", "all_reduce_perf", "-e", "-8");
  REFUSED("whole number of bytes", "all_reduce_perf", "-b", "1.3");
  REFUSED("larger than collbench plans", "all_reduce_perf", "-e", "2000G");
  REFUSED("never grows", "all_reduce_perf", "-b", "0", "-e", "8", "-f", "2");
  REFUSED("step must be > 0", "all_reduce_perf", "-i", "0");
  REFUSED("'0x10'", "all_reduce_perf", "-n", "0x10");
  REFUSED("'0'", "all_reduce_perf", "-n", "0");
  REFUSED("needs a value", "all_reduce_perf", "-b");
}

/* nccl-tests' line order: a whole sweep of sizes per type, op and root (--order types) when the
 * run has several; one of each passes nothing (both orders are the same). */
static void sweep_order(void) {
  OK("all_reduce_perf", "-d", "all");
  CHECK_CONTAINS(g_joined, " --order types ");
  parses();
  {
    static cb_args_t a;
    char err[1024];
    CHECK(cb_args_parse(g_o.argc, g_o.argv, &a, err, sizeof err) == CB_ARGS_OK && a.order == CB_ORDER_TYPES,
          "'%s' does not run in the types order", g_joined);
  }
  OK("all_reduce_perf", "-o", "all");
  CHECK_CONTAINS(g_joined, " --order types ");
  OK("broadcast_perf", "-r", "-1");
  CHECK_CONTAINS(g_joined, " --order types ");
  OK("all_reduce_perf", "-d", "half", "-o", "max", "-N", "3");
  CHECK(!strstr(g_joined, "--order"), "one type and op: '%s'", g_joined);
  OK("sendrecv_perf", "-o", "all"); /* sendrecv ignores -o: one op */
  CHECK(!strstr(g_joined, "--order"), "sendrecv -o all: '%s'", g_joined);
}

static void mapped_flags(void) {
  OK("all_reduce_perf", "-G", "10", "-I", "0");
  CHECK_CONTAINS(g_joined, " -G 10 "); /* collbench's own -G: the graph launched 10 times */
  CHECK(!strstr(g_joined, "--mode"), "-G 10 passes -G, not --mode: '%s'", g_joined);
  CHECK_EQ_INT(g_o.graph, 10);
  parses();
  {
    static cb_args_t a;
    char err[1024];
    CHECK_EQ_INT(cb_args_parse(g_o.argc, g_o.argv, &a, err, sizeof err), CB_ARGS_OK);
    CHECK_EQ_INT(a.modes, CB_MODE_GRAPH);
    CHECK_EQ_INT(a.graph_launches, 10);
  }
  OK("all_reduce_perf", "--cudagraph=1");
  CHECK_CONTAINS(g_joined, " -G 1 ");
  parses();
  OK("all_reduce_perf", "-G", "0"); /* nccl-tests' -G 0: no graph */
  CHECK(!strstr(g_joined, "-G") && !strstr(g_joined, "--mode"), "-G 0 is eager: '%s'", g_joined);
  parses();
  OK("all_reduce_perf", "-I", "1");
  CHECK_CONTAINS(g_joined, "--timing iter");
  parses();
  REFUSED("-I", "all_reduce_perf", "-I", "2");
  REFUSED("-G", "all_reduce_perf", "-G", "-1");
  for (int k = 0; k < 3; k++) {
    static const char *const v[] = {"0", "1", "2"}, *const want[] = {"--algo nccl", "--algo nccl_reg",
                                                                     "--algo nccl_symm"};
    OK("all_reduce_perf", "-R", v[k]);
    CHECK_CONTAINS(g_joined, want[k]);
    parses();
  }
  REFUSED("-R", "all_reduce_perf", "-R", "3");
  REFUSED("give one", "all_reduce_perf", "-R", "1", "--algo", "oneshot");
  REFUSED("give one", "all_reduce_perf", "--algo", "oneshot", "-R", "1");
  OK("all_reduce_perf", "--algo", "oneshot,nccl");
  CHECK_CONTAINS(g_joined, "--algo oneshot,nccl");
  CHECK(!strstr(g_joined, "--algo nccl "), "a second --algo: %s", g_joined);
  parses();
  OK("all_reduce_perf", "-T", "30", "--csv", "out.csv", "--json=out.json", "--seed", "7", "--no-bind", "--sms", "8");
  CHECK_CONTAINS(g_joined, "-T 30");
  CHECK_CONTAINS(g_joined, "--csv out.csv --json=out.json --seed 7 --no-bind --sms 8");
  parses();
  OK("all_reduce_perf", "-T", "0"); /* nccl-tests' "no timeout": collbench's watchdog default */
  CHECK(!strstr(g_joined, "-T"), "-T 0 passed on: %s", g_joined);
  OK("all_reduce_perf", "-d", "f8e4m3", "-o", "min");
  CHECK_CONTAINS(g_joined, "-d fp8e4m3");
  CHECK_CONTAINS(g_joined, "-o min");
  parses();
  OK("all_reduce_perf", "-d", "bfloat16", "-o", "avg", "-c", "5");
  parses();
  /* the i43flags options keep their letters (collbench parses them once that branch is in) */
  OK("all_reduce_perf", "-m", "4", "-N", "3", "-z", "1", "-a", "3", "-J", "r.json");
  CHECK_CONTAINS(g_joined, "-m 4 -N 3 -z 1");
  CHECK_CONTAINS(g_joined, "-a 3 -J r.json");
  OK("all_reduce_perf", "-m", "1", "-N", "1", "-z", "0", "-a", "1"); /* nccl-tests' defaults: nothing */
  CHECK(!strstr(g_joined, "-m") && !strstr(g_joined, "-N") && !strstr(g_joined, "-z") && !strstr(g_joined, " -a"),
        "defaults passed on: %s", g_joined);
  parses();
  REFUSED("-z", "all_reduce_perf", "-z", "4");
  REFUSED("-a", "all_reduce_perf", "-a", "7");
  REFUSED("empty file name", "all_reduce_perf", "-J", "");
  REFUSED("mulsum", "all_reduce_perf", "-o", "mulsum");
  REFUSED("'bogus'", "all_reduce_perf", "-o", "bogus");
}

static void default_only_flags(void) {
  static const char *const flags[][2] = {{"-t", "1"}, {"-p", "0"}, {"-y", "0"}, {"-C", "0"}, {"-S", "0"},
                                         {"-M", "0"}, {"-u", "0"}, {"-K", "0"}, {"-D", "0"}};
  static const char *const bad[] = {"2", "1", "1", "1", "1", "1", "4", "3", "1"};
  for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
    OK("all_reduce_perf", flags[k][0], flags[k][1]);
    parses();
    char want[16];
    snprintf(want, sizeof want, "%s %s", flags[k][0], bad[k]);
    REFUSED(want, "all_reduce_perf", flags[k][0], bad[k]);
    CHECK_CONTAINS(g_err, "default");
  }
  REFUSED("-x", "all_reduce_perf", "-x", "1");
  REFUSED("-V", "all_reduce_perf", "-V", "16");
  REFUSED("--cta_policy", "all_reduce_perf", "--cta_policy=0");
  REFUSED("unknown option '-q'", "all_reduce_perf", "-q", "1");
  REFUSED("unknown option '--minb'", "all_reduce_perf", "--minb", "8"); /* no getopt abbreviations */
  REFUSED("unexpected argument 'extra'", "all_reduce_perf", "extra");
  REFUSED("takes no value", "all_reduce_perf", "--help=1");
  CHECK_EQ_INT(tr("all_reduce_perf", "-h", NULL), CB_NCCLT_HELP);
  CHECK_EQ_INT(tr("all_reduce_perf", "--help", NULL), CB_NCCLT_HELP);
}

static void gpus_and_roots(void) {
  OK("all_reduce_perf", "-b", "8", "-g", "4", "-e", "8", "--ngpus=2");
  CHECK_EQ_INT(g_o.ngpus, 2);
  CHECK_EQ_INT(g_o.ngpus_args, 3); /* "-g" "4" and "--ngpus=2": argv 3, 4 and 7 */
  CHECK_EQ_INT(g_o.ngpus_at[0], 3);
  CHECK_EQ_INT(g_o.ngpus_at[1], 4);
  CHECK_EQ_INT(g_o.ngpus_at[2], 7);
  CHECK(!strstr(g_joined, "-g"), "-g passed on: %s", g_joined);
  REFUSED("-g", "all_reduce_perf", "-g", "0");
  REFUSED("-g", "all_reduce_perf", "-g", "99999");
  OK("all_reduce_perf", "-r", "0"); /* nccl-tests' default root, on any binary */
  REFUSED("has no root", "all_reduce_perf", "-r", "1");
  REFUSED("-r", "all_reduce_perf", "-r", "x");
}

static void environment(void) {
  g_env[0] = "NCCL_TESTS_MIN_BW=150.5";
  OK("all_reduce_perf");
  CHECK_NEAR(g_o.min_bw, 150.5, 1e-12);
  g_env[0] = "NCCL_TESTS_MIN_BW=fast";
  REFUSED("NCCL_TESTS_MIN_BW='fast'", "all_reduce_perf");
  g_env[0] = "NCCL_TESTS_MIN_BW=";
  REFUSED("NCCL_TESTS_MIN_BW", "all_reduce_perf");
  /* collbench's own bar: the drop-in's exit code and footer judge by NCCL_TESTS_MIN_BW only, so
   * CB_MIN_BUSBW would be ignored (while -J's "passed" read it) */
  g_env[0] = "CB_MIN_BUSBW=100";
  REFUSED("CB_MIN_BUSBW=100", "all_reduce_perf");
  CHECK_CONTAINS(g_err, "NCCL_TESTS_MIN_BW");
  g_env[0] = "CB_MIN_BUSBW=";
  REFUSED("CB_MIN_BUSBW", "all_reduce_perf");
  g_env[0] = "NCCL_TESTS_DEVICE=1";
  REFUSED("CUDA_VISIBLE_DEVICES", "all_reduce_perf");
  g_env[0] = "NCCL_TESTS_SPLIT_MASK=0x1";
  REFUSED("NCCL_TESTS_SPLIT", "all_reduce_perf");
  g_env[0] = "NCCL_TESTS_SPLIT=AND 1";
  REFUSED("NCCL_TESTS_SPLIT", "all_reduce_perf");
  g_env[0] = "CB_ALGO=oneshot,twoshot";
  OK("all_reduce_perf");
  CHECK_CONTAINS(g_joined, "--algo oneshot,twoshot");
  OK("all_reduce_perf", "--algo", "nccl"); /* --algo wins over CB_ALGO */
  CHECK(!strstr(g_joined, "oneshot"), "CB_ALGO over --algo: %s", g_joined);
  OK("all_reduce_perf", "-R", "2");
  CHECK(!strstr(g_joined, "oneshot") && strstr(g_joined, "nccl_symm"), "CB_ALGO over -R: %s", g_joined);
  g_env[0] = "CB_ALGO=";
  REFUSED("CB_ALGO", "all_reduce_perf");
  /* alltoallv's count variables matter to alltoallv_perf only */
  g_env[0] = "NCCL_TESTS_ALLTOALLV_SPREAD=0.5";
  OK("all_reduce_perf");
  CHECK(!strstr(g_joined, "spread"), "spread on all_reduce_perf: %s", g_joined);
  cb_family_t f;
  if (cb_family_parse("alltoallv", &f) == 0) { /* the family is in this build */
    OK("alltoallv_perf", "-b", "1M", "-e", "1M");
    CHECK_CONTAINS(g_joined, "--counts spread:0.5");
    parses();
    g_env[1] = "NCCL_TESTS_ALLTOALLV_MATRIX_FILE=m.txt"; /* the matrix wins, as in nccl-tests */
    OK("alltoallv_perf", "-b", "1M", "-e", "1M");
    CHECK_CONTAINS(g_joined, "--counts matrix:m.txt");
    CHECK(!strstr(g_joined, "spread"), "spread beside the matrix: %s", g_joined);
    REFUSED("-b and -e must be the same", "alltoallv_perf", "-b", "1K", "-e", "1M");
    g_env[0] = "NCCL_TESTS_ALLTOALLV_MATRIX_SCALE=1";
    OK("alltoallv_perf", "-b", "1M", "-e", "1M");
    g_env[0] = "NCCL_TESTS_ALLTOALLV_MATRIX_SCALE=1.00"; /* the default, spelt another way */
    OK("alltoallv_perf", "-b", "1M", "-e", "1M");
    g_env[0] = "NCCL_TESTS_ALLTOALLV_MATRIX_SCALE=1e0";
    OK("alltoallv_perf", "-b", "1M", "-e", "1M");
    g_env[0] = "NCCL_TESTS_ALLTOALLV_MATRIX_SCALE=one";
    REFUSED("MATRIX_SCALE=one", "alltoallv_perf", "-b", "1M", "-e", "1M");
    g_env[0] = "NCCL_TESTS_ALLTOALLV_MATRIX_SCALE=2";
    REFUSED("MATRIX_SCALE=2", "alltoallv_perf", "-b", "1M", "-e", "1M");
    g_env[0] = "NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY=1";
    REFUSED("PRINT_SUMMARY=1", "alltoallv_perf", "-b", "1M", "-e", "1M");
    g_env[0] = "NCCL_TESTS_ALLTOALLV_MATRIX_FILE=";
    g_env[1] = NULL;
    REFUSED("set but empty", "alltoallv_perf");
    /* a bad spread names the variable the user set, not collbench's --counts */
    const char *const bad_spreads[] = {"NCCL_TESTS_ALLTOALLV_SPREAD=abc",
                                       "NCCL_TESTS_ALLTOALLV_SPREAD=", "NCCL_TESTS_ALLTOALLV_SPREAD=1.5",
                                       "NCCL_TESTS_ALLTOALLV_SPREAD=-0.1", "NCCL_TESTS_ALLTOALLV_SPREAD=nan"};
    for (size_t i = 0; i < sizeof bad_spreads / sizeof bad_spreads[0]; i++) {
      g_env[0] = bad_spreads[i];
      REFUSED("NCCL_TESTS_ALLTOALLV_SPREAD=", "alltoallv_perf");
      CHECK(!strstr(g_err, "--counts"), "names --counts: %s", g_err);
    }
    g_env[0] = "NCCL_TESTS_ALLTOALLV_SPREAD=0";
    OK("alltoallv_perf");
    CHECK_CONTAINS(g_joined, "--counts spread:0");
    parses();
  }
  g_env[0] = g_env[1] = NULL;
}

/* Every binary: its family when this build has it, else one line saying it is not built. */
static void binaries(void) {
  int n = 0;
  for (const cb_ncclt_binary_t *b = cb_ncclt_binaries; b->name; b++, n++) {
    cb_family_t f;
    int rc = tr(b->name, "-b", "1M", "-e", "1M", NULL);
    if (cb_family_parse(b->family, &f) == 0) {
      CHECK(rc == CB_NCCLT_OK, "%s: %s", b->name, g_err);
      CHECK_EQ_STR(g_o.argv[1], b->family);
      CHECK_EQ_INT(!!strstr(g_joined, " -o "), b->redop == CB_NCCLT_REDOP_OP);
      CHECK_EQ_INT(!!strstr(g_joined, " -r "), b->rooted);
    } else {
      CHECK_EQ_INT(rc, CB_NCCLT_ERROR);
      CHECK_CONTAINS(g_err, "family is not in this build");
      CHECK_CONTAINS(g_err, b->name);
    }
  }
  CHECK_EQ_INT(n, 11);
  REFUSED("not an nccl-tests binary", "frobnicate_perf");
  REFUSED("all_reduce_perf, all_gather_perf", "x/y/frobnicate_perf");
  CHECK(cb_ncclt_perf_name("/a/b/all_reduce_perf") && !cb_ncclt_perf_name("collbench") &&
            !cb_ncclt_perf_name("_perf") && !cb_ncclt_perf_name("/x_perf/collbench"),
        "perf name detection");
}

int main(void) {
  defaults_and_sizes();
  sweep_order();
  mapped_flags();
  default_only_flags();
  gpus_and_roots();
  environment();
  binaries();
  return cb_test_finish("test_ncclt_args");
}
