/* CPU test of the placement library on every XML fixture in topologies/.
 *
 * Expected GPUs, NUMA nodes and packages are written out by hand from `lstopo-no-graphics
 * --if xml -i FILE --filter io:important -v`, not derived from the code under test. Locality
 * is checked independently too: the test loads each XML itself, finds the GPU by bus id with
 * hwloc_get_pcidev_by_busidstring and checks every planned core against that device's non-I/O
 * ancestor. Plus: the per-rank core sets are disjoint and, within one locality, cover it
 * exactly with sizes differing by at most one; bus ids normalise; range lists format; a rank
 * spanning two packages gets a two-part rankfile slot.
 *
 * usage: topo_fixtures_test TOPOLOGIES_DIR */
#define _POSIX_C_SOURCE 200809L
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"

static int failures;
#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (!(cond)) {                                                    \
      failures++;                                                     \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                   \
      fputc('\n', stderr);                                            \
    }                                                                 \
  } while (0)

typedef struct expect_gpu {
  const char *busid;
  int numa, package;
} expect_gpu_t;

typedef struct fixture {
  const char *file;
  int ngpus;
  expect_gpu_t gpus[16];
  const char *split_error; /* non-NULL: cb_placement_compute must fail with this text */
} fixture_t;

static const fixture_t fixtures[] = {
    {"h200x2-vm.xml", 2, {{"0000:00:06.0", 0, 0}, {"0000:00:07.0", 0, 0}}, NULL},
    /* Three NVIDIA 3D controllers (10de:1094); only 84:00.0 carries cuda0. All count; the
     * AMD (1002) and Matrox (102b) VGA adapters do not. */
    {"hwloc-test-2socket-pci-k40m.xml",
     3,
     {{"0000:03:00.0", 0, 0}, {"0000:83:00.0", 1, 1}, {"0000:84:00.0", 1, 1}},
     NULL},
    /* 16 V100 (nvmlN), 12 NVSwitches that are not GPUs; the capture kept 2 cores per socket,
     * too few for 8 GPUs each: placement must refuse, listing must work. */
    {"hwloc-test-nvidia-dgx2.xml",
     16,
     {{"0000:34:00.0", 0, 0},
      {"0000:36:00.0", 0, 0},
      {"0000:39:00.0", 0, 0},
      {"0000:3b:00.0", 0, 0},
      {"0000:57:00.0", 0, 0},
      {"0000:59:00.0", 0, 0},
      {"0000:5c:00.0", 0, 0},
      {"0000:5e:00.0", 0, 0},
      {"0000:b7:00.0", 1, 1},
      {"0000:b9:00.0", 1, 1},
      {"0000:bc:00.0", 1, 1},
      {"0000:be:00.0", 1, 1},
      {"0000:e0:00.0", 1, 1},
      {"0000:e2:00.0", 1, 1},
      {"0000:e5:00.0", 1, 1},
      {"0000:e7:00.0", 1, 1}},
     "8 GPU(s) (0000:34:00.0 0000:36:00.0 0000:39:00.0 0000:3b:00.0 0000:57:00.0 0000:59:00.0 "
     "0000:5c:00.0 0000:5e:00.0) are local to Package L#0, which has 2 free core(s)"},
    {"mpibind-aws-g4dn-metal.xml",
     8,
     {{"0000:18:00.0", 0, 0},
      {"0000:19:00.0", 0, 0},
      {"0000:35:00.0", 0, 0},
      {"0000:36:00.0", 0, 0},
      {"0000:e7:00.0", 1, 1},
      {"0000:e8:00.0", 1, 1},
      {"0000:f4:00.0", 1, 1},
      {"0000:f5:00.0", 1, 1}},
     NULL},
    /* POWER9: the second socket's NUMA node has OS index 8. */
    {"mpibind-coral-lassen.xml",
     4,
     {{"0004:04:00.0", 0, 0}, {"0004:05:00.0", 0, 0}, {"0035:03:00.0", 8, 1}, {"0035:04:00.0", 8, 1}},
     NULL},
};

static hwloc_topology_t load_xml(const char *path) {
  hwloc_topology_t t;
  if (hwloc_topology_init(&t) != 0) return NULL;
  if (hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0 ||
      hwloc_topology_set_xml(t, path) != 0 || hwloc_topology_load(t) != 0) {
    hwloc_topology_destroy(t);
    return NULL;
  }
  return t;
}

/* The GPU's locality as the test sees it, or NULL. */
static hwloc_obj_t locality_of(hwloc_topology_t t, const char *busid) {
  hwloc_obj_t pci = hwloc_get_pcidev_by_busidstring(t, busid);
  return pci ? hwloc_get_non_io_ancestor_obj(t, pci) : NULL;
}

