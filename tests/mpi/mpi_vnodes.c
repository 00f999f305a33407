/* MPI test of the virtual cluster on CPU ranks (no CUDA): how ranks map to virtual nodes and
 * that collbench's node split (cb_mpi_world_init, CB_NODE_ID) agrees with that map.
 *
 *   mpi_vnodes wrapper K GPUS [PCT]  started as `mpirun -np N launcher/collbench-vnode K mpi_vnodes ...`:
 *                              the wrapper's environment is the map (CB_NODE_ID = NCCL_HOSTID =
 *                              vnode<rank / K>, CUDA_VISIBLE_DEVICES = GPUS, or its j-th '/'-part
 *                              on node j when every rank has its own GPU, GPU of the rank = entry
 *                              rank % K of it), and the split must give node rank / K, local rank
 *                              rank % K, K ranks per node, N / K nodes, the node's ranks in its
 *                              communicator. With CB_SHARE_GPUS=1 and fewer GPUs than K, every
 *                              rank gets the whole list and NCCL_HOSTID = vnode<node>.<local>.
 *                              PCT: the CUDA_MPS_ACTIVE_THREAD_PERCENTAGE every rank must get
 *                              (its share of a GPU it shares), "-" for unset.
 *   mpi_vnodes names A,B,...   rank r sets CB_NODE_ID to the r-th name ("-": leaves it unset) before
 *                              the split; expected values are derived here from the list: node =
 *                              order of each name's first rank, local rank = earlier ranks with the
 *                              same name. Uneven and interleaved layouts, names that share a prefix.
 *                              NCCL_HOSTID is set to the same name, or to X for a name written
 *                              "name/X". Mixed lists (some "-") and NCCL_HOSTID different from the
 *                              name must end the job with exit 2 (the driver checks the code and
 *                              the message). CB_SHARE_GPUS=1 in the environment: the split runs
 *                              in that mode (NCCL_HOSTID must then be "name." and a suffix, and
 *                              unnamed ranks are refused).
 *
 * Prints "PASS <case> (N ranks)" on rank 0 when every check holds; exit 1 otherwise. */
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cb_testing.h"
#include "error.h"
#include "mpi_testing.h"
#include "mpi_world.h"

#define MAX_RANKS 64

/* The expected map, the same on every rank. */
typedef struct vmap {
  char name[MAX_RANKS][CB_HOST_MAX];
  int node[MAX_RANKS], local[MAX_RANKS], size[MAX_RANKS];
  int nnodes;
} vmap_t;

static void derive(vmap_t *m, int nranks) {
  m->nnodes = 0;
  for (int r = 0; r < nranks; r++) {
    int first = -1;
    for (int q = 0; q < r && first < 0; q++)
      if (strcmp(m->name[q], m->name[r]) == 0) first = q;
    m->node[r] = first < 0 ? m->nnodes++ : m->node[first];
    m->local[r] = 0;
    for (int q = 0; q < r; q++) m->local[r] += strcmp(m->name[q], m->name[r]) == 0;
  }
  for (int r = 0; r < nranks; r++) {
    m->size[r] = 0;
    for (int q = 0; q < nranks; q++) m->size[r] += m->node[q] == m->node[r];
  }
}

/* The split against the map: this rank's fields, the node communicator's members, the extremes. */
static void check_split(const cb_mpi_world_t *w, const vmap_t *m) {
  int r = w->rank;
  CHECK_EQ_INT(w->virtual_nodes, 1);
  CHECK(strcmp(w->node_name, m->name[r]) == 0, "node name '%s', want '%s'", w->node_name, m->name[r]);
  CHECK_EQ_INT(w->node, m->node[r]);
  CHECK_EQ_INT(w->local_rank, m->local[r]);
  CHECK_EQ_INT(w->local_nranks, m->size[r]);
  CHECK_EQ_INT(w->nnodes, m->nnodes);
  int mx = 0, mn = MAX_RANKS;
  for (int q = 0; q < w->nranks; q++) {
    if (m->size[q] > mx) mx = m->size[q];
    if (m->size[q] < mn) mn = m->size[q];
  }
  CHECK_EQ_INT(w->max_local_nranks, mx);
  CHECK_EQ_INT(w->min_local_nranks, mn);
  int members[MAX_RANKS], n = 0, sz = 0;
  CB_MPI(MPI_Comm_size(w->node_comm, &sz));
  CHECK_EQ_INT(sz, m->size[r]);
  if (sz > MAX_RANKS) return;
  CB_MPI(MPI_Allgather(&w->rank, 1, MPI_INT, members, 1, MPI_INT, w->node_comm));
  for (int q = 0; q < w->nranks; q++) {
    if (m->node[q] != m->node[r]) continue;
    CHECK(n < sz && members[n] == q, "node communicator member %d is rank %d, want rank %d", n,
          n < sz ? members[n] : -1, q);
    n++;
  }
}

static int usage(void) {
  fprintf(stderr, "usage: mpi_vnodes wrapper K GPUS | mpi_vnodes names A,B,...\n");
  MPI_Finalize();
  return 2;
}

