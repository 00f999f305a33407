/* Implementation of meta.h: collects the run's metadata (every rank's record gathered onto rank
 * 0, the software versions, the date, the recorded environment and the hardware limits: each
 * rank reads its own GPU's, rank 0 keeps the slowest). meta_json.c and meta_header.c write it. */
#define _GNU_SOURCE
#include "meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cb_gitrev.h"
#include "error.h"
#include "nccl_common.h"
#include "nvml.h"

#ifndef CB_VERSION
#error "CB_VERSION (CMake's project version) must be defined by the build"
#endif

extern char **environ;

void cb_driver_version(int cuda_driver_version, char *buf, size_t n) {
  snprintf(buf, n, "CUDA driver API %d.%d", cuda_driver_version / 1000, (cuda_driver_version % 1000) / 10);
  cb_nvml_t nvml;
  if (cb_nvml_open(&nvml, NULL, 0) != 0) return;
  char v[96];
  if (nvml.init && nvml.driver_version && nvml.init() == CB_NVML_SUCCESS) {
    if (nvml.driver_version(v, sizeof v) == CB_NVML_SUCCESS) snprintf(buf, n, "%s", v);
    if (nvml.shutdown) nvml.shutdown();
  }
  cb_nvml_close(&nvml);
}

/* This rank's record, from its world. */
static void rank_record(const cb_world_t *w, cb_meta_rank_t *r) {
  const cb_mpi_world_t *m = &w->mpi;
  memset(r, 0, sizeof *r);
  r->rank = m->rank;
  r->pid = (int)getpid();
  r->local_rank = m->local_rank;
  r->node = m->node;
  r->device = w->device;
  snprintf(r->host, sizeof r->host, "%s", m->host);
  snprintf(r->node_name, sizeof r->node_name, "%s", m->node_name);
  snprintf(r->busid, sizeof r->busid, "%s", w->busid);
  snprintf(r->gpu, sizeof r->gpu, "%s", w->gpu_name);
  snprintf(r->binding, sizeof r->binding, "%s", w->binding);
  r->sm_count = w->sm_count;
  r->cc_major = w->cc_major;
  r->cc_minor = w->cc_minor;
  r->gpu_mem = w->gpu_mem;
  cb_gpu_limits(w->busid, &r->limits);
}

/* The environment that shapes a run: variables with these prefixes. */
static const char *const kEnvRecorded[] = {
    "NCCL_",          "CB_",     "CUDA_VISIBLE_DEVICES=", "CUDA_DEVICE_ORDER=", "OMPI_COMM_WORLD_SIZE=",
    "TORCH_SYMM_MEM", "NVSHMEM_"};

static int env_recorded(const char *e) {
  if (!strchr(e, '=')) return 0;
  for (size_t i = 0; i < sizeof kEnvRecorded / sizeof kEnvRecorded[0]; i++)
    if (strncmp(e, kEnvRecorded[i], strlen(kEnvRecorded[i])) == 0) return 1;
  return 0;
}

static void collect_env(cb_meta_t *m) {
  int n = 0;
  for (char **e = environ; *e; e++) n += env_recorded(*e);
  m->env = malloc(((size_t)n + 1) * sizeof *m->env);
  if (!m->env) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  for (char **e = environ; *e; e++)
    if (env_recorded(*e)) m->env[m->nenv++] = *e;
}

static void limits_note_add(cb_meta_t *m, const char *text) {
  size_t len = strlen(m->limits_note);
  snprintf(m->limits_note + len, sizeof m->limits_note - len, "%s%s", len ? "; " : "", text);
}

/* A PCIe link's rank for the minimum: each generation doubles the lane rate (2.5, 5, 8, 16, 32,
 * 64 GT/s; Gen3's 8 is close enough to 10 to order links of one job, which are alike). */
static long pcie_score(const cb_gpu_limits_t *g) {
  return (long)g->pcie_width << (g->pcie_gen < 30 ? g->pcie_gen : 30);
}

/* The slowest GPU's figures over all ranks; a figure some rank could not read stays unknown.
 * The note: the first rank's reason (ranks of one job usually share it), then the NICs'. */
