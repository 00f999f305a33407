/* Implementation of ncclt_main.h: the glue between nccl-tests' command line and output and
 * collbench's run, and -g G's rank start. */
#include "ncclt_main.h"

#include <errno.h>
#include <nccl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "args.h"
#include "collective.h"
#include "error.h"
#include "gate.h"
#include "knobs.h"
#include "mpirun_line.h"
#include "ncclt_fail.h"
#include "preflight.h"

#ifndef CB_MPIEXEC
#define CB_MPIEXEC "mpirun" /* the build names the MPI's own launcher (CMake's MPIEXEC_EXECUTABLE) */
#endif

int cb_ncclt_named(const char *argv0) { return cb_ncclt_perf_name(argv0) != NULL; }

/* A process started by an MPI launcher (Open MPI, MPICH/Hydra, Intel MPI, PMIx, Slurm's srun). */
static const char *launcher_variable(void) {
  static const char *const kVars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "SLURM_PROCID"};
  for (size_t k = 0; k < sizeof kVars / sizeof kVars[0]; k++)
    if (getenv(kVars[k])) return kVars[k];
  return NULL;
}

/* mpirun starts argv0 as this process was started: a path, or a bare name it looks up in PATH
 * as the shell did. A bare name whose first PATH match is not this program (started under
 * another name, `exec -a`; or another all_reduce_perf, nccl-tests' own, first in PATH) would
 * start nothing or the wrong binary: 0 when it leads here (or cannot be told), else -1 with why. */
static int path_leads_here(const cb_ncclt_opts_t *o, const char *argv0, char *why, size_t n) {
  struct stat self, st;
  if (strchr(argv0, '/') || stat("/proc/self/exe", &self)) return 0;
  const char *path = getenv("PATH");
  for (const char *p = path ? path : "", *end;; p = end + 1) {
    end = strchr(p, ':');
    const int len = end ? (int)(end - p) : (int)strlen(p);
    char cand[4096];
    snprintf(cand, sizeof cand, "%.*s%s%s", len, p, len ? "/" : "", argv0); /* an empty entry: "." */
    if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
      if (st.st_dev == self.st_dev && st.st_ino == self.st_ino) return 0;
      snprintf(why, n,
               "%s -g %d: PATH finds '%s' as %.512s, not this program, and mpirun would start that: run the "
               "drop-in by its path",
               o->bin->name, o->ngpus, argv0, cand);
      return -1;
    }
    if (!end) break;
  }
  snprintf(why, n,
           "%s -g %d: '%s' is not in PATH (started under another name?), so mpirun could not start it: run "
           "the drop-in by its path",
           o->bin->name, o->ngpus, argv0);
  return -1;
}

/* The launcher's `--version` text (at most n - 1 bytes) into buf, "" when it cannot be run or
 * says nothing within 10 s: mpirun_line.h tells Open MPI from the others by it. */
