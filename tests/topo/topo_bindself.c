/* GPU test program: collbench's rank-start binding (cb_placement_bind_self) on a real GPU.
 *
 * usage: topo_bindself BUSID   (as nvidia-smi or CUDA spell it, e.g. 00000000:00:06.0)
 * Binds this process for that GPU and checks the result against the live plan: the process
 * ends up on exactly the planned PUs, or, if it started out bound to fewer PUs than allowed
 * (taskset, a launcher), that binding is kept and reported as such. Exit 0 ok, 1 mismatch. */
#define _POSIX_C_SOURCE 200809L
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"

int main(int argc, char **argv) {
  char why[2048] = "", desc[2048] = "", norm[32], before[1024], after[1024];
  hwloc_topology_t t;
  if (argc != 2 || cb_busid_normalize(argv[1], norm, sizeof norm) != 0) {
    fprintf(stderr, "usage: topo_bindself BUSID\n");
    return 2;
  }
  cb_placement_t *pl = calloc(1, sizeof *pl);
  hwloc_bitmap_t cur = hwloc_bitmap_alloc(), want = hwloc_bitmap_alloc();
  if (!pl || !cur || !want || hwloc_topology_init(&t) != 0 || hwloc_topology_load(t) != 0 ||
      hwloc_get_cpubind(t, cur, HWLOC_CPUBIND_PROCESS) != 0 ||
      hwloc_bitmap_list_snprintf(before, sizeof before, cur) < 0) {
    fprintf(stderr, "topo_bindself: setup failed\n");
    return 1;
  }
  int pre_bound = !hwloc_bitmap_isincluded(hwloc_topology_get_allowed_cpuset(t), cur);
  if (cb_placement_compute(NULL, pl, why, sizeof why) != 0) {
    fprintf(stderr, "topo_bindself: cb_placement_compute: %s\n", why);
    return 1;
  }
  const cb_gpu_place_t *g = NULL;
  for (int i = 0; i < pl->ngpus; i++)
    if (!strcmp(pl->gpus[i].busid, norm)) g = &pl->gpus[i];
  if (!g) {
    fprintf(stderr, "topo_bindself: %s is not in the live plan\n", norm);
    return 1;
  }
  for (int i = 0; i < g->npus; i++) hwloc_bitmap_set(want, (unsigned)g->pus[i]);
  if (cb_placement_bind_self(argv[1], 0, desc, sizeof desc, why, sizeof why) != 0) {
    fprintf(stderr, "topo_bindself: cb_placement_bind_self(%s): %s\n", argv[1], why);
    return 1;
  }
  if (hwloc_get_cpubind(t, cur, HWLOC_CPUBIND_PROCESS) != 0 ||
      hwloc_bitmap_list_snprintf(after, sizeof after, cur) < 0) {
    fprintf(stderr, "topo_bindself: hwloc_get_cpubind failed\n");
    return 1;
  }
  int ok = pre_bound ? !strcmp(before, after) && strstr(desc, "(bound by mpirun, kept)")
                     : hwloc_bitmap_isequal(cur, want) && strstr(desc, "(bound by collbench");
  printf("%s GPU %s: cpus %s -> %s: %s\n", ok ? "ok" : "FAIL", norm, before, after, desc);
  hwloc_bitmap_free(cur);
  hwloc_bitmap_free(want);
  hwloc_topology_destroy(t);
  free(pl);
  return ok ? 0 : 1;
}