static void collect_limits(cb_meta_t *m, const cb_world_t *w) {
  m->nvlink_gbs = -1;
  m->nvlink_links = m->nvlink_rank = m->pcie_rank = -1;
  m->pcie_gen = m->pcie_width = m->pcie_max_gen = m->pcie_max_width = -1;
  int nv_known = 1, pcie_known = 1;
  for (int r = 0; r < m->nranks; r++) {
    const cb_gpu_limits_t *g = &m->ranks[r].limits;
    nv_known &= g->nvlink_gbs >= 0;
    pcie_known &= g->pcie_gen > 0 && g->pcie_width > 0;
    if (g->nvlink_gbs >= 0 && (m->nvlink_rank < 0 || g->nvlink_gbs < m->nvlink_gbs)) {
      m->nvlink_gbs = g->nvlink_gbs;
      m->nvlink_links = g->nvlink_links;
      m->nvlink_rank = r;
    }
    if (g->pcie_gen > 0 && g->pcie_width > 0 &&
        (m->pcie_rank < 0 || pcie_score(g) < pcie_score(&m->ranks[m->pcie_rank].limits))) {
      m->pcie_gen = g->pcie_gen;
      m->pcie_width = g->pcie_width;
      m->pcie_max_gen = g->pcie_max_gen;
      m->pcie_max_width = g->pcie_max_width;
      m->pcie_rank = r;
    }
    if (g->note[0] && !m->limits_note[0])
      snprintf(m->limits_note, sizeof m->limits_note, "rank %d (GPU %s): %s", r, m->ranks[r].busid, g->note);
  }
  if (!nv_known) {
    m->nvlink_gbs = -1;
    m->nvlink_links = m->nvlink_rank = -1;
  }
  if (!pcie_known) m->pcie_gen = m->pcie_width = m->pcie_max_gen = m->pcie_max_width = m->pcie_rank = -1;
  if (w->mpi.nnodes <= 1) return;
  int more = 0;
  m->nnics = cb_nic_limits("/sys", m->nics, CB_LIMITS_MAX_NICS, &more);
  if (more) {
    char text[64];
    snprintf(text, sizeof text, "more NICs than the %d recorded", CB_LIMITS_MAX_NICS);
    limits_note_add(m, text);
  }
  if (m->nnics == 0)
    limits_note_add(m, "no NIC found on rank 0's node (/sys/class/infiniband/*/ports/*, up /sys/class/net/*)");
}

void cb_meta_collect(cb_meta_t *m, const cb_world_t *w, const cb_args_t *a, const cb_algo_t *const *algos, int nalgos) {
  memset(m, 0, sizeof *m);
  cb_meta_rank_t mine;
  rank_record(w, &mine);
  const int root = w->mpi.rank == 0;
  if (root) {
    m->ranks = malloc((size_t)w->mpi.nranks * sizeof *m->ranks);
    if (!m->ranks) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  }
  /* every rank runs this binary, so the record's bytes mean the same on each */
  CB_MPI(MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, m->ranks, (int)sizeof mine, MPI_BYTE, 0, w->mpi.comm));
  if (!root) return;

  m->w = w;
  m->a = a;
  m->version = CB_VERSION;
  m->git_rev = CB_GIT_REV;
  m->nranks = w->mpi.nranks;
  m->nalgos = nalgos < CB_MAX_ALGOS ? nalgos : CB_MAX_ALGOS;
  for (int k = 0; k < m->nalgos; k++) {
    m->algos[k].algo = algos[k];
    if (algos[k]->describe) algos[k]->describe(w, m->algos[k].desc, sizeof m->algos[k].desc);
  }
  cb_driver_version(w->driver_version, m->driver, sizeof m->driver);
  cb_nccl_version_text(w->nccl_version, m->nccl, sizeof m->nccl);
  int len = 0;
  MPI_Get_library_version(m->mpi, &len);
  char *nl = strchr(m->mpi, '\n');
  if (nl) *nl = 0;
  time_t now = time(NULL);
  strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  collect_env(m);
  collect_limits(m, w);
}

void cb_meta_free(cb_meta_t *m) {
  free(m->ranks);
  free(m->env);
  memset(m, 0, sizeof *m);
}
