/* Rank start: MPI ranks and nodes → one GPU per rank (local rank in PCI bus order) → CPU binding
 * next to that GPU (topologies/placement.c) → NCCL communicator (and, across nodes, the rail
 * communicators of the hierarchical algorithms) → peer-memory probe among the node's ranks. The
 * result is the cb_world_t every algorithm receives. */
#include "world_init.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "args.h"
#include "error_gpu.h"
#include "gpu_visibility.h"
#include "nccl_common.h"
#include "peer.h"
#include "placement.h"
#include "signal_pad.h"
#include "watchdog.h"

/* The abort hook: runs on the thread that owns NCCL (error.h), never concurrently with an NCCL
 * call. The kernels' abort word is already set, so custom kernels stop spinning; NCCL's own
 * kernels stop when the communicator is aborted. */
static void abort_nccl(void *arg) {
  cb_world_t *w = arg;
  if (w->rail) ncclCommAbort(w->rail);
  w->rail = NULL;
  if (w->nccl) ncclCommAbort(w->nccl);
  w->nccl = NULL;
}

/* Host-mapped control words for the custom kernels (kernels/signal_pad.h). */
static void open_ctl(cb_world_t *w) {
  void *p = NULL;
  CB_CUDA(cudaHostAlloc(&p, CB_CTL_WORDS * sizeof(unsigned int), cudaHostAllocMapped | cudaHostAllocPortable));
  memset(p, 0, CB_CTL_WORDS * sizeof(unsigned int));
  w->ctl_host = p;
  CB_CUDA(cudaHostGetDevicePointer((void **)&w->ctl_dev, p, 0));
  cb_set_kernel_abort_word(&w->ctl_host[CB_CTL_ABORT]);
}

/* All ranks learn whether any rank failed (cb_mpi_agree); the failing ranks print their own
 * reason; everyone leaves with CB_EXIT_ENV through MPI_Finalize (a clean exit, not an abort
 * banner). */
static void agree_or_exit(const cb_world_t *w, int ok, const char *why) {
  char agreed[512];
  snprintf(agreed, sizeof agreed, "%s", why);
  if (cb_mpi_agree(w->mpi.comm, ok, agreed, sizeof agreed)) return;
  if (!ok) fprintf(stderr, "collbench: error [rank %d host %s]: %s\n", w->mpi.rank, w->mpi.host, why);
  fflush(stderr);
  if (w->wd) cb_watchdog_stop(w->wd); /* collective, like this exit */
  MPI_Finalize();
  exit(CB_EXIT_ENV);
}

typedef struct dev_bus {
  int dev;
  char bus[32];
} dev_bus_t;

static int cmp_bus(const void *a, const void *b) {
  return strcasecmp(((const dev_bus_t *)a)->bus, ((const dev_bus_t *)b)->bus);
}

static void choose_gpu(cb_world_t *w) {
  char why[512] = "";
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess) ndev = 0;
  dev_bus_t *list = calloc((size_t)(ndev > 0 ? ndev : 1), sizeof *list);
  if (!list) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  for (int d = 0; d < ndev; d++) {
    list[d].dev = d;
    CB_CUDA(cudaDeviceGetPCIBusId(list[d].bus, sizeof list[d].bus, d));
  }
  qsort(list, (size_t)ndev, sizeof *list, cmp_bus);
  /* collective over the node: fewer GPUs than ranks is fine when each rank has its own (Slurm
   * --gpus-per-task): the peer probe then names the cause instead of failing CUDA IPC */
  cb_gpu_visibility_t vis = cb_gpu_visibility(&w->mpi, ndev, ndev > 0 ? list[0].bus : "");
  int ok = 1;
  if (ndev == 0) {
    snprintf(why, sizeof why, "no CUDA GPU is visible on this host (%s); collbench needs one GPU per rank",
             e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    ok = 0;
  } else if (vis == CB_GPU_VIS_TOO_FEW && !w->knobs.share_gpus) {
    snprintf(why, sizeof why,
             "node %s runs %d ranks but only %d GPU(s) are visible (CUDA_VISIBLE_DEVICES=%s); start at most one "
             "rank per GPU of a node (or, to test correctness only, let ranks share GPUs: collbench-run --vnodes N "
             "--share-gpus)",
             w->mpi.node_name, w->mpi.local_nranks, ndev,
             getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "unset");
    ok = 0;
  }
  agree_or_exit(w, ok, why);
  w->gpu_per_task = vis == CB_GPU_VIS_PER_TASK && !w->knobs.share_gpus;
  /* CB_SHARE_GPUS=1: local ranks beyond the GPU count wrap around; one GPU per task: its own */
  const int g = w->gpu_per_task ? 0 : w->mpi.local_rank % ndev;
  w->device = list[g].dev;
  snprintf(w->busid, sizeof w->busid, "%s", list[g].bus);
  free(list);
}

