/* collbench: `mpirun -np N collbench FAMILY [options]`. main() runs four phases, each of which
 * either lets the next one run or names the exit code, and leaves through one exit helper:
 *   parse   the command line and CB_FAULT, before MPI starts (bad input exits 2);
 *   world   MPI, the CB_* knobs, the watchdog, the world (GPU, binding, NCCL, peer memory) and
 *           the checks that need the rank count;
 *   run     the metadata and the header, the outputs, the bench engine;
 *   report  the summary, the results files closed, the exit code README documents. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "args_ncclt.h"
#include "bench.h"
#include "collective.h"
#include "error_gpu.h"
#include "fault.h"
#include "gate.h"
#include "meta.h"
#include "meta_header.h"
#include "meta_json.h"
#include "mpi_world.h"
#include "ncclt_fail.h"
#include "ncclt_main.h"
#include "preflight.h"
#include "report.h"
#include "report_ncclt_json.h"
#include "watchdog.h"
#include "world_init.h"

/* Resolves --algo names (or takes every algorithm of the family). Returns 0, or -1 with why. */
static int select_algos(const cb_args_t *a, cb_bench_t *b, char *why, size_t n) {
  char names[512];
  cb_algo_names(a->family, names, sizeof names);
  b->nalgos = 0;
  if (a->nalgos == 0) {
    /* -R r keeps one of the NCCL baselines nccl, nccl_reg, nccl_symm (args_ncclt.c) */
    const char *keep = a->nccl_register >= 0 ? cb_ncclt_register_name(a->nccl_register) : NULL;
    if (keep && !cb_algo_find(a->family, keep)) {
      snprintf(why, n, "-R %d: %s has no %s baseline (its algorithms: %s)", a->nccl_register, cb_family_name(a->family),
               keep, names);
      return -1;
    }
    for (int i = 0; cb_registry[i] && b->nalgos < CB_MAX_ALGOS; i++) {
      const char *name = cb_registry[i]->name;
      int other_baseline = keep && strcmp(name, keep) != 0 &&
                           (!strcmp(name, "nccl") || !strcmp(name, "nccl_reg") || !strcmp(name, "nccl_symm"));
      if (cb_registry[i]->family == a->family && !other_baseline) b->algos[b->nalgos++] = cb_registry[i];
    }
    return 0;
  }
  for (int i = 0; i < a->nalgos; i++) {
    const cb_algo_t *al = cb_algo_find(a->family, a->algos[i]);
    if (!al) {
      snprintf(why, n, "--algo: unknown %s algorithm '%s' (accepted: %s)", cb_family_name(a->family), a->algos[i],
               names);
      return -1;
    }
    b->algos[b->nalgos++] = al;
  }
  return 0;
}

/* `-d all` with --algo: the named algorithms must together take every type of the family
 * (family.h cb_family_check_all_dtypes). */
static int all_dtypes_check(const cb_bench_t *b, cb_family_t f, char *why, size_t n) {
  unsigned take = 0;
  char names[512] = "";
  size_t off = 0;
  for (int i = 0; i < b->nalgos; i++) {
    take |= b->algos[i]->dtypes;
    if (off < sizeof names)
      off += (size_t)snprintf(names + off, sizeof names - off, "%s%s", i ? ", " : "", b->algos[i]->name);
  }
  return cb_family_check_all_dtypes(f, take, names, b->nalgos, why, n);
}

/* Every rank must run with the same knobs: grids, auto's choices and moe's chunk sizes derive
 * from them, and ranks that disagree would wait for signals nobody sends (or read rows before
 * they land). mpirun does not forward CB_* variables to other hosts unless told (-x), so a
 * mismatch is a usage error naming the variable, before any GPU work. (The SM cap may differ:
 * the world agrees on the smallest.) */
