/* Internal interface between the files of cb_topo (not installed, not for collbench).
 *
 * The library works in three steps, one file each: load a topology (topo_load.c), find the
 * GPUs and their localities (gpu_find.c, or fake ones for tests in placement.c), then plan the
 * cores (core_split.c). A "locality" is the hwloc object whose cpuset the GPU is local to: the
 * GPU's non-I/O ancestor, or a NUMA node for fake GPUs. */
#ifndef CB_TOPO_INTERNAL_H
#define CB_TOPO_INTERNAL_H

#include <hwloc.h>
#include <stdarg.h>
#include <stddef.h>

#include "placement.h"

typedef struct cb_topo_gpu {
  char busid[32];
  hwloc_obj_t locality; /* non-NULL, has a cpuset */
  hwloc_obj_t pcidev;   /* NULL for fake GPUs */
} cb_topo_gpu_t;

/* printf into why (truncating); returns -1 so error paths read `return cb_topo_fail(...)`. */
int cb_topo_fail(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* hwloc_topology_init + KEEP_IMPORTANT I/O filter + (XML) + load. xml_path NULL = live. */
int cb_topo_load(const char *xml_path, hwloc_topology_t *out, char *why, size_t n);

/* Name of the topology for messages: the XML path, or "live topology". */
const char *cb_topo_name(const char *xml_path);

/* Finds the GPUs, sorted by bus id. Fails (naming `name`) when there are none or too many. */
int cb_topo_find_gpus(hwloc_topology_t t, const char *name, cb_topo_gpu_t *gpus, int *ngpus, char *why, size_t n);

/* Fills pl (all but source) from the GPUs' localities: split = 1 gives each GPU an exclusive,
 * contiguous share of its locality's cores; split = 0 gives each all of them. */
int cb_topo_plan(hwloc_topology_t t, const char *name, const cb_topo_gpu_t *gpus, int ngpus, int split,
                 cb_placement_t *pl, char *why, size_t n);

/* The binding step of cb_placement_bind_self / _bind_planned on a loaded live topology. */
int cb_topo_bind(hwloc_topology_t t, const cb_gpu_place_t *g, int no_bind, char *desc, size_t n, char *why,
                 size_t whylen);

#endif