/* Whether any two ranks of the job use one GPU (same host, same PCI bus id): ranks of virtual
 * nodes sharing a GPU under MPS (launcher/collbench-vnode), or of one node with CB_SHARE_GPUS=1.
 * The same answer on every rank. In a virtual cluster (one host), two such ranks under one NCCL
 * host id would make NCCL stop with "Duplicate GPU detected": that is an error here, before NCCL
 * starts (real nodes are left alone: two hosts may share a name, NCCL tells them apart). */
static void find_shared_gpu(cb_world_t *w) {
  enum { HOSTID_MAX = 1024 + 1 }; /* NCCL_HOSTID's length limit in NCCL */
  enum { GPU = CB_HOST_MAX + sizeof w->busid, NODE = GPU + sizeof(int), KEY = NODE + HOSTID_MAX };
  char *mine = calloc(1, KEY), *all = calloc((size_t)w->mpi.nranks, KEY), why[512] = "";
  if (!mine || !all) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  snprintf(mine, CB_HOST_MAX, "%s", w->mpi.host);
  snprintf(mine + CB_HOST_MAX, sizeof w->busid, "%s", w->busid);
  memcpy(mine + GPU, &w->mpi.node, sizeof(int));
  const char *hostid = getenv("NCCL_HOSTID");
  snprintf(mine + NODE, HOSTID_MAX, "%s", hostid ? hostid : "");
  CB_MPI(MPI_Allgather(mine, KEY, MPI_CHAR, all, KEY, MPI_CHAR, w->mpi.comm));
  int ok = 1;
  for (int a = 0; a < w->mpi.nranks && ok; a++)
    for (int b = a + 1; b < w->mpi.nranks && ok; b++) {
      const char *pa = all + (size_t)a * KEY, *pb = all + (size_t)b * KEY;
      if (memcmp(pa, pb, GPU) != 0) continue;
      w->gpu_shared = 1;
      if (memcmp(pa + GPU, pb + GPU, sizeof(int)) == 0) w->gpu_shared_in_node = 1;
      if (w->mpi.virtual_nodes && strcmp(pa + NODE, pb + NODE) == 0) {
        snprintf(why, sizeof why,
                 "ranks %d and %d use one GPU (%s on %s) under one NCCL host id ('%.200s'): NCCL refuses that; give "
                 "each rank sharing a GPU its own NCCL_HOSTID (launcher/collbench-vnode does with CB_SHARE_GPUS=1)",
                 a, b, pa + CB_HOST_MAX, pa, pa + NODE);
        ok = 0;
      }
    }
  free(mine);
  free(all);
  /* the verdict comes from gathered data, so every rank reaches it; rank 0 reports */
  if (!ok) agree_or_exit(w, w->mpi.rank != 0, why);
}

/* After binding, so the CUDA context's helper threads inherit the rank's CPU set. */
static void open_gpu(cb_world_t *w) {
  CB_CUDA(cudaSetDevice(w->device));
  struct cudaDeviceProp prop;
  CB_CUDA(cudaGetDeviceProperties(&prop, w->device));
  snprintf(w->gpu_name, sizeof w->gpu_name, "%.95s", prop.name);
  w->sm_count = prop.multiProcessorCount;
  w->threads_per_sm = prop.maxThreadsPerMultiProcessor;
  w->cc_major = prop.major;
  w->cc_minor = prop.minor;
  w->gpu_mem = prop.totalGlobalMem;
  CB_CUDA(cudaDriverGetVersion(&w->driver_version));
  CB_CUDA(cudaRuntimeGetVersion(&w->runtime_version));
  CB_CUDA(cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking));
}

static void bind_cpu(cb_world_t *w, int no_bind) {
  char why[256] = "";
  if (cb_placement_bind_self(w->busid, no_bind, w->binding, sizeof w->binding, why, sizeof why)) {
    CB_WARN("CPU binding: %s; running unbound", why);
    snprintf(w->binding, sizeof w->binding, "unbound (%s)", why);
  }
}

static void init_nccl(cb_world_t *w) {
  ncclUniqueId id;
  if (w->mpi.rank == 0) CB_NCCL(ncclGetUniqueId(&id));
  CB_MPI(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, w->mpi.comm));
  CB_NCCL(ncclCommInitRank(&w->nccl, w->mpi.nranks, id, w->mpi.rank));
  w->nccl_reg = cb_nccl_registered_state_new();
  CB_NCCL(ncclGetVersion(&w->nccl_version));
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
  w->nccl_fp8 = w->nccl_version >= NCCL_VERSION(2, 24, 0) && w->cc_major >= 9;
#else
  w->nccl_fp8 = 0;
#endif
  cb_set_abort_hook(abort_nccl, w);
  /* the rails: split once here (collective over every rank), not per sweep point */
  if (w->mpi.nnodes > 1) CB_NCCL(ncclCommSplit(w->nccl, w->mpi.local_rank, w->mpi.node, &w->rail, NULL));
}

/* Peer-memory probe: the node's ranks make a small peer allocation the way the custom
 * algorithms do (cb_peer_alloc: export, exchange, open every peer's), each writes its rank into
 * its own, and each reads every peer's back through the mapping. Any failure makes peer_ok 0 on
 * the whole node with the lowest failing rank's reason, so custom algorithms report "not
 * supported" instead of crashing. */
