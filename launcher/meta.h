/* The run's metadata, collected once: what ran (options, the selected algorithms), where (every
 * rank's host, GPU and binding) and with which software (driver, NCCL, MPI, collbench's version
 * and git revision). Collecting is collective over the world; the facts land on rank 0, which
 * writes them two ways: the results files' JSON (meta_json.h) and the stdout header
 * (meta_header.h). Nothing here formats or prints. */
#ifndef CB_META_H
#define CB_META_H

#include <mpi.h>

#include "args.h"
#include "collective.h"
#include "world.h"

/* One rank's place, as the JSON's rank_info entry and the header's "#  Rank" line show it. */
typedef struct {
  int rank, pid, local_rank, node, device;
  char host[CB_HOST_MAX], node_name[CB_HOST_MAX];
  char busid[32], gpu[96], binding[256];
  int sm_count, cc_major, cc_minor;
  size_t gpu_mem;
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
