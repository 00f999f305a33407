/* Implementation of meta.h: the one place that writes the run's metadata JSON and the matching
 * stdout header. */
#define _GNU_SOURCE
#include "meta.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attn_cudnn.h"
#include "cb_gitrev.h"
#include "error.h"
#include "nccl_common.h"

extern char **environ;

void cb_driver_version(int cuda_driver_version, char *buf, size_t n) {
  snprintf(buf, n, "CUDA driver API %d.%d", cuda_driver_version / 1000, (cuda_driver_version % 1000) / 10);
  void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return;
  int (*init)(void) = (int (*)(void))dlsym(h, "nvmlInit_v2");
  int (*ver)(char *, unsigned) = (int (*)(char *, unsigned))dlsym(h, "nvmlSystemGetDriverVersion");
  int (*shut)(void) = (int (*)(void))dlsym(h, "nvmlShutdown");
  char v[96];
  if (init && ver && init() == 0) {
    if (ver(v, sizeof v) == 0) snprintf(buf, n, "%s", v);
    if (shut) shut();
  }
  dlclose(h);
}

#define RANK_INFO_LEN 1024

/* The algorithms selected: a JSON array (name, summary, description) and one header line each. */
static void algos_json(const cb_world_t *w, const cb_algo_t *const *algos, int nalgos, cb_strbuf_t *out,
                       cb_strbuf_t *header) {
  cb_sb_printf(out, "[");
  for (int k = 0; k < nalgos; k++) {
    char desc[512] = "";
    if (algos[k]->describe) algos[k]->describe(w, desc, sizeof desc);
    cb_sb_printf(out, "%s{\"name\":", k ? "," : "");
    cb_sb_json_str(out, algos[k]->name);
    cb_sb_printf(out, ",\"summary\":");
    cb_sb_json_str(out, algos[k]->summary);
    cb_sb_printf(out, ",\"description\":");
    cb_sb_json_str(out, desc);
    cb_sb_printf(out, "}");
    cb_sb_printf(header, "#  algorithm %-12s %s%s%s\n", algos[k]->name, algos[k]->summary, desc[0] ? " — " : "", desc);
  }
  cb_sb_printf(out, "]");
}

/* This rank's record: a JSON object into mine, the header line for stdout into line. */
static void rank_record(const cb_world_t *w, cb_strbuf_t *mine, char *line, size_t n) {
  const cb_mpi_world_t *m = &w->mpi;
  cb_sb_printf(mine, "{\"rank\":%d,\"host\":", m->rank);
  cb_sb_json_str(mine, m->host);
  cb_sb_printf(mine, ",\"pid\":%d,\"local_rank\":%d,\"node\":%d,\"node_name\":", (int)getpid(), m->local_rank,
               m->node);
  cb_sb_json_str(mine, m->node_name);
  cb_sb_printf(mine, ",\"device\":%d,\"pci_busid\":", w->device);
  cb_sb_json_str(mine, w->busid);
  cb_sb_printf(mine, ",\"gpu\":");
  cb_sb_json_str(mine, w->gpu_name);
  cb_sb_printf(mine, ",\"sm_count\":%d,\"cc\":\"%d.%d\",\"gpu_mem_bytes\":%zu,\"binding\":", w->sm_count,
               w->cc_major, w->cc_minor, w->gpu_mem);
  cb_sb_json_str(mine, w->binding);
  cb_sb_printf(mine, "}");
  snprintf(line, n, "#  Rank %3d on %-16s pid %7d  GPU %d [%s] %s  cpus: %s%s%s", m->rank, m->host, (int)getpid(),
           w->device, w->busid, w->gpu_name, w->binding, m->virtual_nodes ? "  node: " : "",
           m->virtual_nodes ? m->node_name : "");
}

/* The distinct host names of hosts[nranks][CB_HOST_MAX], in rank order, as a JSON array. */
static void hosts_json(const char *hosts, int nranks, cb_strbuf_t *out) {
  cb_sb_printf(out, "[");
  for (int r = 0, first = 1; r < nranks; r++) {
    const char *host = hosts + (size_t)r * CB_HOST_MAX;
    int seen = 0;
    for (int q = 0; q < r && !seen; q++) seen = strcmp(host, hosts + (size_t)q * CB_HOST_MAX) == 0;
    if (seen) continue;
    cb_sb_printf(out, "%s", first ? "" : ",");
    cb_sb_json_str(out, host);
    first = 0;
  }
  cb_sb_printf(out, "]");
}

/* The environment that shapes a run, as a JSON object: variables with these prefixes. */
static const char *const kEnvRecorded[] = {"NCCL_", "CB_", "CUDA_VISIBLE_DEVICES=", "CUDA_DEVICE_ORDER=",
                                           "OMPI_COMM_WORLD_SIZE=", "TORCH_SYMM_MEM", "NVSHMEM_"};

static void env_json(cb_strbuf_t *out) {
  cb_sb_printf(out, "{");
  int first = 1;
  for (char **e = environ; *e; e++) {
    int recorded = 0;
    for (size_t i = 0; i < sizeof kEnvRecorded / sizeof kEnvRecorded[0] && !recorded; i++)
      recorded = strncmp(*e, kEnvRecorded[i], strlen(kEnvRecorded[i])) == 0;
    const char *eq = strchr(*e, '=');
    if (!recorded || !eq) continue;
    char key[128];
    snprintf(key, sizeof key, "%.*s", (int)(eq - *e), *e);
    cb_sb_printf(out, "%s", first ? "" : ",");
    cb_sb_json_str(out, key);
    cb_sb_printf(out, ":");
    cb_sb_json_str(out, eq + 1);
    first = 0;
  }
  cb_sb_printf(out, "}");
}

