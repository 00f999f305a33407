/* The alltoallv family (family.h): nccl-tests' alltoallv_perf, where every rank sends each peer
 * a different number of bytes. It sweeps bytes with -b/-e/-f/-i/--sizes as the classic families
 * do; --counts picks how a point becomes the per-peer counts (alltoallv_counts.h), --model and
 * --routing shape the moe and trace modes. The size and count columns and busbw are nccl-tests' (the size:
 * the largest per-rank send or receive total; busbw = algbw x (n-1)/n); the rows name the mode
 * in their counts column. */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "alltoallv_family.h"
#include "error.h"
#include "mpi_world.h"

enum { O_COUNTS, O_MODEL, O_ROUTING, O_COUNT };

static const cb_family_opt_t opts[O_COUNT] = {
    [O_COUNTS] = {"counts", 1},
    [O_MODEL] = {"model", 1},
    [O_ROUTING] = {"routing", 1},
};

static void defaults(void *config) { cb_a2av_config_defaults(config); }

static int option(void *config, int i, const char *arg, const char *val, char *err, size_t n) {
  cb_a2av_config_t *c = config;
  char why[256];
  switch (i) {
  case O_COUNTS: return cb_a2av_mode_parse(val, c, err, n);
  case O_MODEL:
    if (cb_moe_preset(val, &c->moe)) {
      snprintf(err, n, "--model: unknown model '%.64s' (accepted: %s)", val, cb_moe_presets_accepted());
      return -1;
    }
    return 0;
  default: /* O_ROUTING */
    if (cb_routing_parse(val, &c->moe.routing, why, sizeof why)) {
      snprintf(err, n, "--routing: %s", why);
      return -1;
    }
    return 0;
  }
}

/* the matrix file read (every rank reads it: the same file, the same verdict); its counts do
 * not follow the sweep, so one point, large enough for them (nccl-tests: -b = -e >= the largest
 * per-rank total) */
static int finish(cb_family_finish_t *f) {
  cb_a2av_config_t *c = f->config;
  if ((f->given & (1u << O_ROUTING)) && c->mode != CB_A2AV_MOE) {
    snprintf(f->err, f->errlen, "--routing shapes --counts moe only (a trace holds its own routing)");
    return -1;
  }
  if ((f->given & (1u << O_MODEL)) && c->mode != CB_A2AV_MOE && c->mode != CB_A2AV_TRACE) {
    snprintf(f->err, f->errlen, "--model shapes --counts moe and trace:FILE only");
    return -1;
  }
  if (cb_a2av_config_finish(c, f->err, f->errlen)) return -1;
  if (c->mode != CB_A2AV_MATRIX) return 0;
  uint64_t most = 0;
  cb_a2av_counts_t k;
  char why[256];
  if (cb_a2av_counts_make(c, 0, 1, c->matrix.dim, 0, &k, why, sizeof why)) {
    snprintf(f->err, f->errlen, "%s", why);
    return -1;
  }
  most = cb_a2av_size_bytes(&k);
  cb_a2av_counts_free(&k);
  if (most == 0) { /* every cell below 16 B: nothing to move at any size */
    snprintf(
        f->err, f->errlen,
        "--counts matrix file '%s': every value is below 16 B, and nccl-tests' blocks are whole multiples of 16 B: "
        "nothing to move",
        c->path);
    return -1;
  }
  if (f->npoints != 1 || f->points[0] < most) {
    snprintf(f->err, f->errlen,
             "--counts matrix:FILE sets every count from the file: give one size of at least %llu B, its largest "
             "per-rank total (-b %llu -e %llu, as nccl-tests)",
             (unsigned long long)most, (unsigned long long)most, (unsigned long long)most);
    return -1;
  }
  return 0;
}

/* The lowest rank whose files' digest differs from rank 0's, or -1 (collective over comm). */
static int rank_reading_other_counts(const cb_a2av_config_t *c, MPI_Comm comm) {
  int rank = 0;
  CB_MPI(MPI_Comm_rank(comm, &rank));
  uint64_t mine = cb_a2av_config_digest(c), first = mine;
  CB_MPI(MPI_Bcast(&first, 1, MPI_UINT64_T, 0, comm));
  int me = mine != first ? rank : INT_MAX, lowest = INT_MAX;
  CB_MPI(MPI_Allreduce(&me, &lowest, 1, MPI_INT, MPI_MIN, comm));
  return lowest == INT_MAX ? -1 : lowest;
}

