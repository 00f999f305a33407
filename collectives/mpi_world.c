/* Implementation of mpi_world.h. */
#include "mpi_world.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"

#define NODE_ID_VAR "CB_NODE_ID"

/* Leaves the job cleanly on every rank (all ranks reached the same verdict from gathered data). */
static void usage_exit(const cb_mpi_world_t *w, const char *msg) {
  if (w->rank == 0) fprintf(stderr, "collbench: error: %s\n", msg);
  fflush(stderr);
  MPI_Finalize();
  exit(CB_EXIT_USAGE);
}

/* Collective: when any rank is bad, every rank leaves with CB_EXIT_USAGE and rank 0 prints the
 * message of the lowest bad rank. */
static void usage_exit_if_any(const cb_mpi_world_t *w, int bad, char *msg, int n) {
  int me = bad ? w->rank : INT_MAX, first = INT_MAX;
  CB_MPI(MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, w->comm));
  if (first == INT_MAX) return;
  CB_MPI(MPI_Bcast(msg, n, MPI_CHAR, first, w->comm));
  usage_exit(w, msg);
}

/* The node communicator from CB_NODE_ID: every rank's name and host are gathered whole; the
 * node's color is the lowest world rank carrying the same name. */
static void split_by_name(cb_mpi_world_t *w, const char *id, int share_gpus) {
  char msg[3 * CB_HOST_MAX + 640]; /* the longest: the NCCL_HOSTID mismatch with 300 of its characters */
  int len = id ? (int)strlen(id) : 0, bad_len = id && (len == 0 || len >= CB_HOST_MAX);
  int flags[2] = {id != NULL, bad_len}, any[2] = {0, 0}, all_set = 0;
  CB_MPI(MPI_Allreduce(flags, any, 2, MPI_INT, MPI_MAX, w->comm));
  CB_MPI(MPI_Allreduce(&flags[0], &all_set, 1, MPI_INT, MPI_MIN, w->comm));
  if (any[1]) {
    snprintf(msg, sizeof msg, NODE_ID_VAR " must be 1 to %d characters on every rank", CB_HOST_MAX - 1);
    usage_exit(w, msg);
  }
  if (!any[0] && share_gpus)
    usage_exit(w, "CB_SHARE_GPUS=1 needs a virtual cluster: start the ranks through launcher/collbench-vnode "
                  "(collbench-run --vnodes N --share-gpus), which gives each rank its own NCCL host id (NCCL "
                  "refuses two ranks on one GPU of one host)");
  if (!any[0]) return; /* no rank names its node: real nodes */
  /* NCCL must see the same nodes, or the comparison is void (and two ranks of different virtual
   * nodes on one GPU make NCCL stop with "Duplicate GPU detected"). With CB_SHARE_GPUS=1 a rank
   * may also be its own NCCL host <node>.<suffix> (ranks of a node sharing a GPU; world_init.c checks
   * that no two ranks on one GPU share an NCCL host). */
  const char *hostid = getenv("NCCL_HOSTID");
  size_t idlen = id ? strlen(id) : 0;
  int mismatch = id && (!hostid || (strcmp(hostid, id) != 0 && (!share_gpus || strncmp(hostid, id, idlen) != 0 ||
                                                                hostid[idlen] != '.' || !hostid[idlen + 1])));
  if (mismatch)
    snprintf(msg, sizeof msg,
             "rank %d: " NODE_ID_VAR
             " is '%s' but NCCL_HOSTID is %s%.300s%s: set %s so NCCL sees %s (launcher/collbench-vnode "
             "does)",
             w->rank, id, hostid ? "'" : "", hostid ? hostid : "unset", hostid ? "'" : "",
             share_gpus
                 ? "NCCL_HOSTID to the node's name, or (ranks sharing a GPU) the name, a dot and the rank's own suffix"
                 : "both to the node's name",
             share_gpus ? "the same nodes, each rank of a shared GPU its own host (CB_SHARE_GPUS=1)"
                        : "the same nodes");
  usage_exit_if_any(w, mismatch, msg, (int)sizeof msg);
  char *names = calloc((size_t)w->nranks * 2, CB_HOST_MAX), mine[2 * CB_HOST_MAX];
  if (!names) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  memset(mine, 0, sizeof mine);
  if (id) memcpy(mine, id, (size_t)len);
  memcpy(mine + CB_HOST_MAX, w->host, strlen(w->host));
  CB_MPI(MPI_Allgather(mine, 2 * CB_HOST_MAX, MPI_CHAR, names, 2 * CB_HOST_MAX, MPI_CHAR, w->comm));
#define NAME(r) (names + (size_t)(r)*2 * CB_HOST_MAX)
#define HOST(r) (NAME(r) + CB_HOST_MAX)
  if (!all_set) {
    int with = -1, without = -1;
    for (int r = 0; r < w->nranks; r++) {
      if (NAME(r)[0] && with < 0) with = r;
      if (!NAME(r)[0] && without < 0) without = r;
    }
    snprintf(msg, sizeof msg,
             NODE_ID_VAR " is set on rank %d ('%s') but not on rank %d: name the node of every rank (virtual "
                         "cluster) or of none (real nodes)",
             with, NAME(with), without);
    free(names);
    usage_exit(w, msg);
  }
  int color = w->rank;
  for (int r = 0; r < w->nranks; r++) {
    if (strcmp(NAME(r), id) != 0) continue;
    if (r < color) color = r;
    if (strcmp(HOST(r), w->host) != 0) {
      /* every rank of the node sees the same pair; the lowest such rank reports it via rank 0 */
      snprintf(msg, sizeof msg, "virtual node '%s' spans hosts '%s' and '%s': a node's ranks must share one host", id,
               w->host, HOST(r));
      color = -1;
      break;
    }
  }
  free(names);
#undef NAME
#undef HOST
  usage_exit_if_any(w, color < 0, msg, (int)sizeof msg);
  CB_MPI(MPI_Comm_split(w->comm, color, w->rank, &w->node_comm));
  w->virtual_nodes = 1;
  snprintf(w->node_name, sizeof w->node_name, "%s", id);
}

