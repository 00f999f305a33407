/* Binding the calling rank to its GPU's planned cores and NUMA node (live machine only).
 *
 * Rules, in order:
 *  1. Already bound to fewer PUs than allowed (mpirun --bind-to / rankfile, taskset, Slurm):
 *     keep it. The user or launcher chose it; overriding would make `mpirun --rankfile` lie.
 *     The report says whether it touches the GPU's locality at all.
 *  2. --no-bind: report only.
 *  3. Otherwise bind every thread of the process (MPI and CUDA may already have started
 *     threads) to the planned PUs, and memory to the GPU's NUMA node. Memory binding is a
 *     per-thread policy on Linux and is refused in many containers (set_mempolicy needs
 *     CAP_SYS_NICE under Docker's default seccomp profile); that is reported in the
 *     description, not treated as a failure, because CPU placement is what matters most.
 * hwloc_set_cpubind on a topology from another machine's XML silently does nothing, so a
 * topology that is not "this system" is refused. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topo_internal.h"

static int ints_to_bitmap(const int *v, int nv, hwloc_bitmap_t b) {
  hwloc_bitmap_zero(b);
  for (int i = 0; i < nv; i++)
    if (hwloc_bitmap_set(b, (unsigned)v[i]) != 0) return -1;
  return 0;
}

/* " NUMA 3" with memory bound, or "; memory not bound: <reason>" (appended after "collbench"). */
static void bind_memory(hwloc_topology_t t, const cb_gpu_place_t *g, char *numa, size_t nnuma, char *memnote,
                        size_t nmem) {
  numa[0] = memnote[0] = 0;
  if (g->numa_os_index < 0) {
    snprintf(memnote, nmem, "; memory not bound: the cores span several NUMA nodes");
    return;
  }
  hwloc_nodeset_t ns = hwloc_bitmap_alloc();
  if (!ns || hwloc_bitmap_set(ns, (unsigned)g->numa_os_index) != 0) {
    snprintf(memnote, nmem, "; memory not bound: hwloc_bitmap_alloc failed");
  } else if (hwloc_set_membind(t, ns, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET) != 0) {
    snprintf(memnote, nmem, "; memory not bound to NUMA %d: hwloc_set_membind: %s", g->numa_os_index, strerror(errno));
  } else {
    snprintf(numa, nnuma, " NUMA %d", g->numa_os_index);
  }
  hwloc_bitmap_free(ns);
}

int cb_topo_bind(hwloc_topology_t t, const cb_gpu_place_t *g, int no_bind, char *desc, size_t n, char *why,
                 size_t whylen) {
  char cpus[1024], cores[1024], numa[32], memnote[160];
  int rc = 0;
  if (hwloc_topology_is_thissystem(t) != 1)
    return cb_topo_fail(why, whylen,
                        "the topology is not this machine's (HWLOC_XMLFILE or HWLOC_THISSYSTEM "
                        "set?): cannot bind");
  hwloc_bitmap_t cur = hwloc_bitmap_alloc(), want = hwloc_bitmap_alloc();
  if (!cur || !want) {
    rc = cb_topo_fail(why, whylen, "hwloc_bitmap_alloc failed");
    goto out;
  }
  if (hwloc_get_cpubind(t, cur, HWLOC_CPUBIND_PROCESS) != 0) {
    rc = cb_topo_fail(why, whylen, "hwloc_get_cpubind failed: %s", strerror(errno));
    goto out;
  }
  if (hwloc_bitmap_list_snprintf(cpus, sizeof cpus, cur) < 0) snprintf(cpus, sizeof cpus, "?");

  if (!hwloc_bitmap_isincluded(hwloc_topology_get_allowed_cpuset(t), cur)) {
    int local = 1;
    if (g) {
      if (ints_to_bitmap(g->local_pus, g->nlocal_pus, want) != 0) {
        rc = cb_topo_fail(why, whylen, "hwloc_bitmap_set failed");
        goto out;
      }
      local = hwloc_bitmap_intersects(cur, want);
    }
    snprintf(desc, n, "cpus %s (bound by mpirun, kept)%s", cpus, local ? "" : " \xe2\x80\x94 not local to the GPU");
    goto out;
  }
  if (no_bind) {
    snprintf(desc, n, "cpus %s (not bound: --no-bind)", cpus);
    goto out;
  }
  if (!g) {
    rc = cb_topo_fail(why, whylen, "no plan for this GPU: cannot bind");
    goto out;
  }
  if (ints_to_bitmap(g->pus, g->npus, want) != 0) {
    rc = cb_topo_fail(why, whylen, "hwloc_bitmap_set failed");
    goto out;
  }
  if (hwloc_set_cpubind(t, want, HWLOC_CPUBIND_PROCESS) != 0) {
    char wanted[1024];
    if (hwloc_bitmap_list_snprintf(wanted, sizeof wanted, want) < 0) snprintf(wanted, 2, "?");
    rc = cb_topo_fail(why, whylen, "hwloc_set_cpubind to cpus %s (GPU %s) failed: %s", wanted, g->busid,
                      strerror(errno));
    goto out;
  }
  bind_memory(t, g, numa, sizeof numa, memnote, sizeof memnote);
  cb_format_list(g->cores, g->ncores, cores, sizeof cores);
  cb_format_list(g->pus, g->npus, cpus, sizeof cpus);
  snprintf(desc, n, "cores %s (cpus %s)%s (bound by collbench%s)", cores, cpus, numa, memnote);
out:
  hwloc_bitmap_free(cur);
  hwloc_bitmap_free(want);
  return rc;
}