static void launcher_version(const char *mpirun, char *buf, size_t n) {
  buf[0] = 0;
  int fd[2];
  if (pipe(fd)) return;
  fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return;
  }
  if (pid == 0) {
    dup2(fd[1], 1);
    dup2(fd[1], 2);
    close(fd[0]);
    close(fd[1]);
    execlp(mpirun, mpirun, "--version", (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  size_t got = 0;
  for (;;) {
    struct pollfd p = {fd[0], POLLIN, 0};
    if (poll(&p, 1, 10000) <= 0) {
      kill(pid, SIGKILL);
      break;
    }
    const ssize_t k = got + 1 < n ? read(fd[0], buf + got, n - 1 - got) : 0;
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += (size_t)k;
  }
  buf[got] = 0;
  close(fd[0]);
  waitpid(pid, NULL, 0);
}

/* -g G outside a launcher: this process becomes `mpirun -np G ARGV0 ARGS -g 1` (mpirun_line.h:
 * with Open MPI's --oversubscribe --bind-to none first), G real MPI ranks of the same binary on
 * this host (one GPU each, by local rank, as every collbench rank picks it). Returns only when
 * mpirun cannot start. */
static int start_ranks(const cb_ncclt_opts_t *o, int argc, char **argv) {
  const char *mpirun = getenv("CB_MPIRUN");
  if (!mpirun || !mpirun[0]) mpirun = CB_MPIEXEC;
  /* Open MPI refuses root without these; nccl-tests' one-process -g G never needed mpirun */
  if (geteuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
  char version[4096], np[16];
  launcher_version(mpirun, version, sizeof version);
  const int cap = argc + 16;
  char **child = calloc((size_t)cap, sizeof *child);
  if (!child) return CB_EXIT_RUNTIME;
  cb_mpirun_line(mpirun, cb_mpirun_kind(version), o->ngpus, argc, argv, o->ngpus_at, o->ngpus_args, np, sizeof np,
                 child, cap);
  fflush(stdout);
  execvp(mpirun, child);
  fprintf(stderr, "collbench: %s -g %d: cannot start '%s' for %d ranks: %s (set CB_MPIRUN to the MPI launcher)\n",
          o->bin->name, o->ngpus, mpirun, o->ngpus, strerror(errno));
  free(child);
  return CB_EXIT_RUNTIME;
}

/* -g G: what each of the G ranks would refuse before its GPU (collbench's parse, the algorithm
 * names, the bar, the CB_* knobs and the family's checks for G ranks, the output files), and a
 * program mpirun would not find, are refused here, once and before mpirun starts: otherwise
 * every rank printed it, after mpirun's own lines. Returns 0, 1 for `--algo help` (this process lists them; no ranks),
 * or -1 with why. */
static int check_before_ranks(cb_ncclt_t *d, const char *argv0, char *why, size_t n) {
  cb_args_t *a = calloc(1, sizeof *a); /* large (the sweep table): heap */
  if (!a) {
    snprintf(why, n, "out of host memory");
    return -1;
  }
  int rc = cb_args_parse(d->opts.argc, d->opts.argv, a, why, n) == CB_ARGS_OK ? 0 : -1;
  if (!rc && a->nalgos == 1 && strcmp(a->algos[0], "help") == 0) rc = 1;
  for (int i = 0; !rc && i < a->nalgos; i++)
    if (!cb_algo_find(a->family, a->algos[i])) {
      char names[512];
      cb_algo_names(a->family, names, sizeof names);
      snprintf(why, n, "--algo: unknown %s algorithm '%s' (accepted: %s)", cb_family_name(a->family), a->algos[i],
               names);
      rc = -1;
    }
  cb_gate_t gate;
  cb_knobs_t knobs;
  const cb_family_info_t *fi = cb_family_info(a->family);
  if (!rc) rc = cb_gate_from_env(&gate, why, n);
  if (!rc) rc = cb_knobs_read(&knobs, d->opts.ngpus, why, n);
  if (!rc && fi->check_ranks)
    rc = fi->check_ranks(cb_args_config_const(a), d->opts.ngpus, a->dtypes, a->ndtypes, why, n) ? -1 : 0;
  if (!rc) rc = cb_preflight_outputs(a, why, n);
  if (!rc) rc = path_leads_here(&d->opts, argv0, why, n);
  free(a);
  return rc;
}

static const char *real_getenv(const char *name) { return getenv(name); }

int cb_ncclt_begin(cb_ncclt_t *d, int *argc, char ***argv) {
  char err[1024];
  const int rc = cb_ncclt_translate(*argc, *argv, real_getenv, &d->opts, err, sizeof err);
  if (rc == CB_NCCLT_HELP) {
    char usage[2048];
    cb_ncclt_usage(d->opts.bin ? d->opts.bin->name : "ncclt", usage, sizeof usage);
    fputs(usage, stdout);
    return CB_EXIT_OK;
  }
  if (rc != CB_NCCLT_OK) {
    fprintf(stderr, "collbench: %s\n", err);
    return CB_EXIT_USAGE;
  }
  if (d->opts.ngpus > 1) {
    const char *var = launcher_variable();
    if (var) {
      fprintf(stderr,
              "collbench: %s -g %d under an MPI launcher (%s is set): collbench drives one GPU per process; give -g 1 "
              "and start %d ranks (mpirun -np %d)\n",
              d->opts.bin->name, d->opts.ngpus, var, d->opts.ngpus, d->opts.ngpus);
      return CB_EXIT_USAGE;
    }
    const int checked = check_before_ranks(d, (*argv)[0], err, sizeof err);
    if (checked < 0) {
      fprintf(stderr, "collbench: %s\n", err);
      return CB_EXIT_USAGE;
    }
    if (checked == 0) return start_ranks(&d->opts, *argc, *argv);
  }
  *argc = d->opts.argc;
  *argv = d->opts.argv;
  cb_ncclt_fail_install(); /* a failed CUDA or NCCL call: nccl-tests' lines and exit code */
  return -1;
}

static void table_sink(void *ctx, const cb_row_t *row) { cb_ncclt_table_row(ctx, row); }

void cb_ncclt_start(cb_ncclt_t *d, const cb_meta_t *m, const cb_bench_t *b, cb_report_t *r, cb_strbuf_t *out) {
  const int nranks = m->nranks;
  cb_ncclt_rank_t *ranks = calloc((size_t)nranks + 1, sizeof *ranks);
  if (!ranks) CB_DIE(CB_EXIT_RUNTIME, "out of host memory for %d rank lines", nranks);
  for (int i = 0; i < nranks; i++) {
    const cb_meta_rank_t *k = &m->ranks[i];
    ranks[i] = (cb_ncclt_rank_t){k->rank, k->pid, k->device, k->host, k->busid, k->gpu};
  }
  cb_ncclt_header_t h = {&d->opts, m->version, NCCL_VERSION_CODE, m->w->nccl_version, nranks, ranks};
  cb_ncclt_header(&h, out);
  free(ranks);
  const char *names[CB_MAX_ALGOS];
  for (int k = 0; k < b->nalgos; k++) names[k] = b->algos[k]->name;
  const cb_family_info_t *fi = cb_family_info(m->a->family);
  cb_ncclt_table_init(&d->table, &d->opts, names, b->nalgos, fi->has_inplace && (m->a->places & CB_PLACE_IN), stdout,
                      out);
  r->sink = table_sink;
  r->sink_ctx = &d->table;
}

int cb_ncclt_finish(cb_ncclt_t *d, int code) {
  cb_strbuf_t out;
  cb_sb_init(&out);
  const int results = cb_ncclt_table_end(&d->table, &out);
  fputs(out.s, stdout);
  fflush(stdout);
  cb_sb_free(&out);
  /* a wrong value fails the run as nccl-tests fails it (7); collbench's other codes stay */
  if (code == CB_EXIT_OK || code == CB_EXIT_WRONG) return results || code == CB_EXIT_WRONG ? CB_NCCLT_EXIT_RESULTS : 0;
  return code;
}
