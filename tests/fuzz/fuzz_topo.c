/* libFuzzer target: the topology loader and planner (topologies/) on an hwloc XML file, through
 * the same contained path collbench-topo uses (cb_topo_load reads the file, loads it first in a
 * child process, so hwloc's own crashes end as an error). Input: the XML file's bytes. Per
 * input, one of the three plans collbench-topo makes (size % 3): the placement, the GPU list,
 * or the fake-GPU plan.
 *
 * Checked on success: at least one GPU; each planned GPU has cores; exclusive plans never give
 * one core to two GPUs; no two GPUs share a PCI bus id; the JSON collbench-topo prints is valid
 * JSON, also with the input's first bytes as the topology's name (any bytes: issue 32 N9); a
 * rankfile for two hosts can be written (or is refused with a reason), and for two host names
 * taken from the input's last bytes every line it writes reads back as "rank R=HOST slot=S"
 * with HOST exactly as given (a name that would change what Open MPI reads is refused: N10). */
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

/* Each line of a rankfile: "rank R=HOST slot=SLOTS" with R the line's rank and HOST one of the
 * given hosts in order, of the characters Open MPI's rankfile reader takes as a host name
 * (RFC 1123 names and '_': no ':', '=', ',', '#', blank or control byte). */
static void check_rankfile_lines(const char *text, const char *const *hosts, int ranks) {
  int line = 0;
  for (const char *p = text; *p; line++) {
    const char *end = strchr(p, '\n');
    if (!end) FAIL("rankfile line %d not terminated", line);
    char want[600];
    int w = snprintf(want, sizeof want, "rank %d=%s slot=", line, hosts[line / ranks]);
    if (strncmp(p, want, (size_t)w) != 0)
      FAIL("rankfile line %d is '%.*s', expected it to start '%s'", line, (int)(end - p), p, want);
    for (const char *c = p + w; c < end; c++)
      if (!strchr("0123456789:-,", *c)) FAIL("rankfile line %d: slot text '%.*s'", line, (int)(end - p), p);
    const char *host = hosts[line / ranks];
    if (!host[0] || strlen(host) > 255) FAIL("rankfile written for a host name of %zu bytes", strlen(host));
    for (const char *c = host; *c; c++)
      if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("-._", *c)))
        FAIL("rankfile written for host '%s' (byte 0x%02x)", host, (unsigned char)*c);
    p = end + 1;
  }
  if (line != 2 * ranks) FAIL("rankfile has %d lines, expected %d", line, 2 * ranks);
}

static void check_hosts_from_input(const uint8_t *data, size_t size) {
  char names[2][300];
  size_t take = size < 520 ? size : 520, half = take / 2;
  const uint8_t *tail = data + size - take;
  for (int h = 0; h < 2; h++) {
    size_t n = h ? take - half : half;
    memcpy(names[h], tail + (h ? half : 0), n < 299 ? n : 299);
    names[h][n < 299 ? n : 299] = 0;
  }
  const char *const hosts[] = {names[0], names[1]};
  char *text = NULL, why[1024] = "";
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) FAIL("open_memstream");
  int rc = cb_placement_write_rankfile(&pl, hosts, 2, pl.ngpus, m, why, sizeof why);
  fclose(m);
  if (rc && !why[0]) FAIL("rankfile refused without a reason");
  if (!rc) check_rankfile_lines(text, hosts, pl.ngpus);
  free(text);
}

static void check_plan(const uint8_t *data, size_t size) {
  if (pl.ngpus < 1 || pl.ngpus > CB_TOPO_MAX_GPUS) FAIL("plan with %d GPUs", pl.ngpus);
  for (int g = 0; g < pl.ngpus; g++)
    for (int h = 0; h < g; h++)
      if (!strcmp(pl.gpus[g].busid, pl.gpus[h].busid)) FAIL("GPUs %d and %d share bus id %s", h, g, pl.gpus[g].busid);
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
  /* the topology's name as arbitrary bytes (an XML path is any bytes but NUL) */
  size_t n = size < sizeof pl.source - 1 ? size : sizeof pl.source - 1;
  memcpy(pl.source, data, n);
  pl.source[n] = 0;
  m = open_memstream(&text, &len);
  if (!m) FAIL("open_memstream");
  if (cb_topo_print_json(&pl, pl.ngpus, m) != 0) FAIL("printing JSON failed");
  fclose(m);
  if (!cb_text_valid_json(text, len)) FAIL("plan JSON with a byte-string topology name is not valid: %s", text);
  free(text);
  if (pl.shared) return;
  check_hosts_from_input(data, size);
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
  if (rc == 0) check_plan(data, size);
  else if (!why[0]) FAIL("refused without a reason");
  return 0;
}