static int knobs_agree(const cb_knobs_t *k, char *why, size_t n) {
  const char *names[CB_KNOBS_ALIKE];
  long long mine[CB_KNOBS_ALIKE], v[2 * CB_KNOBS_ALIKE], lo[2 * CB_KNOBS_ALIKE];
  const int nk = cb_knobs_alike(k, names, mine);
  for (int i = 0; i < nk; i++) {
    v[i] = mine[i];       /* min */
    v[nk + i] = -mine[i]; /* -max */
  }
  CB_MPI(MPI_Allreduce(v, lo, 2 * nk, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD));
  for (int i = 0; i < nk; i++)
    if (lo[i] != -lo[nk + i]) {
      snprintf(why, n, "%s differs between ranks (%lld to %lld): set it alike on every rank (mpirun -x %s)", names[i],
               lo[i], -lo[nk + i], names[i]);
      return -1;
    }
  return 0;
}

/* What main has set up so far; finish() takes down exactly that. Static in main: the world and
 * the watchdog must live until exit (the abort hook and the watchdog thread point into it). */
typedef struct {
  cb_args_t *args;
  cb_bench_t bench;
  cb_fault_t fault;           /* CB_FAULT (test-only fault injection, fault.h) */
  cb_gate_t gate;             /* CB_MIN_BUSBW / NCCL_TESTS_MIN_BW (gate.h) */
  cb_ncclt_json_t ncclt_json; /* -J, rank 0 */
  cb_knobs_t knobs;
  int argc;
  char **argv;      /* the command line, for -J */
  int mpi_up, rank; /* rank: this process's world rank once MPI is up (0 before: every process speaks) */
  cb_watchdog_t wd;
  int wd_up;
  cb_world_t world;
  int world_up;
  cb_report_t report; /* rank 0 */
  cb_ncclt_t *ncclt;  /* the nccl-tests drop-in's state (NULL: collbench's own output) */
} cb_main_t;

/* A phase's result: CB_CONTINUE lets the next phase run; anything else is the exit code. */
enum { CB_CONTINUE = -1 };

/* The one way out: stops the watchdog, frees the world, ends MPI (whichever of them started)
 * and returns code for main to exit with. */
static int finish(cb_main_t *m, int code) {
  if (m->wd_up) cb_watchdog_stop(&m->wd);
  if (m->world_up) cb_world_free(&m->world);
  if (m->mpi_up) MPI_Finalize();
  free(m->args);
  free(m->ncclt);
  return code;
}

/* A usage or setup problem: the message on stderr (once, from rank 0, once MPI is up); returns
 * code. */
static int fail(const cb_main_t *m, int code, const char *why) {
  if (m->rank == 0) fprintf(stderr, "collbench: %s\n", why);
  return code;
}

/* --algo help: the family's algorithms and what each does (no MPI, no GPU). */
static void list_algos(cb_family_t family) {
  printf("%s algorithms (--algo LIST; default: all of them):\n", cb_family_name(family));
  for (int i = 0; cb_registry[i]; i++)
    if (cb_registry[i]->family == family)
      printf("  %-16s %s\n", cb_registry[i]->name, cb_registry[i]->summary ? cb_registry[i]->summary : "");
}

/* Phase 1, before MPI: the command line, the algorithms it names and CB_FAULT. */
static int parse_phase(cb_main_t *m, int argc, char **argv) {
  m->args = calloc(1, sizeof *m->args); /* large (the sweep table): heap, not stack */
  if (!m->args) return CB_EXIT_RUNTIME;
  cb_args_t *args = m->args;
  char err[1024];
  int rc = cb_args_parse(argc, argv, args, err, sizeof err);
  if (rc == CB_ARGS_HELP) {
    cb_args_usage(stdout);
    return CB_EXIT_OK;
  }
  if (rc != CB_ARGS_OK) return fail(m, CB_EXIT_USAGE, err);
  if (args->nalgos == 1 && strcmp(args->algos[0], "help") == 0) {
    list_algos(args->family);
    return CB_EXIT_OK;
  }
  if (select_algos(args, &m->bench, err, sizeof err)) return fail(m, CB_EXIT_USAGE, err);
  if (args->dtypes_all && args->nalgos && all_dtypes_check(&m->bench, args->family, err, sizeof err))
    return fail(m, CB_EXIT_USAGE, err);
  if (cb_fault_from_env(&m->fault, err, sizeof err)) return fail(m, CB_EXIT_USAGE, err);
  if (cb_gate_from_env(&m->gate, err, sizeof err)) return fail(m, CB_EXIT_USAGE, err);
  return CB_CONTINUE;
}