static void check_gpus(const fixture_t *f, const cb_placement_t *pl) {
  CHECK(pl->ngpus == f->ngpus, "%s: %d GPUs, expected %d", f->file, pl->ngpus, f->ngpus);
  for (int i = 0; i < f->ngpus && i < pl->ngpus; i++) {
    const cb_gpu_place_t *g = &pl->gpus[i];
    CHECK(g->index == i, "%s: GPU %d has index %d", f->file, i, g->index);
    CHECK(!strcmp(g->busid, f->gpus[i].busid), "%s: GPU %d is %s, expected %s", f->file, i, g->busid, f->gpus[i].busid);
    CHECK(g->numa_os_index == f->gpus[i].numa, "%s: GPU %s NUMA %d, expected %d", f->file, g->busid, g->numa_os_index,
          f->gpus[i].numa);
    CHECK(g->package_logical_index == f->gpus[i].package, "%s: GPU %s package %d, expected %d", f->file, g->busid,
          g->package_logical_index, f->gpus[i].package);
  }
}

/* Cores local, PUs = the cores' PUs, disjoint across ranks, each locality covered exactly. */
static void check_cores(const fixture_t *f, hwloc_topology_t t, const cb_placement_t *pl) {
  hwloc_bitmap_t used = hwloc_bitmap_alloc(), pus = hwloc_bitmap_alloc();
  for (int i = 0; i < pl->ngpus; i++) {
    const cb_gpu_place_t *g = &pl->gpus[i];
    hwloc_obj_t loc = locality_of(t, g->busid);
    CHECK(loc != NULL, "%s: GPU %s not found by the test", f->file, g->busid);
    if (!loc) continue;
    CHECK(g->ncores > 0, "%s: GPU %s got no cores", f->file, g->busid);
    hwloc_bitmap_zero(pus);
    for (int c = 0; c < g->ncores; c++) {
      hwloc_obj_t core = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, (unsigned)g->cores[c]);
      CHECK(core != NULL, "%s: core L#%d does not exist", f->file, g->cores[c]);
      if (!core) continue;
      CHECK(hwloc_bitmap_isincluded(core->cpuset, loc->cpuset), "%s: core L#%d not local to %s", f->file, g->cores[c],
            g->busid);
      CHECK(!hwloc_bitmap_intersects(core->cpuset, used), "%s: core L#%d given twice", f->file, g->cores[c]);
      CHECK(c == 0 || g->cores[c] == g->cores[c - 1] + 1, "%s: GPU %s cores not contiguous", f->file, g->busid);
      hwloc_bitmap_or(pus, pus, core->cpuset);
    }
    hwloc_bitmap_or(used, used, pus);
    CHECK(g->npus == hwloc_bitmap_weight(pus), "%s: GPU %s has %d PUs, its cores %d", f->file, g->busid, g->npus,
          hwloc_bitmap_weight(pus));
    for (int p = 0; p < g->npus; p++)
      CHECK(hwloc_bitmap_isset(pus, (unsigned)g->pus[p]), "%s: GPU %s PU P#%d not in its cores", f->file, g->busid,
            g->pus[p]);
    CHECK(g->nlocal_pus == hwloc_bitmap_weight(loc->cpuset), "%s: GPU %s local PU count", f->file, g->busid);
  }
  /* Coverage and balance per locality: every local core used, shares differ by <= 1. */
  for (int i = 0; i < pl->ngpus; i++) {
    hwloc_obj_t loc = locality_of(t, pl->gpus[i].busid);
    if (!loc) continue;
    int lo = 1 << 30, hi = 0;
    for (int j = 0; j < pl->ngpus; j++)
      if (locality_of(t, pl->gpus[j].busid) == loc) {
        lo = pl->gpus[j].ncores < lo ? pl->gpus[j].ncores : lo;
        hi = pl->gpus[j].ncores > hi ? pl->gpus[j].ncores : hi;
      }
    CHECK(hwloc_bitmap_isincluded(loc->cpuset, used), "%s: cores of %s's locality left unused", f->file,
          pl->gpus[i].busid);
    CHECK(hi - lo <= 1, "%s: uneven split around %s (%d..%d cores)", f->file, pl->gpus[i].busid, lo, hi);
  }
  hwloc_bitmap_free(used);
  hwloc_bitmap_free(pus);
}

static void check_fixture(const char *dir, const fixture_t *f, cb_placement_t *pl) {
  char path[2048], why[2048] = "";
  snprintf(path, sizeof path, "%s/%s", dir, f->file);
  hwloc_topology_t t = load_xml(path);
  CHECK(t != NULL, "%s: the test cannot load it", path);
  if (!t) return;

  int rc = cb_placement_compute(path, pl, why, sizeof why);
  if (f->split_error) {
    CHECK(rc == -1, "%s: placement should fail", f->file);
    CHECK(strstr(why, f->split_error) && strstr(why, path), "%s: message '%s'", f->file, why);
  } else {
    CHECK(rc == 0, "%s: %s", f->file, why);
    if (rc == 0) {
      CHECK(!strcmp(pl->source, path) && !pl->shared, "%s: source/shared", f->file);
      check_gpus(f, pl);
      check_cores(f, t, pl);
    }
  }
  /* Listing: every GPU with its whole locality, even where placement is impossible. */
  rc = cb_placement_list_gpus(path, pl, why, sizeof why);
  CHECK(rc == 0 && pl->shared, "%s: list_gpus: %s", f->file, why);
  if (rc == 0) {
    check_gpus(f, pl);
    for (int i = 0; i < pl->ngpus; i++) {
      hwloc_obj_t loc = locality_of(t, pl->gpus[i].busid);
      CHECK(loc && pl->gpus[i].ncores == hwloc_get_nbobjs_inside_cpuset_by_type(t, loc->cpuset, HWLOC_OBJ_CORE),
            "%s: list_gpus: GPU %s does not get all local cores", f->file, pl->gpus[i].busid);
    }
  }
  printf("ok %s: %d GPUs\n", f->file, f->ngpus);
  hwloc_topology_destroy(t);
}

