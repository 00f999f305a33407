/* The planning entry points of placement.h: load, find GPUs (real or fake), plan, clean up.
 *
 * Each call loads its own topology and destroys it before returning, so a plan is plain data
 * that can be printed, written as a rankfile or compared in tests without hwloc handles. */
#include <string.h>

#include "topo_internal.h"

static void set_source(cb_placement_t *pl, const char *xml_path) {
  snprintf(pl->source, sizeof pl->source, "%s", xml_path ? xml_path : "live");
}

static int plan_real(const char *xml_path, int split, cb_placement_t *pl, char *why, size_t n) {
  hwloc_topology_t t;
  cb_topo_gpu_t gpus[CB_TOPO_MAX_GPUS];
  int ngpus = 0, rc;
  const char *name = cb_topo_name(xml_path);
  memset(pl, 0, sizeof *pl);
  set_source(pl, xml_path);
  if (cb_topo_load(xml_path, &t, why, n) != 0) return -1;
  rc = cb_topo_find_gpus(t, name, gpus, &ngpus, why, n);
  if (rc == 0) rc = cb_topo_plan(t, name, gpus, ngpus, split, pl, why, n);
  hwloc_topology_destroy(t);
  return rc;
}

int cb_placement_compute(const char *xml_path, cb_placement_t *pl, char *why, size_t n) {
  return plan_real(xml_path, 1, pl, why, n);
}

int cb_placement_list_gpus(const char *xml_path, cb_placement_t *pl, char *why, size_t n) {
  return plan_real(xml_path, 0, pl, why, n);
}

int cb_placement_compute_fake(const char *xml_path, int ngpus, cb_placement_t *pl, char *why, size_t n) {
  hwloc_topology_t t;
  cb_topo_gpu_t gpus[CB_TOPO_MAX_GPUS];
  hwloc_obj_t nodes[CB_TOPO_MAX_CPUS];
  int nnodes = 0, rc;
  const char *name = cb_topo_name(xml_path);
  memset(pl, 0, sizeof *pl);
  set_source(pl, xml_path);
  if (ngpus < 1 || ngpus > CB_TOPO_MAX_GPUS)
    return cb_topo_fail(why, n, "fake GPU count %d is outside 1..%d", ngpus, CB_TOPO_MAX_GPUS);
  if (cb_topo_load(xml_path, &t, why, n) != 0) return -1;
  /* CPU-less NUMA nodes (HBM, CXL, GPU memory) cannot host a rank. */
  for (hwloc_obj_t nd = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, NULL); nd && nnodes < CB_TOPO_MAX_CPUS;
       nd = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, nd))
    if (nd->cpuset && !hwloc_bitmap_iszero(nd->cpuset)) nodes[nnodes++] = nd;
  if (nnodes == 0) {
    hwloc_topology_destroy(t);
    return cb_topo_fail(why, n, "%s: no NUMA node with cores to put fake GPUs on", name);
  }
  for (int i = 0; i < ngpus; i++) {
    snprintf(gpus[i].busid, sizeof gpus[i].busid, "fake:%d", i);
    gpus[i].locality = nodes[(long)i * nnodes / ngpus];
    gpus[i].pcidev = NULL;
  }
  rc = cb_topo_plan(t, name, gpus, ngpus, 1, pl, why, n);
  hwloc_topology_destroy(t);
  return rc;
}