void cb_mpi_world_init(cb_mpi_world_t *w, int share_gpus) {
  memset(w, 0, sizeof *w);
  CB_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &w->comm));
  CB_MPI(MPI_Comm_rank(w->comm, &w->rank));
  CB_MPI(MPI_Comm_size(w->comm, &w->nranks));
  if (gethostname(w->host, sizeof w->host - 1)) strcpy(w->host, "?");
  w->host[sizeof w->host - 1] = 0;
  snprintf(w->node_name, sizeof w->node_name, "%s", w->host);
  /* every rank takes part in the name check, set or not, so a mixed setup is named, not hung */
  split_by_name(w, getenv(NODE_ID_VAR), share_gpus);
  if (!w->virtual_nodes)
    CB_MPI(MPI_Comm_split_type(w->comm, MPI_COMM_TYPE_SHARED, w->rank, MPI_INFO_NULL, &w->node_comm));
  CB_MPI(MPI_Comm_rank(w->node_comm, &w->local_rank));
  CB_MPI(MPI_Comm_size(w->node_comm, &w->local_nranks));

  /* A node is named by the world rank of its local rank 0; node index = how many distinct
   * leaders have a smaller world rank. */
  int leader = w->rank;
  CB_MPI(MPI_Bcast(&leader, 1, MPI_INT, 0, w->node_comm));
  int *leaders = malloc(sizeof(int) * (size_t)w->nranks);
  if (!leaders) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  CB_MPI(MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, w->comm));
  w->nnodes = 0;
  w->node = 0;
  for (int r = 0; r < w->nranks; r++) {
    if (leaders[r] != r) continue; /* rank r leads its node */
    w->nnodes++;
    if (r < leader) w->node++;
  }
  free(leaders);
  CB_MPI(MPI_Allreduce(&w->local_nranks, &w->max_local_nranks, 1, MPI_INT, MPI_MAX, w->comm));
  CB_MPI(MPI_Allreduce(&w->local_nranks, &w->min_local_nranks, 1, MPI_INT, MPI_MIN, w->comm));
}

void cb_mpi_world_free(cb_mpi_world_t *w) {
  if (w->node_comm != MPI_COMM_NULL && w->node_comm) CB_MPI(MPI_Comm_free(&w->node_comm));
  if (w->comm != MPI_COMM_NULL && w->comm) CB_MPI(MPI_Comm_free(&w->comm));
}

void cb_mpi_gather_strings(const cb_mpi_world_t *w, const char *mine, char *all, int len) {
  char *buf = calloc(1, (size_t)len);
  if (!buf) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  strncpy(buf, mine, (size_t)len - 1);
  CB_MPI(MPI_Gather(buf, len, MPI_CHAR, all, len, MPI_CHAR, 0, w->comm));
  free(buf);
}

void cb_mpi_wait(MPI_Request *req) {
  for (;;) {
    int done = 0;
    CB_MPI(MPI_Test(req, &done, MPI_STATUS_IGNORE));
    if (done) return;
    cb_abort_poll();
    sched_yield();
  }
}

void cb_mpi_barrier(MPI_Comm comm) {
  MPI_Request req;
  CB_MPI(MPI_Ibarrier(comm, &req));
  cb_mpi_wait(&req);
}

int cb_mpi_agree(MPI_Comm comm, int ok, char *why, size_t n) {
  int rank = 0, mine, first = INT_MAX;
  CB_MPI(MPI_Comm_rank(comm, &rank));
  mine = ok ? INT_MAX : rank;
  MPI_Request req;
  CB_MPI(MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, &req));
  cb_mpi_wait(&req);
  if (first == INT_MAX) return 1;
  CB_MPI(MPI_Ibcast(why, (int)n, MPI_CHAR, first, comm, &req));
  cb_mpi_wait(&req);
  return 0;
}