/* Every rank read the files itself (finish): ranks that read other bytes (a file rewritten
 * between their reads, a relative path under another working folder) would plan transfers of
 * other sizes and wait on each other, and a verdict on one rank alone would leave the others
 * waiting. So, on every rank under MPI: the same bytes, then one verdict (the lowest failing
 * rank's line). Called on every rank at the same point (launcher/main.c world_phase). */
static int check_ranks(const void *config, int nranks, const cb_dtype_t *dtypes, int ndtypes, char *why, size_t n) {
  (void)dtypes;
  (void)ndtypes;
  const cb_a2av_config_t *c = config;
  int mpi = 0;
  CB_MPI(MPI_Initialized(&mpi));
  if (!mpi) return cb_a2av_config_check_ranks(c, nranks, why, n);
  int other = rank_reading_other_counts(c, MPI_COMM_WORLD);
  int ok = 1;
  if (other >= 0) {
    snprintf(why, n,
             "--counts %s: rank %d read other counts than rank 0 (the file changed between the ranks' reads, or "
             "the ranks see different files): give every rank the same file, unchanged during the start",
             c->text, other);
    ok = 0;
  } else ok = cb_a2av_config_check_ranks(c, nranks, why, n) == 0;
  return cb_mpi_agree(MPI_COMM_WORLD, ok, why, n) ? 0 : -1;
}

/* the size column (the largest per-rank total), the count column (nccl-tests' paramcount) and
 * the elements of the largest per-rank buffer */
static int plan(cb_params_t *p, int nranks, const char *mode, char *what, size_t nwhat, char *why, size_t nwhy) {
  const cb_a2av_config_t *c = cb_a2av_cfg(p);
  size_t es = cb_dtype_size(p->dtype);
  p->bytes = p->point;
  p->count = p->elements = 0;
  snprintf(what, nwhat, "alltoallv %s %s %llu B %s", cb_dtype_name(p->dtype), c->text, (unsigned long long)p->point,
           mode);
  cb_a2av_counts_t k;
  if (cb_a2av_counts_make(c, p->point, es, nranks, p->seed, &k, why, nwhy)) return -1;
  p->bytes = cb_a2av_size_bytes(&k);
  p->count = k.param_count;
  p->elements = p->bytes / es;
  cb_a2av_counts_free(&k);
  /* nccl-tests times an empty call where every block rounds to 0 B (its 8 B point); an empty
   * row says nothing and has no place on a log axis (plots/ refuses it): as the rooted families'
   * chunks (family_rooted.c), the size columns stay nccl-tests' and the row says why */
  if (p->bytes == 0) {
    snprintf(why, nwhy, "%llu B over %d ranks round to 0 per peer (nccl-tests' 16-byte blocks)",
             (unsigned long long)p->point, nranks);
    return -1;
  }
  return 0;
}

static void row(const cb_row_ctx_t *ctx, cb_row_t *r) { cb_row_text(r, CB_COL_COUNTS, cb_a2av_cfg(ctx->p)->text); }

static const char help[] =
    "alltoallv (family alltoallv only):\n"
    "      --counts MODE       per-peer byte counts: spread (default; nccl-tests' distance-weighted\n"
    "                          pattern), spread:S (S in [0, 1], NCCL_TESTS_ALLTOALLV_SPREAD), uniform,\n"
    "                          matrix:FILE (nccl-tests' matrix file: one size, -b = -e), moe (MoE\n"
    "                          dispatch counts of --model and --routing), trace:FILE (a routing trace:\n"
    "                          per line a token's source rank and expert ids; --model's experts)\n"
    "      --model NAME --routing R   the moe mode's model and routing law (as the moe family's)\n";

_Static_assert(sizeof(cb_a2av_config_t) <= CB_FAMILY_CONFIG_MAX,
               "the alltoallv configuration fits the arguments' room");

/* nccl-tests runs alltoallv in place too but checks only out-of-place: collbench runs it out of
 * place. busbw = algbw x (n-1)/n, as alltoall. */
const cb_family_info_t cb_family_alltoallv = {.name = "alltoallv",
                                              .default_dtype = CB_FLOAT,
                                              .opts = opts,
                                              .nopts = O_COUNT,
                                              .config_size = sizeof(cb_a2av_config_t),
                                              .defaults = defaults,
                                              .option = option,
                                              .finish = finish,
                                              .help = help,
                                              .check_ranks = check_ranks,
                                              .nvtx_letter = 'B',
                                              .plan = plan,
                                              .columns = CB_COLS_A2AV,
                                              .row = row,
                                              .busbw_num = 1.0};