static void probe_peers(cb_world_t *w) {
  const cb_mpi_world_t *m = &w->mpi;
  char why[sizeof w->peer_why] = "";
  int *ranks = calloc((size_t)m->local_nranks, sizeof *ranks);
  if (!ranks) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  CB_MPI(MPI_Allgather(&m->rank, 1, MPI_INT, ranks, 1, MPI_INT, m->node_comm));
  cb_peer_mem_t pm;
  if (w->gpu_per_task) { /* no IPC to try: the peers' devices are not visible here (choose_gpu) */
    free(ranks);
    w->peer_ok = 0;
    snprintf(w->peer_why, sizeof w->peer_why, "%s", CB_GPU_PER_TASK_NOTE);
    return;
  }
  int ok = cb_peer_alloc(w, 256, &pm, why, sizeof why) == 0;
  if (ok) {
    int mark[64];
    for (int i = 0; i < 64; i++) mark[i] = 1000 + m->rank;
    char e[200];
    /* cudaMemcpy from pageable memory may return before its DMA lands (CUDA's API sync
     * notes): without the device sync a peer could read the old bytes, as ranks sharing one GPU
     * without MPS did (the probe then said "wrong value" and every custom row was refused) */
    int wrote = !CB_TRY_CUDA(cudaMemcpy(pm.ptrs[pm.me], mark, sizeof mark, cudaMemcpyHostToDevice), e, sizeof e) &&
                !CB_TRY_CUDA(cudaDeviceSynchronize(), e, sizeof e);
    if (!wrote) snprintf(why, sizeof why, "rank %d: %s", m->rank, e);
    /* every mark written before anyone reads */
    int readable = cb_mpi_agree(m->node_comm, wrote, why, sizeof why);
    for (int p = 0; readable && p < pm.n; p++) {
      if (p == pm.me) continue;
      int got = -1;
      if (CB_TRY_CUDA(cudaMemcpy(&got, pm.ptrs[p], sizeof got, cudaMemcpyDeviceToHost), e, sizeof e) ||
          got != 1000 + ranks[p]) {
        snprintf(why, sizeof why, "peer read from rank %d to rank %d failed (%s)", ranks[p], m->rank,
                 got == -1 ? e : "wrong value");
        readable = 0;
      }
    }
    /* collective: also keeps every buffer until all ranks have finished reading */
    ok = cb_mpi_agree(m->node_comm, readable, why, sizeof why);
    cb_peer_free(&pm);
  }
  free(ranks);
  w->peer_ok = ok;
  snprintf(w->peer_why, sizeof w->peer_why, "%s", ok ? "" : why);
}

/* The grid limits every rank must share (blocks pair up across ranks): the smallest GPU's SM
 * count and threads per SM, the SM count capped by --sms / CB_SMS. */
static void agree_grid(cb_world_t *w) {
  int mine[2] = {w->sm_count, w->threads_per_sm}, all[2];
  if (w->knobs.sm_count && w->knobs.sm_count < mine[0]) mine[0] = w->knobs.sm_count;
  CB_MPI(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, w->mpi.comm));
  w->grid_sms = all[0];
  w->threads_per_sm = all[1];
}

void cb_world_init(cb_world_t *w, const struct cb_args *args, const cb_knobs_t *knobs) {
  struct cb_watchdog *wd = w->wd; /* set by the caller before init */
  memset(w, 0, sizeof *w);
  w->wd = wd;
  w->knobs = *knobs;
  w->spin_timeout_ns = (uint64_t)(args->timeout_s * 0.5e9);
  cb_mpi_world_init(&w->mpi, knobs->share_gpus);
  choose_gpu(w);
  find_shared_gpu(w);
  bind_cpu(w, args->no_bind);
  open_gpu(w);
  open_ctl(w);
  cb_set_device_timeout_word(&w->ctl_host[CB_CTL_TIMEOUT], w->spin_timeout_ns * 1e-9, w->wd ? w->wd->what : NULL);
  agree_grid(w);
  init_nccl(w);
  probe_peers(w);
}

void cb_world_free(cb_world_t *w) {
  cb_set_abort_hook(NULL, NULL);
  if (w->rail) CB_NCCL(ncclCommDestroy(w->rail));
  w->rail = NULL;
  cb_set_kernel_abort_word(NULL);
  cb_set_device_timeout_word(NULL, 0.0, NULL);
  if (w->ctl_host) CB_CUDA(cudaFreeHost((void *)w->ctl_host));
  w->ctl_host = NULL;
  w->ctl_dev = NULL;
  if (w->nccl) cb_nccl_registered_release(w->nccl, w->nccl_reg); /* registered on w->nccl, kept across points */
  w->nccl_reg = NULL;
  if (w->nccl) CB_NCCL(ncclCommDestroy(w->nccl));
  w->nccl = NULL;
  if (w->stream) CB_CUDA(cudaStreamDestroy(w->stream));
  w->stream = NULL;
  cb_mpi_world_free(&w->mpi);
}
