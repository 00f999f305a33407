/* libFuzzer target: the topology loader and planner (topologies/) on an hwloc XML file, through
 * the same contained path collbench-topo uses (cb_topo_load reads the file, loads it first in a
 * child process, so hwloc's own crashes end as an error). Input: the XML file's bytes. Per
 * input, one of the three plans collbench-topo makes (size % 3): the placement, the GPU list,
 * or the fake-GPU plan.
 *
 * Checked on success: at least one GPU; each planned GPU has cores; exclusive plans never give
 * one core to two GPUs; the JSON collbench-topo prints is valid JSON; a rankfile for two hosts
 * can be written (or is refused with a reason). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "text_check.h"
#include <hwloc.h>

#include "placement.h"
#include "topo_print.h"

#define FAIL(...) CB_FUZZ_FAIL("fuzz_topo", __VA_ARGS__)

static char path[64];
static cb_placement_t pl; /* large: static */

static void remove_input(void) { unlink(path); }

/* The input goes to one temporary file per process (the loader reads a path), removed at exit. */
static void write_input(const uint8_t *data, size_t size) {
  if (!path[0]) {
    snprintf(path, sizeof path, "/tmp/cb-fuzz-topo.XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) FAIL("mkstemp failed");
    close(fd);
    atexit(remove_input);
  }
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f)) FAIL("cannot write %s", path);
}

static void check_plan(void) {
  if (pl.ngpus < 1 || pl.ngpus > CB_TOPO_MAX_GPUS) FAIL("plan with %d GPUs", pl.ngpus);
  for (int g = 0; g < pl.ngpus; g++) {
    if (pl.gpus[g].ncores < 1) FAIL("GPU %d planned without cores", g);
    if (pl.shared) continue;
    for (int h = 0; h < g; h++)
      for (int i = 0; i < pl.gpus[g].ncores; i++)
        for (int j = 0; j < pl.gpus[h].ncores; j++)
          if (pl.gpus[g].cores[i] == pl.gpus[h].cores[j])
            FAIL("core %d planned for GPUs %d and %d", pl.gpus[g].cores[i], h, g);
  }
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) FAIL("open_memstream");
  if (cb_topo_print_json(&pl, pl.ngpus, m) != 0) FAIL("printing JSON failed");
  fclose(m);
  if (!cb_text_valid_json(text, len)) FAIL("plan JSON is not valid: %s", text);
  free(text);
  if (pl.shared) return;
  static const char *const hosts[] = {"n1", "n2"};
  char why[1024];
  m = open_memstream(&text, &len);
  if (!m) FAIL("open_memstream");
  int rc = cb_placement_write_rankfile(&pl, hosts, 2, pl.ngpus, m, why, sizeof why);
  fclose(m);
  if (rc && !why[0]) FAIL("rankfile refused without a reason");
  free(text);
}

/* hwloc loads its plugins (the libxml2 XML reader among them) with the first topology and
 * unloads them with the last: one topology kept for the whole run keeps them loaded, so a leak
 * inside them is reported with their names (lsan.supp) instead of an unknown module. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  static hwloc_topology_t keep_plugins;
  if (hwloc_topology_init(&keep_plugins) != 0) FAIL("hwloc_topology_init failed");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 20) return 0;
  write_input(data, size);
  char why[2048] = "";
  int rc;
  switch (size % 3) {
  case 0: rc = cb_placement_compute(path, &pl, why, sizeof why); break;
  case 1: rc = cb_placement_list_gpus(path, &pl, why, sizeof why); break;
  default: rc = cb_placement_compute_fake(path, 1 + (int)(size % 4), &pl, why, sizeof why); break;
  }
  if (rc == 0) check_plan();
  else if (!why[0]) FAIL("refused without a reason");
  return 0;
}
