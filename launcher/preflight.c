/* Implementation of preflight.h. */
#include "preflight.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "mix64.h"
#include "newfile.h"

uint64_t cb_preflight_args_hash(int argc, char **argv) {
  uint64_t h = cb_mix64((uint64_t)argc);
  for (int i = 1; i < argc; i++) {
    size_t len = strlen(argv[i]);
    h = cb_mix64(h ^ (uint64_t)len);
    for (size_t j = 0; j < len; j++) h = cb_mix64(h ^ (unsigned char)argv[i][j]);
  }
  return h;
}

/* One output file: its name must be replaceable, and a new file must be creatable beside it
 * (the probe is removed at once). */
static int probe_output(const char *opt, const char *path, char *why, size_t n) {
  if (cb_newfile_check_target(path, opt, why, n)) return -1;
  char tmp[CB_PATH_MAX + 32];
  int fd = cb_newfile_temp(path, tmp, sizeof tmp);
  if (fd < 0) {
    snprintf(why, n, "%s '%s': cannot create a file there: %s", opt, path, strerror(errno));
    return -1;
  }
  close(fd);
  unlink(tmp);
  return 0;
}

int cb_preflight_outputs(const cb_args_t *a, char *why, size_t n) {
  if (a->csv[0] && probe_output("--csv", a->csv, why, n)) return -1;
  if (a->ncclt_json[0] && probe_output("-J", a->ncclt_json, why, n)) return -1;
  if (a->json[0]) {
    char partial[CB_PATH_MAX + 32];
    snprintf(partial, sizeof partial, "%s.partial.jsonl", a->json);
    if (probe_output("--json", a->json, why, n) || probe_output("--json", partial, why, n)) return -1;
  }
  const cb_family_info_t *fi = cb_family_info(a->family);
  return fi->check_outputs ? fi->check_outputs(cb_args_config_const(a), why, n) : 0;
}

/* Rank 0's line naming the ranks whose command line differs from its own (at most 8 listed). */
static void name_differing(const uint64_t *all, int nranks, char *why, size_t n) {
  char list[128] = "";
  int count = 0;
  size_t off = 0;
  for (int r = 1; r < nranks; r++) {
    if (all[r] == all[0]) continue;
    if (++count <= 8) off += (size_t)snprintf(list + off, sizeof list - off, "%s%d", count > 1 ? ", " : "", r);
  }
  snprintf(why, n,
           "the command line differs between ranks: rank%s %s%s %s started with other arguments than rank 0 (an MPMD "
           "launch?): give every rank the same collbench arguments",
           count > 1 ? "s" : "", list, count > 8 ? " and more" : "", count > 1 ? "were" : "was");
}

int cb_preflight(const cb_args_t *a, int argc, char **argv, MPI_Comm comm) {
  int rank = 0, nranks = 1;
  CB_MPI(MPI_Comm_rank(comm, &rank));
  CB_MPI(MPI_Comm_size(comm, &nranks));
  char why[1600] = "";
  uint64_t mine = cb_preflight_args_hash(argc, argv);
  uint64_t *all = malloc(sizeof *all * (size_t)nranks);
  if (!all) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  CB_MPI(MPI_Allgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, comm));
  int differ = 0;
  for (int r = 1; r < nranks; r++) differ |= all[r] != all[0];
  if (differ && rank == 0) name_differing(all, nranks, why, sizeof why);
  free(all);
  /* the outputs only when the plan is one: another rank's paths are not rank 0's to check */
  int bad = differ;
  if (!bad && rank == 0) bad = cb_preflight_outputs(a, why, sizeof why) != 0;
  CB_MPI(MPI_Bcast(&bad, 1, MPI_INT, 0, comm));
  if (!bad) return 0;
  if (rank == 0) fprintf(stderr, "collbench: %s\n", why);
  return CB_EXIT_USAGE;
}