/* The checks that need the world (the GPU's SMs), and the family's (family.h) files it will
 * write, which only rank 0 writes (so only its file system counts). The same verdict on every
 * rank. (The family's rank-count checks run before the world: world_phase.) */
static int world_checks(cb_main_t *m, char *why, size_t n) {
  const cb_args_t *args = m->args;
  const cb_world_t *w = &m->world;
  const cb_family_info_t *fi = cb_family_info(args->family);
  const void *config = cb_args_config_const(args);
  why[0] = 0;
  if (m->fault.action != CB_FAULT_NONE && m->fault.rank >= w->mpi.nranks)
    snprintf(why, n, "CB_FAULT: rank %d does not exist (%d ranks)", m->fault.rank, w->mpi.nranks);
  if (!why[0]) cb_knobs_check_sms(&m->knobs, args->sms ? "--sms" : "CB_SMS", w->sm_count, w->gpu_name, why, n);
  if (!why[0] && fi->check_outputs && w->mpi.rank == 0) fi->check_outputs(config, why, n);
  return cb_mpi_agree(w->mpi.comm, !why[0], why, n) ? 0 : -1;
}

/* Phase 2: MPI, the CB_* knobs (before any GPU work: a bad value is a usage error on every
 * rank), the watchdog and the world. */
static int world_phase(cb_main_t *m, int *argc, char ***argv) {
  char err[1400];
  int provided = 0, world_size = 0;
  CB_MPI(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided));
  m->mpi_up = 1;
  /* the same command line on every rank, outputs creatable: before any GPU work (preflight.h
   * prints the reason on rank 0) */
  if (cb_preflight(m->args, *argc, *argv, MPI_COMM_WORLD)) return CB_EXIT_USAGE;
  CB_MPI(MPI_Comm_size(MPI_COMM_WORLD, &world_size));
  CB_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &m->rank));
  /* a bad knob on any rank (one rank's environment can differ) ends every rank alike */
  int knobs_ok = cb_knobs_read(&m->knobs, world_size, err, sizeof err) == 0;
  knobs_ok = cb_mpi_agree(MPI_COMM_WORLD, knobs_ok, err, sizeof err);
  if (knobs_ok) knobs_ok = knobs_agree(&m->knobs, err, sizeof err) == 0; /* the same result on every rank */
  if (!knobs_ok) return fail(m, CB_EXIT_USAGE, err);
  if (m->args->sms) m->knobs.sm_count = m->args->sms; /* --sms wins over CB_SMS */
  /* the family's checks of the rank count (a root past the last rank, say): the same
   * verdict on every rank, before any GPU work */
  const cb_family_info_t *fi = cb_family_info(m->args->family);
  if (fi->check_ranks &&
      fi->check_ranks(cb_args_config_const(m->args), world_size, m->args->dtypes, m->args->ndtypes, err, sizeof err))
    return fail(m, CB_EXIT_USAGE, err);
  /* The watchdog covers the world setup too (NCCL init and the peer probe wait for every rank). */
  cb_watchdog_start(&m->wd, m->args->timeout_s, MPI_COMM_WORLD, &m->fault);
  m->wd_up = 1;
  m->world.wd = &m->wd;
  cb_watchdog_arm(&m->wd, "world setup (GPU, CPU binding, NCCL communicator, peer-memory probe)");
  cb_world_init(&m->world, m->args, &m->knobs);
  m->world_up = 1;
  cb_watchdog_disarm(&m->wd);
  if (world_checks(m, err, sizeof err)) return fail(m, CB_EXIT_USAGE, err);
  return CB_CONTINUE;
}

