/* collbench: `mpirun -np N collbench FAMILY [options]`. Parses the command line (bad input
 * exits 2 before MPI starts), builds the world (GPU, binding, NCCL, peer memory), writes the
 * header and metadata, runs the bench engine and ends with the exit code README documents. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "bench.h"
#include "collective.h"
#include "error_gpu.h"
#include "fault.h"
#include "meta.h"
#include "meta_header.h"
#include "meta_json.h"
#include "mpi_world.h"
#include "report.h"
#include "watchdog.h"
#include "world_init.h"

/* Resolves --algo names (or takes every algorithm of the family). Returns 0, or -1 with why. */
static int select_algos(const cb_args_t *a, cb_bench_t *b, char *why, size_t n) {
  char names[512];
  cb_algo_names(a->family, names, sizeof names);
  b->nalgos = 0;
  if (a->nalgos == 0) {
    for (int i = 0; cb_registry[i] && b->nalgos < CB_MAX_ALGOS; i++)
      if (cb_registry[i]->family == a->family) b->algos[b->nalgos++] = cb_registry[i];
    return 0;
  }
  for (int i = 0; i < a->nalgos; i++) {
    const cb_algo_t *al = cb_algo_find(a->family, a->algos[i]);
    if (!al) {
      snprintf(why, n, "--algo: unknown %s algorithm '%s' (accepted: %s)", cb_family_name(a->family), a->algos[i], names);
      return -1;
    }
    b->algos[b->nalgos++] = al;
  }
  return 0;
}

/* Every rank must run with the same knobs: grids, auto's choices and moe's chunk sizes derive
 * from them, and ranks that disagree would wait for signals nobody sends (or read rows before
 * they land). mpirun does not forward CB_* variables to other hosts unless told (-x), so a
 * mismatch is a usage error naming the variable, before any GPU work. (The SM cap may differ:
 * the world agrees on the smallest.) */
static int knobs_agree(const cb_knobs_t *k, char *why, size_t n) {
  static const char *const names[] = {"CB_MAX_BLOCKS",     "CB_AR_LL_MAX",      "CB_AR_ONESHOT_MAX", "CB_AR_TWOSHOT_MAX",
                                      "CB_AR_CE_CHUNK",    "CB_AR_HIER_CHUNKS", "CB_MOE_PUSH_PCT",
                                      "CB_SHARE_GPUS"};
  enum { NK = sizeof names / sizeof names[0] };
  long long v[2 * NK], lo[2 * NK];
  const long long mine[NK] = {k->max_blocks,       (long long)k->ar.ll_max, (long long)k->ar.oneshot_max,
                              (long long)k->ar.twoshot_max, (long long)k->ar_ce_chunk, k->ar_hier_chunks,
                              k->moe_push_pct, k->share_gpus};
  for (int i = 0; i < NK; i++) {
    v[i] = mine[i];       /* min */
    v[NK + i] = -mine[i]; /* -max */
  }
  CB_MPI(MPI_Allreduce(v, lo, 2 * NK, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD));
  for (int i = 0; i < NK; i++)
    if (lo[i] != -lo[NK + i]) {
      snprintf(why, n,
               "%s differs between ranks (%lld to %lld): set it alike on every rank (mpirun -x %s)",
               names[i], lo[i], -lo[NK + i], names[i]);
      return -1;
    }
  return 0;
}

