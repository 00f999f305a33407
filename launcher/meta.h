/* The run's metadata, collected once: what ran (options, the selected algorithms), where (every
 * rank's host, GPU and binding), with which software (driver, NCCL, MPI, collbench's version
 * and git revision) and the hardware limits it is judged against (hw_limits.h). Collecting is
 * collective over the world; the facts land on rank 0, which writes them two ways: the results
 * files' JSON (meta_json.h) and the stdout header (meta_header.h). Nothing here formats or
 * prints. */
#ifndef CB_META_H
#define CB_META_H

#include <mpi.h>

#include "args.h"
#include "collective.h"
#include "hw_limits.h"
#include "world.h"

/* One rank's place, as the JSON's rank_info entry and the header's "#  Rank" line show it. */
typedef struct {
  int rank, pid, local_rank, node, device;
  char host[CB_HOST_MAX], node_name[CB_HOST_MAX];
  char busid[32], gpu[96], binding[256];
  int sm_count, cc_major, cc_minor;
  size_t gpu_mem;
  cb_gpu_limits_t limits; /* this rank's GPU's NVLink and PCIe, read by the rank itself */
} cb_meta_rank_t;

/* A selected algorithm and its description for this world (describe(), or empty). */
typedef struct {
  const cb_algo_t *algo;
  char desc[512];
} cb_meta_algo_t;

typedef struct {
  const cb_world_t *w; /* rank 0's world: nodes, shared GPUs, peer memory, versions */
  const cb_args_t *a;  /* the command line and options */
  const char *version, *git_rev;
  char date[32]; /* UTC, ISO 8601 */
  int nranks;
  cb_meta_rank_t *ranks; /* [nranks], in rank order */
  int nalgos;
  cb_meta_algo_t algos[CB_MAX_ALGOS];
  char driver[128], nccl[32], mpi[MPI_MAX_LIBRARY_VERSION_STRING];
  /* The environment that shapes a run (NCCL_*, CB_*, CUDA_VISIBLE_DEVICES, ...; meta.c lists
   * the prefixes): nenv pointers to environ's "NAME=value" entries, in environ's order. */
  int nenv;
  const char **env;
  /* The limits: the slowest GPU's NVLink and the slowest GPU's PCIe link over all ranks (-1
   * where some rank's figure is unknown: the minimum of the rest could be a guess), whose GPU
   * that is (rank index, -1 when unknown), rank 0's node's NICs on runs of more than one node
   * (the nodes are assumed alike), and why any is unknown. */
  double nvlink_gbs;
  int nvlink_links, nvlink_rank;
  int pcie_gen, pcie_width, pcie_max_gen, pcie_max_width, pcie_rank;
  int nnics;
  cb_nic_limit_t nics[CB_LIMITS_MAX_NICS];
  char limits_note[512];
} cb_meta_t;

/* Collective over the world: gathers every rank's record onto rank 0 and fills m there (with
 * nalgos algorithms); other ranks get m->ranks NULL and nothing else to write. Exits the job
 * with CB_EXIT_RUNTIME when host memory runs out. w and a must outlive m. */
void cb_meta_collect(cb_meta_t *m, const cb_world_t *w, const cb_args_t *a, const cb_algo_t *const *algos, int nalgos);
void cb_meta_free(cb_meta_t *m);

/* The NVIDIA driver version string ("580.159.04") through NVML loaded at run time, or the CUDA
 * driver API version ("CUDA driver API 13.0") when NVML is not there. */
void cb_driver_version(int cuda_driver_version, char *buf, size_t n);

#endif