/* -J on rank 0: nccl-tests' JSON head from the metadata (its devices, environment, NCCL). */
static int open_ncclt_json(cb_main_t *m, const cb_meta_t *meta, char *why, size_t n) {
  cb_ncclt_device_t *dev = calloc((size_t)meta->nranks, sizeof *dev);
  if (!dev) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  for (int r = 0; r < meta->nranks; r++) {
    const cb_meta_rank_t *mr = &meta->ranks[r];
    dev[r].rank = mr->rank;
    dev[r].pid = mr->pid;
    dev[r].device = mr->device;
    snprintf(dev[r].host, sizeof dev[r].host, "%s", mr->host);
    snprintf(dev[r].busid, sizeof dev[r].busid, "%s", mr->busid);
    snprintf(dev[r].gpu, sizeof dev[r].gpu, "%s", mr->gpu);
  }
  cb_ncclt_run_t run = {.argc = m->argc,
                        .argv = m->argv,
                        .env = meta->env,
                        .nenv = meta->nenv,
                        .nccl_version = m->world.nccl_version,
                        .a = m->args,
                        .ndevices = meta->nranks,
                        .devices = dev};
  int rc = cb_ncclt_json_open(&m->ncclt_json, m->args->ncclt_json, &run, why, n);
  free(dev);
  return rc;
}

/* Phase 3: the metadata (the header on stdout, the JSON into the outputs), then the bench. */
static int run_phase(cb_main_t *m) {
  cb_world_t *w = &m->world;
  char err[1024];
  cb_watchdog_arm(&m->wd, "metadata exchange (hosts, GPUs, versions) and opening the outputs");
  cb_meta_t meta;
  cb_meta_collect(&meta, w, m->args, m->bench.algos, m->bench.nalgos);
  int open_ok = 1;
  if (w->mpi.rank == 0) {
    cb_strbuf_t header, json;
    cb_sb_init(&header);
    cb_sb_init(&json);
    if (!m->ncclt) cb_meta_header(&meta, &header);
    cb_meta_json(&meta, &json);
    open_ok =
        cb_report_open(&m->report, m->ncclt ? NULL : stdout, m->args->csv, m->args->json, json.s, err, sizeof err) == 0;
    if (open_ok && m->ncclt) cb_ncclt_start(m->ncclt, &meta, &m->bench, &m->report, &header);
    fputs(header.s, stdout);
    fflush(stdout);
    /* --format: wide on a terminal unless told (report_wide.h); the drop-in prints its own table */
    m->report.wide = !m->ncclt && (m->args->format == CB_FORMAT_WIDE ||
                                   (m->args->format == CB_FORMAT_AUTO && isatty(STDOUT_FILENO)));
    if (open_ok && m->args->ncclt_json[0]) open_ok = open_ncclt_json(m, &meta, err, sizeof err) == 0;
    cb_sb_free(&header);
    cb_sb_free(&json);
  }
  cb_meta_free(&meta);
  CB_MPI(MPI_Bcast(&open_ok, 1, MPI_INT, 0, w->mpi.comm));
  cb_watchdog_disarm(&m->wd);
  if (!open_ok) return fail(m, CB_EXIT_USAGE, err);

  m->bench.w = w;
  m->bench.a = m->args;
  m->bench.rep = w->mpi.rank == 0 ? &m->report : NULL;
  m->bench.wd = &m->wd;
  m->bench.ncclt = w->mpi.rank == 0 && m->args->ncclt_json[0] ? &m->ncclt_json : NULL;
  cb_bench_run(&m->bench);
  cb_watchdog_stop(&m->wd);
  m->wd_up = 0;
  return CB_CONTINUE;
}

/* Phase 4: the summary (the JSON's, `# Avg bus bandwidth` per algorithm and the last stdout
 * line) and the exit code, agreed on by every rank: 1 for a wrong element or a failed
 * validation, 6 below the bar the user set (gate.h), 3 when the results files cannot be
 * completed. */
