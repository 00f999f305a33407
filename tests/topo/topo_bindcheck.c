/* MPI test program: does each rank's real CPU binding match the plan?
 *
 * usage: topo_bindcheck MODE PLAN
 *   PLAN  per-local-rank OS PU lists from `collbench-topo --fake-gpus N --json`, joined with
 *         ';' ("0;1"), so the tool that wrote the rankfile is what is checked against.
 *   MODE  kept:   launched with that rankfile; the binding must equal the plan already, and
 *                 cb_placement_bind_planned must keep it ("bound by mpirun, kept").
 *         self:   launched with --bind-to none; cb_placement_bind_planned must bind the rank
 *                 to the plan ("bound by collbench").
 *         nobind: launched with --bind-to none; no_bind = 1 must leave the rank unbound.
 * Each rank also recomputes the fake plan through the library and compares it with PLAN.
 * Exit 0 when every rank passes, 1 otherwise (MPI_Allreduce of the failures). */
#define _POSIX_C_SOURCE 200809L
#include <hwloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"

#define MPI_OK(call)                                                                              \
  do {                                                                                            \
    int rc_ = (call);                                                                             \
    if (rc_ != MPI_SUCCESS) {                                                                     \
      fprintf(stderr, "topo_bindcheck: %s:%d: %s failed (%d)\n", __FILE__, __LINE__, #call, rc_); \
      MPI_Abort(MPI_COMM_WORLD, 3);                                                               \
    }                                                                                             \
  } while (0)

/* Entry `idx` of "a;b;c" parsed as an hwloc list into set; -1 if missing or malformed. */
static int plan_entry(const char *plan, int idx, hwloc_bitmap_t set) {
  char buf[4096];
  const char *p = plan;
  for (int i = 0; i < idx && p; i++) p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL;
  if (!p) return -1;
  size_t len = strchr(p, ';') ? (size_t)(strchr(p, ';') - p) : strlen(p);
  if (len == 0 || len >= sizeof buf) return -1;
  memcpy(buf, p, len);
  buf[len] = 0;
  return hwloc_bitmap_list_sscanf(set, buf);
}

static int current_binding(hwloc_topology_t t, hwloc_bitmap_t cur, char *txt, size_t n) {
  if (hwloc_get_cpubind(t, cur, HWLOC_CPUBIND_PROCESS) != 0) return -1;
  return hwloc_bitmap_list_snprintf(txt, n, cur) < 0 ? -1 : 0;
}

static int check(int rank, const char *mode, const char *plan_str, int local, int nlocal) {
  char why[2048] = "", desc[2048] = "", before[1024], after[1024], want_txt[1024];
  hwloc_topology_t t;
  int fail = 0;
  cb_placement_t *pl = calloc(1, sizeof *pl);
  hwloc_bitmap_t want = hwloc_bitmap_alloc(), cur = hwloc_bitmap_alloc(), lib = hwloc_bitmap_alloc();
  if (!pl || !want || !cur || !lib || hwloc_topology_init(&t) != 0) {
    fprintf(stderr, "rank %d: out of memory or hwloc_topology_init failed\n", rank);
    return 1;
  }
  if (hwloc_topology_load(t) != 0 || plan_entry(plan_str, local, want) != 0 ||
      hwloc_bitmap_list_snprintf(want_txt, sizeof want_txt, want) < 0 ||
      current_binding(t, cur, before, sizeof before) != 0) {
    fprintf(stderr, "rank %d: setup failed (plan '%s', local rank %d)\n", rank, plan_str, local);
    fail = 1;
    goto out;
  }
  /* The library's own plan for this machine must be the tool's. */
  if (cb_placement_compute_fake(NULL, nlocal, pl, why, sizeof why) != 0) {
    fprintf(stderr, "rank %d: cb_placement_compute_fake: %s\n", rank, why);
    fail = 1;
    goto out;
  }
  for (int i = 0; i < pl->gpus[local].npus; i++) hwloc_bitmap_set(lib, (unsigned)pl->gpus[local].pus[i]);
  if (!hwloc_bitmap_isequal(lib, want)) {
    fprintf(stderr, "rank %d: library plan differs from the tool's plan %s\n", rank, want_txt);
    fail = 1;
  }
  int kept = !strcmp(mode, "kept"), nobind = !strcmp(mode, "nobind");
  if (kept && !hwloc_bitmap_isequal(cur, want)) {
    fprintf(stderr, "rank %d: mpirun bound it to cpus %s, the plan says %s\n", rank, before, want_txt);
    fail = 1;
  }
  if (cb_placement_bind_planned(pl, local, nobind, desc, sizeof desc, why, sizeof why) != 0) {
    fprintf(stderr, "rank %d: cb_placement_bind_planned: %s\n", rank, why);
    fail = 1;
    goto out;
  }
  if (current_binding(t, cur, after, sizeof after) != 0) {
    fprintf(stderr, "rank %d: hwloc_get_cpubind failed\n", rank);
    fail = 1;
    goto out;
  }
  const char *expect_desc = kept     ? "(bound by mpirun, kept)"
                            : nobind ? "(not bound: --no-bind)"
                                     : "(bound by collbench";
  int want_after = kept || !nobind ? hwloc_bitmap_isequal(cur, want) : !strcmp(before, after);
  if (!strstr(desc, expect_desc) || strstr(desc, "not local") || !want_after) {
    fprintf(stderr, "rank %d (%s): cpus %s -> %s, plan %s, report '%s'\n", rank, mode, before, after, want_txt, desc);
    fail = 1;
  }
  printf("rank %d local %d mode %s: plan cpus %s, before %s, after %s: %s\n", rank, local, mode, want_txt, before,
         after, desc);
  fflush(stdout);
out:
  hwloc_topology_destroy(t);
  hwloc_bitmap_free(want);
  hwloc_bitmap_free(cur);
  hwloc_bitmap_free(lib);
  free(pl);
  return fail;
}

int main(int argc, char **argv) {
  int rank, local, nlocal, fail, anyfail = 0;
  MPI_Comm node;
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  if (argc != 3 || (strcmp(argv[1], "kept") && strcmp(argv[1], "self") && strcmp(argv[1], "nobind"))) {
    if (rank == 0) fprintf(stderr, "usage: topo_bindcheck kept|self|nobind PLAN\n");
    MPI_Finalize();
    return 2;
  }
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_OK(MPI_Comm_rank(node, &local));
  MPI_OK(MPI_Comm_size(node, &nlocal));
  fail = check(rank, argv[1], argv[2], local, nlocal);
  MPI_OK(MPI_Allreduce(&fail, &anyfail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  MPI_OK(MPI_Comm_free(&node));
  MPI_OK(MPI_Finalize());
  return anyfail ? 1 : 0;
}
