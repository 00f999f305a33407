/* MPI test of the rooted families and hypercube on CPU ranks (no CUDA), started by
 * run_mpi_case.py under mpirun -np 2, 3 and 4: every rank parses the same command lines
 * (cb_args_parse), checks them against the real rank count (the describer's check_ranks, as
 * collbench does right after MPI_Init) and plans every sweep point and root (plan(), variant_on())
 * as the bench engine does. The expected size and count columns are written here from nccl-tests'
 * GetCollByteCount (src/broadcast.cu ... hypercube.cu), not taken from the code under test; every
 * rank must reach the same plans (an MPI_Allreduce of their sums). Rank 0 prints
 * "PASS rooted (N ranks)". */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cb_testing.h"
#include "error.h"
#include "mpi_testing.h"
#include "params.h"

static cb_args_t args; /* large: static */

static int parse(const char *line, char *err, size_t n) {
  char buf[512], *argv[32];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", line);
  for (char *t = strtok(buf, " "); t && argc < 32; t = strtok(NULL, " ")) argv[argc++] = t;
  return cb_args_parse(argc, argv, &args, err, n);
}

/* the verdict of collbench's rank-count check for this command line at nranks (0 = accepted) */
static int ranks_ok(int nranks, char *why, size_t n) {
  const cb_family_info_t *fi = cb_family_info(args.family);
  why[0] = 0;
  return !fi->check_ranks ||
         fi->check_ranks(cb_args_config_const(&args), nranks, args.dtypes, args.ndtypes, why, n) == 0;
}

/* nccl-tests' columns for size s of a 4-byte type at n ranks */
static void want_columns(cb_family_t f, unsigned long long s, int n, unsigned long long *bytes,
                         unsigned long long *count) {
  unsigned long long elems = s / 4;
  if (f == CB_BROADCAST || f == CB_REDUCE) {
    *bytes = s;
    *count = elems;
    return;
  }
  unsigned long long c = (elems / (unsigned long long)n) & ~3ull; /* 16 bytes of floats */
  *bytes = c * (unsigned long long)n * 4;
  *count = c;
}

int main(int argc, char **argv) {
  int provided = 0, rank = 0, n = 0;
  CB_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CB_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CB_MPI(MPI_Comm_size(MPI_COMM_WORLD, &n));
  char err[512], why[512], line[256];
  double sum = 0.0;

  static const char *const fams[] = {"broadcast", "reduce", "gather", "scatter", "hypercube"};
  for (size_t k = 0; k < sizeof fams / sizeof fams[0]; k++) {
    snprintf(line, sizeof line, "collbench %s -b 8 -e 1M -f 8", fams[k]);
    CHECK(parse(line, err, sizeof err) == CB_ARGS_OK, "'%s': %s", line, err);
    const cb_family_info_t *fi = cb_family_info(args.family);
    int hyper = args.family == CB_HYPERCUBE, pow2 = (n & (n - 1)) == 0;
    CHECK(ranks_ok(n, why, sizeof why) == (!hyper || pow2), "%s at %d ranks: '%s'", fams[k], n, why);
    if (hyper && !pow2) CHECK_CONTAINS(why, "power-of-two rank count (3 ranks)");
    for (int pt = 0; pt < args.npoints; pt++)
      for (int v = 0; v < (fi->nvariants > 0 ? fi->nvariants : 1); v++) {
        if (fi->variant_on && !fi->variant_on(cb_args_config_const(&args), v, n)) continue;
        CHECK(v == 0, "%s: default root %d ran", fams[k], v);
        cb_params_t p;
        memset(&p, 0, sizeof p);
        p.family = args.family;
        p.dtype = args.dtypes[0];
        p.op = args.ops[0];
        p.point = args.points[pt];
        p.variant = v;
        p.config = cb_args_config_const(&args);
        char what[256];
        unsigned long long wb, wc;
        want_columns(args.family, args.points[pt], n, &wb, &wc);
        /* a chunk that rounds to 0 (nccl-tests' empty row): the columns, and the row does not run */
        int rc = fi->plan(&p, n, "eager", what, sizeof what, why, sizeof why);
        CHECK(rc == (wc == 0 ? -1 : 0), "%s plan: %d '%s'", what, rc, why);
        CHECK(p.bytes == wb && p.count == wc, "%s -b %llu at %d ranks: size %llu count %zu, nccl-tests %llu %llu",
              fams[k], (unsigned long long)args.points[pt], n, (unsigned long long)p.bytes, p.count, wb, wc);
        sum += (double)p.bytes + (double)p.count;
      }
  }

  /* -r: each rank as root is accepted and runs alone; -r n is refused with its line; -r -1 walks
   * every rank once */
  for (int r = -1; r <= n; r++) {
    snprintf(line, sizeof line, "collbench reduce -r %d -b 64 -e 64", r);
    CHECK(parse(line, err, sizeof err) == CB_ARGS_OK, "'%s': %s", line, err);
    const cb_family_info_t *fi = cb_family_info(args.family);
    int ok = ranks_ok(n, why, sizeof why);
    CHECK(ok == (r < n), "-r %d at %d ranks: accepted %d ('%s')", r, n, ok, why);
    if (!ok) {
      char want[128];
      snprintf(want, sizeof want, "-r %d: the root must be a rank 0..%d (%d ranks)", r, n - 1, n);
      CHECK_CONTAINS(why, want);
      continue;
    }
    int ran = 0;
    for (int v = 0; v < fi->nvariants; v++)
      if (fi->variant_on(cb_args_config_const(&args), v, n)) {
        CHECK(r < 0 ? v == ran : v == r, "-r %d: root %d ran", r, v);
        ran++;
      }
    CHECK_EQ_INT(ran, r < 0 ? n : 1);
  }
  /* --root is the long form; -r where a family has no root names those that have one */
  CHECK(parse("collbench gather --root 1 -b 64 -e 64", err, sizeof err) == CB_ARGS_OK, "--root: %s", err);
  CHECK(parse("collbench allreduce -r 0", err, sizeof err) == CB_ARGS_ERROR, "allreduce -r 0 accepted");
  CHECK_CONTAINS(err, "-r: allreduce has no root; -r applies to broadcast, reduce, gather, scatter");
  CHECK(parse("collbench broadcast -r -2", err, sizeof err) == CB_ARGS_ERROR, "-r -2 accepted");
  CHECK_CONTAINS(err, "'-2' is not a root rank");
  CHECK(parse("collbench scatter -r x", err, sizeof err) == CB_ARGS_ERROR, "-r x accepted");

  /* every rank planned the same */
  double lo = 0.0, hi = 0.0;
  CB_MPI(MPI_Allreduce(&sum, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
  CB_MPI(MPI_Allreduce(&sum, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  CHECK(lo == hi && sum > 0.0, "plans differ between ranks: %g .. %g", lo, hi);

  int code = cb_mpi_test_finish(rank, n, "rooted");
  CB_MPI(MPI_Finalize());
  return code;
}