static int report_phase(cb_main_t *m) {
  const cb_bench_t *b = &m->bench;
  int code = CB_EXIT_OK;
  if (m->world.mpi.rank == 0) {
    /* wrong results first (1), then the bar (6: gate.h), from rank 0's averages */
    double avg[CB_MAX_ALGOS];
    for (int i = 0; i < b->avg.nalgos; i++) avg[i] = cb_avg_busbw_mean(&b->avg, i);
    /* the drop-in applies nccl-tests' bar itself (exit 7: ncclt_main.h), not collbench's */
    code = m->ncclt ? (b->wrong_total > 0 || b->validate_failures > 0 ? CB_EXIT_WRONG : CB_EXIT_OK)
                    : cb_gate_exit_code(&m->gate, b->wrong_total, b->validate_failures, avg, b->avg.nalgos);
    char err[1024];
    cb_strbuf_t extra, lines;
    cb_sb_init(&extra);
    cb_sb_init(&lines);
    cb_sb_printf(&extra, "\"summary\": {\"rows\": %d, \"skipped\": %d, \"wrong\": %lld, \"exit_code\": %d, ", b->rows,
                 b->rows_skipped, b->wrong_total, code);
    cb_sb_printf(&extra, "\"bar_gbs\": ");
    if (m->gate.set) cb_sb_printf(&extra, "%.6g", m->gate.bar_gbs);
    else cb_sb_printf(&extra, "null");
    cb_sb_printf(&extra, ", \"avg_bus_bandwidth\": ");
    cb_avg_busbw_json(&b->avg, &m->gate, &extra);
    cb_sb_printf(&extra, "}");
    if (cb_report_close(&m->report, extra.s, err, sizeof err)) code = fail(m, CB_EXIT_RUNTIME, err);
    if (b->ncclt && cb_ncclt_json_close(b->ncclt, &b->avg, &m->gate, err, sizeof err))
      code = fail(m, CB_EXIT_RUNTIME, err);
    if (m->ncclt) {
      code = cb_ncclt_finish(m->ncclt, code);
    } else {
      cb_avg_busbw_lines(&b->avg, &m->gate, &lines);
      printf("#\n%s# rows: %d (%d skipped or not supported)  wrong elements: %lld  -> %s\n", lines.s, b->rows,
             b->rows_skipped, b->wrong_total,
             code == CB_EXIT_OK          ? "OK"
             : code == CB_EXIT_BELOW_BAR ? "BELOW THE BAR"
                                         : "FAILED");
    }
    fflush(stdout);
    cb_sb_free(&extra);
    cb_sb_free(&lines);
  }
  CB_MPI(MPI_Bcast(&code, 1, MPI_INT, 0, m->world.mpi.comm));
  /* nccl-tests' main ends each rank's output with a trace line when the run failed (exit 7) */
  if (m->ncclt && code == CB_NCCLT_EXIT_RESULTS) cb_ncclt_fail_results(__FILE__, __LINE__);
  return code;
}

int main(int argc, char **argv) {
  static cb_main_t m; /* static: see cb_main_t */
  m.argc = argc;
  m.argv = argv;
  int code = CB_CONTINUE;
  /* under an nccl-tests binary's name: its command line becomes collbench's (ncclt_main.h) */
  if (argc > 0 && cb_ncclt_named(argv[0])) {
    if (!(m.ncclt = calloc(1, sizeof *m.ncclt))) return CB_EXIT_RUNTIME;
    code = cb_ncclt_begin(m.ncclt, &argc, &argv); /* m.argv keeps nccl-tests' line for -J */
  }
  if (code == CB_CONTINUE) code = parse_phase(&m, argc, argv);
  if (code == CB_CONTINUE) code = world_phase(&m, &argc, &argv);
  if (code == CB_CONTINUE) code = run_phase(&m);
  if (code == CB_CONTINUE) code = report_phase(&m);
  return finish(&m, code);
}