int cb_placement_bind_planned(const cb_placement_t *pl, int gpu, int no_bind, char *desc, size_t n, char *why,
                              size_t whylen) {
  hwloc_topology_t t;
  if (strcmp(pl->source, "live") != 0)
    return cb_topo_fail(why, whylen,
                        "cannot bind with a plan made from %s: only the live "
                        "topology describes this machine",
                        pl->source);
  if (gpu < 0 || gpu >= pl->ngpus)
    return cb_topo_fail(why, whylen, "GPU index %d is outside the plan's 0..%d", gpu, pl->ngpus - 1);
  if (cb_topo_load(NULL, &t, why, whylen) != 0) return -1;
  int rc = cb_topo_bind(t, &pl->gpus[gpu], no_bind, desc, n, why, whylen);
  hwloc_topology_destroy(t);
  return rc;
}

/* Finds busid in the live plan; the plan stays unset (NULL) when no_bind excuses a failure. */
static int find_planned(hwloc_topology_t t, const char *busid, int no_bind, cb_placement_t *pl,
                        const cb_gpu_place_t **g, char *why, size_t whylen) {
  cb_topo_gpu_t gpus[CB_TOPO_MAX_GPUS];
  int ngpus = 0;
  char norm[32], list[CB_TOPO_MAX_GPUS * 14] = "";
  *g = NULL;
  if (cb_busid_normalize(busid, norm, sizeof norm) != 0)
    return no_bind ? 0 : cb_topo_fail(why, whylen, "'%s' is not a PCI bus id", busid);
  if (cb_topo_find_gpus(t, "live topology", gpus, &ngpus, why, whylen) != 0 ||
      cb_topo_plan(t, "live topology", gpus, ngpus, 1, pl, why, whylen) != 0)
    return no_bind ? 0 : -1;
  for (int i = 0; i < pl->ngpus; i++) {
    if (strcmp(pl->gpus[i].busid, norm) == 0) {
      *g = &pl->gpus[i];
      return 0;
    }
    strncat(list, i ? " " : "", sizeof list - strlen(list) - 1);
    strncat(list, pl->gpus[i].busid, sizeof list - strlen(list) - 1);
  }
  return no_bind ? 0 : cb_topo_fail(why, whylen, "GPU %s not found in the live topology (its GPUs: %s)", norm, list);
}

int cb_placement_bind_self(const char *busid, int no_bind, char *desc, size_t n, char *why, size_t whylen) {
  hwloc_topology_t t;
  const cb_gpu_place_t *g;
  cb_placement_t *pl = calloc(1, sizeof *pl); /* ~0.8 MB: too big for a thread's stack */
  if (!pl) return cb_topo_fail(why, whylen, "out of memory");
  snprintf(pl->source, sizeof pl->source, "live");
  int rc = cb_topo_load(NULL, &t, why, whylen);
  if (rc == 0) {
    rc = find_planned(t, busid, no_bind, pl, &g, why, whylen);
    if (rc == 0) rc = cb_topo_bind(t, g, no_bind, desc, n, why, whylen);
    hwloc_topology_destroy(t);
  }
  free(pl);
  return rc;
}