int main(int argc, char **argv) {
  cb_args_t *args = calloc(1, sizeof *args); /* large (the sweep table): heap, not stack */
  if (!args) return CB_EXIT_RUNTIME;
  char err[1024];
  int rc = cb_args_parse(argc, argv, args, err, sizeof err);
  if (rc == CB_ARGS_HELP) {
    cb_args_usage(stdout);
    return CB_EXIT_OK;
  }
  if (rc != CB_ARGS_OK) {
    fprintf(stderr, "collbench: %s\n", err);
    return CB_EXIT_USAGE;
  }
  args->attn.cmdline = args->cmdline; /* --save records it; args lives until exit */
  if (args->nalgos == 1 && strcmp(args->algos[0], "help") == 0) {
    /* --algo help: the family's algorithms and what each does, then exit (no MPI, no GPU) */
    printf("%s algorithms (--algo LIST; default: all of them):\n", cb_family_name(args->family));
    for (int i = 0; cb_registry[i]; i++)
      if (cb_registry[i]->family == args->family)
        printf("  %-16s %s\n", cb_registry[i]->name, cb_registry[i]->summary ? cb_registry[i]->summary : "");
    return 0;
  }
  cb_bench_t bench;
  memset(&bench, 0, sizeof bench);
  if (select_algos(args, &bench, err, sizeof err)) {
    fprintf(stderr, "collbench: %s\n", err);
    return CB_EXIT_USAGE;
  }

  cb_fault_t fault; /* CB_FAULT (test-only fault injection, fault.h) */
  if (cb_fault_from_env(&fault, err, sizeof err)) {
    fprintf(stderr, "collbench: %s\n", err);
    return CB_EXIT_USAGE;
  }

  int provided = 0;
  CB_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  /* The CB_* knobs, before any GPU work: a bad value is a usage error on every rank. */
  int world_size = 0, world_rank = 0;
  CB_MPI(MPI_Comm_size(MPI_COMM_WORLD, &world_size));
  CB_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank));
  cb_knobs_t knobs;
  /* a bad knob on any rank (one rank's environment can differ) ends every rank alike */
  int knobs_ok = cb_knobs_read(&knobs, world_size, err, sizeof err) == 0;
  knobs_ok = cb_mpi_agree(MPI_COMM_WORLD, knobs_ok, err, sizeof err);
  if (knobs_ok) knobs_ok = knobs_agree(&knobs, err, sizeof err) == 0; /* the same result on every rank */
  if (!knobs_ok) {
    if (world_rank == 0) fprintf(stderr, "collbench: %s\n", err);
    MPI_Finalize();
    return CB_EXIT_USAGE;
  }
  if (args->sms) knobs.sm_count = args->sms; /* --sms wins over CB_SMS */
  /* The watchdog covers the world setup too (NCCL init and the peer probe wait for every rank). */
  cb_watchdog_t wd;
  cb_watchdog_start(&wd, args->timeout_s, MPI_COMM_WORLD, &fault);
  static cb_world_t world; /* lives until exit: the abort hook points at it */
  world.wd = &wd;
  cb_watchdog_arm(&wd, "world setup (GPU, CPU binding, NCCL communicator, peer-memory probe)");
  cb_world_init(&world, args, &knobs);
  cb_watchdog_disarm(&wd);

  /* Rank-count-dependent checks, now that the world size is known; and --save's directory,
   * which only rank 0 writes (so only its file system counts). */
  char why[1400] = "";
  if (fault.action != CB_FAULT_NONE && fault.rank >= world.mpi.nranks)
    snprintf(why, sizeof why, "CB_FAULT: rank %d does not exist (%d ranks)", fault.rank, world.mpi.nranks);
  if (!why[0]) cb_knobs_check_sms(&knobs, args->sms ? "--sms" : "CB_SMS", world.sm_count, world.gpu_name, why, sizeof why);
  for (int t = 0; args->family == CB_MOE && !why[0] && t < args->ndtypes; t++)
    cb_moe_config_check(&args->moe, world.mpi.nranks, args->dtypes[t], why, sizeof why);
  if (!why[0] && args->family == CB_RINGATTN && args->attn.save_dir[0] && world.mpi.rank == 0)
    cb_attn_check_save_dir(args->attn.save_dir, why, sizeof why);
  cb_mpi_agree(world.mpi.comm, !why[0], why, sizeof why);
  if (why[0]) {
    if (world.mpi.rank == 0) fprintf(stderr, "collbench: %s\n", why);
    cb_watchdog_stop(&wd);
    cb_world_free(&world);
    MPI_Finalize();
    return CB_EXIT_USAGE;
  }

  cb_watchdog_arm(&wd, "metadata exchange (hosts, GPUs, versions) and opening the outputs");
  cb_meta_t run_meta;
  cb_strbuf_t header, meta;
  cb_sb_init(&header);
  cb_sb_init(&meta);
  cb_meta_collect(&run_meta, &world, args, bench.algos, bench.nalgos);
  if (world.mpi.rank == 0) {
    cb_meta_header(&run_meta, &header);
    cb_meta_json(&run_meta, &meta);
    fputs(header.s, stdout);
    fflush(stdout);
  }
  cb_meta_free(&run_meta);

  cb_report_t report;
  int open_ok = 1;
  if (world.mpi.rank == 0 && cb_report_open(&report, stdout, args->csv, args->json, meta.s, err, sizeof err)) open_ok = 0;
  CB_MPI(MPI_Bcast(&open_ok, 1, MPI_INT, 0, world.mpi.comm));
  cb_watchdog_disarm(&wd);
  if (!open_ok) {
    if (world.mpi.rank == 0) fprintf(stderr, "collbench: %s\n", err);
    cb_watchdog_stop(&wd);
    cb_world_free(&world);
    MPI_Finalize();
    return CB_EXIT_USAGE;
  }

  bench.w = &world;
  bench.a = args;
  bench.rep = world.mpi.rank == 0 ? &report : NULL;
  bench.wd = &wd;
  cb_bench_run(&bench);
  cb_watchdog_stop(&wd);

  int code = bench.wrong_total > 0 || bench.validate_failures > 0 ? CB_EXIT_WRONG : CB_EXIT_OK;
  if (world.mpi.rank == 0) {
    char extra[256];
    snprintf(extra, sizeof extra, "\"summary\": {\"rows\": %d, \"skipped\": %d, \"wrong\": %lld, \"exit_code\": %d}",
             bench.rows, bench.rows_skipped, bench.wrong_total, code);
    if (cb_report_close(&report, extra, err, sizeof err)) {
      fprintf(stderr, "collbench: %s\n", err);
      code = CB_EXIT_RUNTIME;
    }
    printf("#\n# rows: %d (%d skipped or not supported)  wrong elements: %lld  -> %s\n", bench.rows, bench.rows_skipped,
           bench.wrong_total, code == CB_EXIT_OK ? "OK" : "FAILED");
    fflush(stdout);
  }
  cb_sb_free(&header);
  cb_sb_free(&meta);
  CB_MPI(MPI_Bcast(&code, 1, MPI_INT, 0, world.mpi.comm));
  cb_world_free(&world);
  MPI_Finalize();
  free(args);
  return code;
}