static void check_busids(void) {
  static const char *good[][2] = {{"0000:00:06.0", "0000:00:06.0"},
                                  {"00000000:00:06.0", "0000:00:06.0"},
                                  {"0000:1A:00.0", "0000:1a:00.0"},
                                  {"1a:00.0", "0000:1a:00.0"},
                                  {"0035:04:00.0", "0035:04:00.0"}};
  static const char *bad[] = {
      "",          "zz",     "0000:00:06",   "0000:00:20.0", "00:06.8", "0000:000:06.0", "0000:00:06.0x",
      "0:0:0:0.0", "fake:0", "0000:00:06.0 "};
  char out[32];
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    CHECK(cb_busid_normalize(good[i][0], out, sizeof out) == 0 && !strcmp(out, good[i][1]),
          "normalize('%s') = '%s', expected '%s'", good[i][0], out, good[i][1]);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK(cb_busid_normalize(bad[i], out, sizeof out) == -1, "normalize('%s') accepted", bad[i]);
}

static void check_lists(void) {
  int v[] = {0, 1, 2, 3, 4, 5, 8, 10, 11};
  char buf[64], tiny[6];
  CHECK(cb_format_list(v, 9, buf, sizeof buf) == 0 && !strcmp(buf, "0-5,8,10-11"), "'%s'", buf);
  CHECK(cb_format_list(v, 0, buf, sizeof buf) == 0 && !strcmp(buf, ""), "'%s'", buf);
  CHECK(cb_format_list(v + 6, 1, buf, sizeof buf) == 0 && !strcmp(buf, "8"), "'%s'", buf);
  CHECK(cb_format_list(v, 9, tiny, sizeof tiny) == -1, "overflow not reported: '%s'", tiny);
}

/* A rank whose cores straddle two packages (a GPU attached to the whole machine). */
static void check_rankfile_span(cb_placement_t *pl) {
  const char *hosts[] = {"n1"};
  char buf[256] = "", why[256] = "";
  memset(pl, 0, sizeof *pl);
  snprintf(pl->source, sizeof pl->source, "synthetic");
  pl->npackages = 2;
  pl->package_first_core[0] = 0, pl->package_ncores[0] = 8;
  pl->package_first_core[1] = 8, pl->package_ncores[1] = 8;
  pl->ngpus = 2;
  for (int c = 0; c < 10; c++) pl->gpus[0].cores[c] = c;
  pl->gpus[0].ncores = 10;
  for (int c = 0; c < 6; c++) pl->gpus[1].cores[c] = 10 + c;
  pl->gpus[1].ncores = 6;
  FILE *f = fmemopen(buf, sizeof buf, "w");
  CHECK(f && cb_placement_write_rankfile(pl, hosts, 1, 2, f, why, sizeof why) == 0, "%s", why);
  if (f) fclose(f);
  CHECK(!strcmp(buf, "rank 0=n1 slot=0:0-7,1:0-1\nrank 1=n1 slot=1:2-7\n"), "got '%s'", buf);
}

static void check_fake(const char *dir, cb_placement_t *pl) {
  char path[2048], why[2048] = "";
  snprintf(path, sizeof path, "%s/mpibind-aws-g4dn-metal.xml", dir);
  /* 4 fake GPUs over 2 NUMA nodes of 24 cores: 2 per node, 12 cores each. */
  int rc = cb_placement_compute_fake(path, 4, pl, why, sizeof why);
  CHECK(rc == 0 && pl->ngpus == 4, "fake: %s", why);
  for (int i = 0; rc == 0 && i < 4; i++)
    CHECK(pl->gpus[i].numa_os_index == i / 2 && pl->gpus[i].ncores == 12 && pl->gpus[i].cores[0] == 12 * i,
          "fake GPU %d: NUMA %d, %d cores from %d", i, pl->gpus[i].numa_os_index, pl->gpus[i].ncores,
          pl->gpus[i].cores[0]);
  CHECK(cb_placement_compute_fake(path, 0, pl, why, sizeof why) == -1, "0 fake GPUs accepted");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s TOPOLOGIES_DIR\n", argv[0]);
    return 2;
  }
  cb_placement_t *pl = calloc(1, sizeof *pl);
  if (!pl) return 2;
  for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) check_fixture(argv[1], &fixtures[i], pl);
  check_busids();
  check_lists();
  check_rankfile_span(pl);
  check_fake(argv[1], pl);
  free(pl);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
