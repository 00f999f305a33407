/* GPU-aware process placement from an hwloc topology (the live machine or an XML file).
 *
 * Used by collbench-topo (tables, JSON, Open MPI rankfiles) and by collbench itself (each rank
 * binds to its GPU's local cores). GPUs are NVIDIA PCI devices (vendor 0x10de, class 0x0300 or
 * 0x0302; NVSwitches, class 0x0680, are not GPUs) and cudaN/nvmlN OS devices where the XML has
 * them, ordered by PCI bus id as CUDA_DEVICE_ORDER=PCI_BUS_ID orders them. Each GPU's local
 * cores are those of its non-I/O ancestor; when several GPUs share that locality, the cores
 * are split among them in bus-id order without overlap. */
#ifndef CB_PLACEMENT_H
#define CB_PLACEMENT_H

#include <stddef.h>
#include <stdio.h>

#define CB_TOPO_MAX_GPUS 64
#define CB_TOPO_MAX_CPUS 1024
#define CB_TOPO_MAX_PACKAGES 64

typedef struct cb_gpu_place {
  int index;                 /* 0-based, bus-id order (= local rank that gets this GPU) */
  char busid[32];            /* "0000:00:06.0" */
  int numa_os_index;         /* -1 if unknown */
  int package_logical_index; /* -1 if unknown */
  int ncores;
  int cores[CB_TOPO_MAX_CPUS]; /* logical core indexes given to this GPU's rank */
  int npus;
  int pus[CB_TOPO_MAX_CPUS]; /* OS PU indexes of those cores */
  /* Added for the binding report and the tests: every OS PU local to the GPU (its non-I/O
   * ancestor's cpuset), whether or not this rank was given it. */
  int nlocal_pus;
  int local_pus[CB_TOPO_MAX_CPUS];
} cb_gpu_place_t;

typedef struct cb_placement {
  char source[1024]; /* "live" or the XML path */
  int ngpus;
  cb_gpu_place_t gpus[CB_TOPO_MAX_GPUS];
  /* Added: 1 when cores[] holds every core local to the GPU, shared with the other GPUs of
   * that locality (cb_placement_list_gpus); 0 when it is this rank's exclusive share. */
  int shared;
  /* Added for rankfiles, which number cores relative to their socket: the logical index of
   * each Package's first core and its core count (-1 / 0 for a package without cores). */
  int npackages;
  int package_first_core[CB_TOPO_MAX_PACKAGES];
  int package_ncores[CB_TOPO_MAX_PACKAGES];
} cb_placement_t;

/* Loads the topology (xml_path NULL = this machine) with I/O objects kept and computes the
 * placement for one rank per GPU. Returns 0, or -1 with a message naming the file and the
 * problem in why (unreadable or malformed XML, no GPUs, fewer cores than GPUs in a locality).
 * Never aborts. pl is about 0.8 MB: allocate it on the heap. */
int cb_placement_compute(const char *xml_path, cb_placement_t *pl, char *why, size_t n);

/* Binds the calling process (CPU and memory) to the cores and NUMA node planned for the GPU
 * with PCI bus id `busid` on the live machine. no_bind = 1 only reports the current binding.
 * If the process is already bound to fewer than all allowed PUs (mpirun did it), the binding
 * is kept and reported as such. desc receives one line for the rank header and the results
 * metadata, e.g. "cores 0-7 NUMA 0 (bound by collbench)", "cpus 0-3 (bound by mpirun, kept)",
 * "cpus 0-31 (not bound: --no-bind)". Returns 0, or -1 with why (GPU not found in the live
 * topology, hwloc call failed). Never aborts. With no_bind = 1, a GPU missing from the live
 * topology or an impossible plan is not an error (the report needs neither). Memory binding
 * refused (containers) is noted in desc, not an error. */
int cb_placement_bind_self(const char *busid, int no_bind, char *desc, size_t n, char *why, size_t whylen);

/* ---- Added beyond the original interface ---------------------------------------------- */

/* Like cb_placement_compute, but does not split: each GPU gets every core local to it, so it
 * also works where a locality has fewer cores than GPUs (pl->shared = 1). For listing the GPUs
 * of a topology (collbench-topo --gpus). */
int cb_placement_list_gpus(const char *xml_path, cb_placement_t *pl, char *why, size_t n);

/* Testing aid for machines without GPUs: plans `ngpus` ranks as if that many GPUs were spread
 * evenly, in order, over the NUMA nodes that have cores (GPU i on NUMA node i*nnuma/ngpus),
 * with bus ids "fake:0", "fake:1", ... Same rules as cb_placement_compute otherwise. */
int cb_placement_compute_fake(const char *xml_path, int ngpus, cb_placement_t *pl, char *why, size_t n);

/* The binding half of cb_placement_bind_self, for a plan already computed from the live
 * machine (pl->source "live", e.g. by cb_placement_compute_fake in the MPI test): binds the
 * caller to pl->gpus[gpu] with the same rules and report. */
int cb_placement_bind_planned(const cb_placement_t *pl, int gpu, int no_bind, char *desc, size_t n, char *why,
                              size_t whylen);

/* Writes an Open MPI 4.1 rankfile: ranks_per_node ranks (the first GPUs in bus-id order) on
 * each of the nhosts hosts, every node assumed identical to the planned one. Lines are
 * "rank R=HOST slot=S:A-B" with S the package (socket) logical index and A-B the core range
 * relative to that socket, as Open MPI's rankfile mapper counts them (a rank whose cores span
 * two packages gets "S:A-B,T:C-D"). Returns 0, or -1 with why. */
int cb_placement_write_rankfile(const cb_placement_t *pl, const char *const *hosts, int nhosts, int ranks_per_node,
                                FILE *out, char *why, size_t n);

/* Writes the Slurm CPU mask list for srun --cpu-bind=mask_cpu:LIST: ranks_per_node masks
 * (the first GPUs in bus-id order), comma-separated, each "0x" and hexadecimal digits with bit
 * i = OS CPU i of the cores planned for that GPU (topologies/cpumask.c). Returns 0, or -1 with
 * why (too many ranks, a GPU listing instead of a placement, buf too small). */
int cb_placement_format_cpu_masks(const cb_placement_t *pl, int ranks_per_node, char *buf, size_t n, char *why,
                                  size_t whylen);

/* Whether `host` can stand in a rankfile line "rank R=HOST slot=...": 1 to CB_RANKFILE_HOST_MAX
 * characters, letters, digits, '-', '.' and '_' only (':' '=' ',' '#', blanks, CR and other
 * control bytes would change what Open MPI reads). 0, or -1 with why naming the problem.
 * cb_placement_write_rankfile refuses a host that fails it. */
#define CB_RANKFILE_HOST_MAX 255
int cb_rankfile_host_check(const char *host, char *why, size_t n);

/* Normalises a PCI bus id to hwloc's "dddd:bb:dd.f" (lower case, 4-digit domain): accepts
 * CUDA's "0000:00:06.0", nvidia-smi's "00000000:00:06.0" and "00:06.0". Returns 0, or -1 if
 * `in` is not a bus id. */
int cb_busid_normalize(const char *in, char *out, size_t n);

/* Formats a sorted list of non-negative ints as ranges, "0-5,8,10-11" ("" when empty).
 * Returns 0, or -1 if buf is too small (buf then ends in "..."). */
int cb_format_list(const int *v, int nv, char *buf, size_t n);

#endif
