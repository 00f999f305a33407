/* Turning GPU localities into per-rank core sets, NUMA nodes and packages.
 *
 * GPUs whose localities have the same cpuset form one group (e.g. the 4 T4s under one socket
 * of a g4dn.metal). A group of k GPUs with C free cores gives GPU j (j-th in bus-id order) the
 * cores [j*C/k, (j+1)*C/k) in logical order: contiguous, disjoint, sizes differing by at most
 * one. Groups are served smallest locality first and a served group's cores are taken out of
 * the pool, so a GPU attached to the whole machine (no locality information, as in VMs) never
 * lands on cores already given to a GPU with a precise locality. C < k is an error rather than
 * a silent overlap: two ranks on one core would measure the CPU, not the GPUs.
 *
 * A rank's NUMA node is the first NUMA node (logical order) whose cpuset covers all of its
 * cores; its package the Package that covers them; -1 where they span several. */
#include <stdlib.h>
#include <string.h>

#include "topo_internal.h"

static void locality_name(hwloc_obj_t o, char *buf, size_t n) {
  char type[64];
  if (hwloc_obj_type_snprintf(type, sizeof type, o, 0) < 0) snprintf(type, sizeof type, "object");
  snprintf(buf, n, "%s L#%u", type, o->logical_index);
}

static int fill_packages(hwloc_topology_t t, const char *name, cb_placement_t *pl, char *why, size_t n) {
  int np = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  if (np > CB_TOPO_MAX_PACKAGES)
    return cb_topo_fail(why, n, "%s: %d packages, more than CB_TOPO_MAX_PACKAGES (%d)", name, np, CB_TOPO_MAX_PACKAGES);
  pl->npackages = np;
  for (int p = 0; p < np; p++) {
    hwloc_obj_t pkg = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, (unsigned)p);
    hwloc_obj_t c0 = pkg ? hwloc_get_next_obj_inside_cpuset_by_type(t, pkg->cpuset, HWLOC_OBJ_CORE, NULL) : NULL;
    pl->package_first_core[p] = c0 ? (int)c0->logical_index : -1;
    int nc = pkg ? hwloc_get_nbobjs_inside_cpuset_by_type(t, pkg->cpuset, HWLOC_OBJ_CORE) : 0;
    pl->package_ncores[p] = nc > 0 ? nc : 0; /* -1: cores at several depths (never seen) */
  }
  return 0;
}

static int bitmap_to_array(hwloc_const_bitmap_t b, int *out, int *nout, const char *name, const char *what, char *why,
                           size_t n) {
  int k = 0, id;
  hwloc_bitmap_foreach_begin(id, b) {
    if (k >= CB_TOPO_MAX_CPUS)
      return cb_topo_fail(why, n, "%s: %s has more than CB_TOPO_MAX_CPUS (%d) PUs", name, what, CB_TOPO_MAX_CPUS);
    out[k++] = id;
  }
  hwloc_bitmap_foreach_end();
  *nout = k;
  return 0;
}

/* Fills one GPU's entry from its cores (ncores > 0), with rank_set as scratch. */
static int fill_gpu(hwloc_topology_t t, const char *name, const cb_topo_gpu_t *in, hwloc_obj_t *cores, int ncores,
                    hwloc_bitmap_t rank_set, cb_gpu_place_t *g, char *why, size_t n) {
  snprintf(g->busid, sizeof g->busid, "%s", in->busid);
  if (ncores > CB_TOPO_MAX_CPUS)
    return cb_topo_fail(why, n, "%s: GPU %s: more than CB_TOPO_MAX_CPUS (%d) cores", name, in->busid, CB_TOPO_MAX_CPUS);
  hwloc_bitmap_zero(rank_set);
  for (int i = 0; i < ncores; i++) {
    g->cores[i] = (int)cores[i]->logical_index;
    if (hwloc_bitmap_or(rank_set, rank_set, cores[i]->cpuset) != 0)
      return cb_topo_fail(why, n, "%s: hwloc_bitmap_or failed (out of memory)", name);
  }
  g->ncores = ncores;
  if (bitmap_to_array(rank_set, g->pus, &g->npus, name, in->busid, why, n) != 0 ||
      bitmap_to_array(in->locality->cpuset, g->local_pus, &g->nlocal_pus, name, in->busid, why, n) != 0)
    return -1;

  g->numa_os_index = -1;
  for (hwloc_obj_t nd = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, NULL); nd;
       nd = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, nd))
    if (nd->cpuset && hwloc_bitmap_isincluded(rank_set, nd->cpuset)) {
      g->numa_os_index = (int)nd->os_index;
      break;
    }
  g->package_logical_index = -1;
  hwloc_obj_t cover = hwloc_get_obj_covering_cpuset(t, rank_set);
  for (; cover; cover = cover->parent)
    if (cover->type == HWLOC_OBJ_PACKAGE) {
      g->package_logical_index = (int)cover->logical_index;
      break;
    }
  return 0;
}

