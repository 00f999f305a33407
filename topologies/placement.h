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

#define CB_TOPO_MAX_GPUS 64
#define CB_TOPO_MAX_CPUS 1024

typedef struct cb_gpu_place {
  int index;                 /* 0-based, bus-id order (= local rank that gets this GPU) */
  char busid[32];            /* "0000:00:06.0" */
  int numa_os_index;         /* -1 if unknown */
  int package_logical_index; /* -1 if unknown */
  int ncores;
  int cores[CB_TOPO_MAX_CPUS]; /* logical core indexes given to this GPU's rank */
  int npus;
  int pus[CB_TOPO_MAX_CPUS]; /* OS PU indexes of those cores */
} cb_gpu_place_t;

typedef struct cb_placement {
  char source[1024]; /* "live" or the XML path */
  int ngpus;
  cb_gpu_place_t gpus[CB_TOPO_MAX_GPUS];
} cb_placement_t;

/* Loads the topology (xml_path NULL = this machine) with I/O objects kept and computes the
 * placement for one rank per GPU. Returns 0, or -1 with a message naming the file and the
 * problem in why (unreadable or malformed XML, no GPUs). Never aborts. */
int cb_placement_compute(const char *xml_path, cb_placement_t *pl, char *why, size_t n);

/* Binds the calling process (CPU and memory) to the cores and NUMA node planned for the GPU
 * with PCI bus id `busid` on the live machine. no_bind = 1 only reports the current binding.
 * If the process is already bound to fewer than all allowed PUs (mpirun did it), the binding
 * is kept and reported as such. desc receives one line for the rank header and the results
 * metadata, e.g. "cores 0-7 NUMA 0 (bound by collbench)", "cpus 0-3 (bound by mpirun, kept)",
 * "cpus 0-31 (not bound: --no-bind)". Returns 0, or -1 with why (GPU not found in the live
 * topology, hwloc call failed). Never aborts. */
int cb_placement_bind_self(const char *busid, int no_bind, char *desc, size_t n, char *why,
                           size_t whylen);

#endif