void cb_meta_collect(const cb_world_t *w, const cb_args_t *a, const cb_algo_t *const *algos, int nalgos,
                     cb_strbuf_t *out, cb_strbuf_t *header) {
  const cb_mpi_world_t *m = &w->mpi;
  cb_strbuf_t mine;
  cb_sb_init(&mine);
  char line[RANK_INFO_LEN];
  rank_record(w, &mine, line, sizeof line);

  char *jall = NULL, *lall = NULL, *hosts = NULL;
  if (m->rank == 0) {
    jall = malloc((size_t)m->nranks * RANK_INFO_LEN);
    lall = malloc((size_t)m->nranks * RANK_INFO_LEN);
    hosts = malloc((size_t)m->nranks * CB_HOST_MAX);
    if (!jall || !lall || !hosts) CB_DIE(CB_EXIT_RUNTIME, "out of host memory");
  }
  if (mine.len >= RANK_INFO_LEN) CB_DIE(CB_EXIT_RUNTIME, "rank record too long (%zu)", mine.len);
  cb_mpi_gather_strings(m, mine.s, jall, RANK_INFO_LEN);
  cb_mpi_gather_strings(m, line, lall, RANK_INFO_LEN);
  cb_mpi_gather_strings(m, m->host, hosts, CB_HOST_MAX);
  cb_sb_free(&mine);
  if (m->rank != 0) return;

  cb_strbuf_t algo_json;
  cb_sb_init(&algo_json);
  algos_json(w, algos, nalgos, &algo_json, header);
  cb_sb_printf(header, "# collbench %s (git %s): %s\n#\n# Using devices\n", "0.1", CB_GIT_REV, a->cmdline);
  for (int r = 0; r < m->nranks; r++) cb_sb_printf(header, "%s\n", lall + (size_t)r * RANK_INFO_LEN);
  if (m->virtual_nodes)
    cb_sb_printf(header, "#  virtual cluster: %d nodes named by CB_NODE_ID (NCCL_HOSTID: NCCL joins them over its network transport)\n",
                 m->nnodes);
  if (w->gpu_shared)
    cb_sb_printf(header, "#  shared GPUs: ranks of this job share a GPU (%s); correctness only: their kernels share the "
                         "GPU's SMs and memory, so times are neither NVLink's nor a network's\n",
                 w->gpu_shared_in_node ? "CB_SHARE_GPUS=1: ranks of one node on one GPU, each its own NCCL host, "
                                         "so NCCL joins them over its network transport"
                                       : "ranks of different virtual nodes on the same GPUs");

  char drv[128], mpiv[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  cb_driver_version(w->driver_version, drv, sizeof drv);
  MPI_Get_library_version(mpiv, &len);
  char *nl = strchr(mpiv, '\n');
  if (nl) *nl = 0;
  time_t now = time(NULL);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));

  cb_sb_printf(out, "{\"tool\":\"collbench\",\"version\":\"0.1\",\"git_rev\":\"%s\",\"date\":\"%s\",\"command\":",
               CB_GIT_REV, date);
  cb_sb_json_str(out, a->cmdline);
  cb_sb_printf(out, ",\"family\":\"%s\",\"ranks\":%d,\"nodes\":%d,\"hosts\":", cb_family_name(a->family), m->nranks,
               m->nnodes);
  hosts_json(hosts, m->nranks, out);
  cb_sb_printf(out, ",\"virtual_cluster\":%s,\"gpu_shared\":%s,\"rank_info\":[", m->virtual_nodes ? "true" : "false",
               w->gpu_shared ? "true" : "false");
  for (int r = 0; r < m->nranks; r++) cb_sb_printf(out, "%s%s", r ? "," : "", jall + (size_t)r * RANK_INFO_LEN);
  const int nv = w->nccl_version;
  char nvt[32];
  cb_nccl_version_text(nv, nvt, sizeof nvt);
  cb_sb_printf(out, "],\"driver\":");
  cb_sb_json_str(out, drv);
  cb_sb_printf(out, ",\"cuda_driver_api\":%d,\"cuda_runtime\":%d,\"nccl_version\":\"%s\",\"nccl_version_code\":%d,\"mpi\":",
               w->driver_version, w->runtime_version, nvt, nv);
  cb_sb_json_str(out, mpiv);
  char cudnn[128]; /* the ringattn *_cudnn rows' library: loaded version and headers, or "not available: ..." */
  cb_cudnn_version(cudnn, sizeof cudnn);
  cb_sb_printf(out, ",\"cudnn\":");
  cb_sb_json_str(out, cudnn);
  cb_sb_printf(out, ",\"peer_memory\":%s,\"peer_memory_note\":", w->peer_ok ? "true" : "false");
  cb_sb_json_str(out, w->peer_why);
  cb_sb_printf(out, ",\"env\":");
  env_json(out);
  cb_sb_printf(out, ",\"options\":{\"iters\":%d,\"warmup\":%d,\"check_iters\":%d,\"seed\":%llu,\"timeout_s\":%g,"
                    "\"modes\":\"%s\",\"no_bind\":%d},\"algorithms\":%s}",
               a->iters, a->warmup, a->check_iters, (unsigned long long)a->seed, a->timeout_s,
               a->modes == (CB_MODE_EAGER | CB_MODE_GRAPH) ? "both" : a->modes == CB_MODE_GRAPH ? "graph" : "eager",
               a->no_bind, algo_json.s);
  cb_sb_printf(header, "#  NCCL %s  CUDA runtime %d  driver %s  peer memory: %s%s\n", nvt, w->runtime_version, drv, w->peer_ok ? "yes" : "no",
               w->peer_ok ? "" : w->peer_why);
  cb_sb_free(&algo_json);
  free(jall);
  free(lall);
  free(hosts);
}