/* The cores of `set` not in `taken`, in logical order; *out is malloc'ed. */
static int free_cores(hwloc_topology_t t, hwloc_const_cpuset_t set, hwloc_const_bitmap_t taken, hwloc_obj_t **out,
                      int *nout) {
  int max = hwloc_get_nbobjs_inside_cpuset_by_type(t, set, HWLOC_OBJ_CORE), k = 0;
  *out = malloc(sizeof **out * (size_t)(max > 0 ? max : 1));
  if (!*out) return -1;
  for (hwloc_obj_t c = hwloc_get_next_obj_inside_cpuset_by_type(t, set, HWLOC_OBJ_CORE, NULL); c && k < max;
       c = hwloc_get_next_obj_inside_cpuset_by_type(t, set, HWLOC_OBJ_CORE, c))
    if (!hwloc_bitmap_intersects(c->cpuset, taken)) (*out)[k++] = c;
  *nout = k;
  return 0;
}

/* Serves group `leader` (all GPUs whose locality cpuset equals the leader's). */
static int plan_group(hwloc_topology_t t, const char *name, const cb_topo_gpu_t *gpus, int ngpus, int leader, int split,
                      hwloc_bitmap_t taken, hwloc_bitmap_t scratch, cb_placement_t *pl, char *why, size_t n) {
  hwloc_const_cpuset_t set = gpus[leader].locality->cpuset;
  int members[CB_TOPO_MAX_GPUS], k = 0, ncores, rc = 0;
  for (int i = 0; i < ngpus; i++)
    if (hwloc_bitmap_isequal(gpus[i].locality->cpuset, set)) members[k++] = i;
  hwloc_obj_t *cores;
  if (free_cores(t, set, taken, &cores, &ncores) != 0) return cb_topo_fail(why, n, "%s: out of memory", name);
  if (ncores < (split ? k : 1)) {
    char loc[96], list[CB_TOPO_MAX_GPUS * 14] = "";
    locality_name(gpus[leader].locality, loc, sizeof loc);
    for (int j = 0; j < k; j++) {
      strncat(list, j ? " " : "", sizeof list - strlen(list) - 1);
      strncat(list, gpus[members[j]].busid, sizeof list - strlen(list) - 1);
    }
    rc = cb_topo_fail(why, n,
                      "%s: %d GPU(s) (%s) are local to %s, which has %d free core(s): cannot "
                      "give each rank its own core",
                      name, k, list, loc, ncores);
    goto out;
  }
  for (int j = 0; j < k && rc == 0; j++) {
    int lo = split ? j * ncores / k : 0, hi = split ? (j + 1) * ncores / k : ncores;
    cb_gpu_place_t *g = &pl->gpus[members[j]];
    g->index = members[j];
    rc = fill_gpu(t, name, &gpus[members[j]], cores + lo, hi - lo, scratch, g, why, n);
    if (rc == 0 && split && hwloc_bitmap_or(taken, taken, scratch) != 0)
      rc = cb_topo_fail(why, n, "%s: hwloc_bitmap_or failed (out of memory)", name);
  }
out:
  free(cores);
  return rc;
}

int cb_topo_plan(hwloc_topology_t t, const char *name, const cb_topo_gpu_t *gpus, int ngpus, int split,
                 cb_placement_t *pl, char *why, size_t n) {
  int leaders[CB_TOPO_MAX_GPUS], nl = 0, rc = 0;
  pl->ngpus = ngpus;
  pl->shared = !split;
  if (hwloc_get_type_depth(t, HWLOC_OBJ_CORE) < 0)
    return cb_topo_fail(why, n, "%s: the topology has no Core objects", name);
  if (fill_packages(t, name, pl, why, n) != 0) return -1;

  /* One leader (first member) per group, then sort by locality size, smallest first. */
  for (int i = 0; i < ngpus; i++) {
    int seen = 0;
    for (int j = 0; j < nl && !seen; j++)
      seen = hwloc_bitmap_isequal(gpus[leaders[j]].locality->cpuset, gpus[i].locality->cpuset);
    if (!seen) leaders[nl++] = i;
  }
  for (int a = 1; a < nl; a++)
    for (int b = a; b > 0; b--) {
      int wa = hwloc_bitmap_weight(gpus[leaders[b - 1]].locality->cpuset);
      int wb = hwloc_bitmap_weight(gpus[leaders[b]].locality->cpuset);
      if (wb >= wa) break;
      int tmp = leaders[b];
      leaders[b] = leaders[b - 1];
      leaders[b - 1] = tmp;
    }

  hwloc_bitmap_t taken = hwloc_bitmap_alloc(), scratch = hwloc_bitmap_alloc();
  if (!taken || !scratch) rc = cb_topo_fail(why, n, "%s: hwloc_bitmap_alloc failed", name);
  for (int l = 0; l < nl && rc == 0; l++)
    rc = plan_group(t, name, gpus, ngpus, leaders[l], split, taken, scratch, pl, why, n);
  hwloc_bitmap_free(taken);
  hwloc_bitmap_free(scratch);
  return rc;
}