int main(int argc, char **argv) {
  CB_MPI(MPI_Init(&argc, &argv));
  int rank = 0, nranks = 0;
  CB_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CB_MPI(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  if (argc < 3 || nranks > MAX_RANKS) return usage();
  static vmap_t m;
  memset(&m, 0, sizeof m);
  cb_mpi_world_t w;
  const char *sv = getenv("CB_SHARE_GPUS");
  const int share = sv && atoi(sv) == 1; /* "1" or "01": the knob reader's decimal */
  if (strcmp(argv[1], "wrapper") == 0 && (argc == 4 || argc == 5)) {
    int k = atoi(argv[2]);
    if (k < 1) return usage();
    /* the map the wrapper promises */
    for (int r = 0; r < nranks; r++) snprintf(m.name[r], CB_HOST_MAX, "vnode%d", r / k);
    derive(&m, nranks);
    const char *id = getenv("CB_NODE_ID"), *hostid = getenv("NCCL_HOSTID"), *cvd = getenv("CUDA_VISIBLE_DEVICES");
    CHECK(id && strcmp(id, m.name[rank]) == 0, "CB_NODE_ID '%s', want '%s'", id ? id : "(unset)", m.name[rank]);
    /* GPUS "a,b" for every node, or "a,b/c,d" per node (a GPU for every rank: node j on its own) */
    char want[256] = "";
    const char *g = argv[3];
    for (int j = 0; j < rank / k && g; j++) g = strchr(g, '/') ? strchr(g, '/') + 1 : g;
    snprintf(want, sizeof want, "%.*s", (int)(strchr(g, '/') ? (size_t)(strchr(g, '/') - g) : strlen(g)), g);
    CHECK(cvd && strcmp(cvd, want) == 0, "CUDA_VISIBLE_DEVICES '%s', want '%s'", cvd ? cvd : "(unset)", want);
    /* ranks sharing GPUs (fewer listed than K): each rank its own NCCL host, <node>.<local> */
    int listed = 1;
    for (const char *c = want; *c; c++) listed += *c == ',';
    char want_host[CB_HOST_MAX + 16];
    snprintf(want_host, sizeof want_host, share && listed < k ? "%s.%d" : "%s", m.name[rank], rank % k);
    CHECK(hostid && strcmp(hostid, want_host) == 0, "NCCL_HOSTID '%s', want '%s'", hostid ? hostid : "(unset)",
          want_host);
    /* PCT (optional): the MPS share of the SMs each rank must get, "-" for none */
    if (argc == 5) {
      const char *pct = getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
      const char *want_pct = strcmp(argv[4], "-") == 0 ? NULL : argv[4];
      CHECK((!pct && !want_pct) || (pct && want_pct && strcmp(pct, want_pct) == 0),
            "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE '%s', want '%s'", pct ? pct : "(unset)",
            want_pct ? want_pct : "(unset)");
    }
    cb_mpi_world_init(&w, share);
    check_split(&w, &m);
    CHECK_EQ_INT(m.local[rank], rank % k);
    CHECK_EQ_INT(m.node[rank], rank / k);
    /* the GPU: collbench opens visible GPU number <local rank> (PCI order), one per rank of a node */
    CHECK(w.local_rank < k, "local rank %d but only %d GPUs visible", w.local_rank, k);
  } else if (strcmp(argv[1], "names") == 0) {
    char list[MAX_RANKS * CB_HOST_MAX];
    snprintf(list, sizeof list, "%s", argv[2]);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save), n++)
      if (n < MAX_RANKS) snprintf(m.name[n], CB_HOST_MAX, "%s", t);
    if (n != nranks) {
      if (rank == 0) fprintf(stderr, "mpi_vnodes: %d names for %d ranks\n", n, nranks);
      return usage();
    }
    /* "-": no name; "name/hostid": NCCL_HOSTID differs from the name (refused, except
     * name.suffix with CB_SHARE_GPUS=1); the map uses the names alone */
    char hostid[CB_HOST_MAX] = "";
    char *slash = strchr(m.name[rank], '/');
    if (slash) snprintf(hostid, sizeof hostid, "%s", slash + 1);
    for (int r = 0; r < nranks; r++)
      if (strchr(m.name[r], '/')) *strchr(m.name[r], '/') = 0;
    if (strcmp(m.name[rank], "-") == 0) {
      unsetenv("CB_NODE_ID");
      unsetenv("NCCL_HOSTID");
    } else {
      setenv("CB_NODE_ID", m.name[rank], 1);
      setenv("NCCL_HOSTID", slash ? hostid : m.name[rank], 1);
    }
    derive(&m, nranks);
    cb_mpi_world_init(&w, share); /* a mixed list ends the job here with CB_EXIT_USAGE */
    check_split(&w, &m);
  } else {
    return usage();
  }
  int rc = cb_mpi_test_finish(w.rank, w.nranks, argv[1]);
  cb_mpi_world_free(&w);
  MPI_Finalize();
  return rc;
}
