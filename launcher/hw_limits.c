/* Implementation of hw_limits.h: a GPU's links through NVML (nvml.h loads it), a node's NICs
 * from sysfs. */
#define _DEFAULT_SOURCE
#include "hw_limits.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml.h"

enum { CB_NVLINK_LINKS_PROBED = 32 /* past NVML_NVLINK_MAX_LINKS (18): the rest answer INVALID_ARGUMENT */ };

/* The entry points cb_gpu_limits calls; a library without one of them is reported by name. */
static const unsigned kNvmlNeeded = CB_NVML_FN_BIT(CB_NVML_FN_INIT) | CB_NVML_FN_BIT(CB_NVML_FN_SHUTDOWN) |
                                    CB_NVML_FN_BIT(CB_NVML_FN_ERROR_STRING) | CB_NVML_FN_BIT(CB_NVML_FN_BY_BUSID) |
                                    CB_NVML_FN_BIT(CB_NVML_FN_LINK_STATE) | CB_NVML_FN_BIT(CB_NVML_FN_FIELD_VALUES) |
                                    CB_NVML_FN_BIT(CB_NVML_FN_PCIE_GEN) | CB_NVML_FN_BIT(CB_NVML_FN_PCIE_WIDTH) |
                                    CB_NVML_FN_BIT(CB_NVML_FN_PCIE_MAX_GEN) | CB_NVML_FN_BIT(CB_NVML_FN_PCIE_MAX_WIDTH);

/* Appends "; text" (or text) to the note. */
static void note_add(cb_gpu_limits_t *g, const char *text) {
  size_t len = strlen(g->note);
  snprintf(g->note + len, sizeof g->note - len, "%s%s", len ? "; " : "", text);
}

/* The common per-link rate in GB/s (NVML's MB/s / 1000), or -1 with the note. */
static double link_rate_gbs(const cb_nvml_t *n, cb_nvml_device_t dev, cb_gpu_limits_t *g) {
  cb_nvml_field_t f;
  memset(&f, 0, sizeof f);
  f.field_id = CB_NVML_FI_NVLINK_SPEED_MBPS_COMMON;
  int rc = n->fields(dev, 1, &f);
  if (rc == CB_NVML_SUCCESS) rc = f.ret;
  char why[160];
  if (rc != CB_NVML_SUCCESS) {
    snprintf(why, sizeof why, "NVLink per-link rate unreadable (NVML field %d: %s)", f.field_id, cb_nvml_error(n, rc));
    note_add(g, why);
    return -1;
  }
  double mbps = -1;
  switch (f.value_type) {
  case 0: mbps = f.value.d; break;
  case 1: mbps = f.value.ui; break;
  case 2: mbps = (double)f.value.ul; break;
  case 3: mbps = (double)f.value.ull; break;
  case 4: mbps = (double)f.value.sll; break;
  case 5: mbps = f.value.si; break;
  case 6: mbps = f.value.us; break;
  }
  if (mbps <= 0) {
    snprintf(why, sizeof why, "NVLink per-link rate unreadable (NVML gave %g MB/s, value type %d)", mbps, f.value_type);
    note_add(g, why);
    return -1;
  }
  return mbps / 1000.0;
}

static void nvlink(const cb_nvml_t *n, cb_nvml_device_t dev, cb_gpu_limits_t *g) {
  int links = 0;
  for (unsigned l = 0; l < CB_NVLINK_LINKS_PROBED; l++) {
    int state = 0, rc = n->link_state(dev, l, &state);
    if (rc == CB_NVML_ERROR_INVALID_ARGUMENT || rc == CB_NVML_ERROR_NOT_SUPPORTED) continue; /* no such link */
    if (rc != CB_NVML_SUCCESS) {
      char why[160];
      snprintf(why, sizeof why, "NVLink %u state unreadable (%s)", l, cb_nvml_error(n, rc));
      note_add(g, why);
      return;
    }
    links += state == CB_NVML_FEATURE_ENABLED;
  }
  g->nvlink_links = links;
  if (links == 0) {
    g->nvlink_gbs = 0; /* no active NVLink: PCIe bounds this GPU */
    return;
  }
  double rate = link_rate_gbs(n, dev, g);
  if (rate > 0) g->nvlink_gbs = links * rate;
}

/* One PCIe figure into *out (-1 kept on failure, with the note). */
static void pcie_one(const cb_nvml_t *n, int (*get)(cb_nvml_device_t, unsigned *), cb_nvml_device_t dev,
                     const char *what, int *out, cb_gpu_limits_t *g) {
  unsigned v = 0;
  int rc = get(dev, &v);
  if (rc == CB_NVML_SUCCESS) {
    *out = (int)v;
    return;
  }
  char why[128];
  snprintf(why, sizeof why, "PCIe %s unreadable (%s)", what, cb_nvml_error(n, rc));
  note_add(g, why);
}

void cb_gpu_limits(const char *busid, cb_gpu_limits_t *g) {
  memset(g, 0, sizeof *g);
  g->nvlink_gbs = -1;
  g->nvlink_links = g->pcie_gen = g->pcie_width = g->pcie_max_gen = g->pcie_max_width = -1;
  cb_nvml_t n;
  char why[sizeof g->note - sizeof "NVML not available: " + 1]; /* the note's room after that prefix */
  if (cb_nvml_open(&n, why, sizeof why) != 0) {
    snprintf(g->note, sizeof g->note, "NVML not available: %s", why);
    return;
  }
  const char *missing = cb_nvml_lacks(&n, kNvmlNeeded);
  int rc;
  cb_nvml_device_t dev = NULL;
  if (missing) {
    snprintf(g->note, sizeof g->note, "NVML not available: libnvidia-ml.so.1 lacks %s", missing);
  } else if ((rc = n.init()) != CB_NVML_SUCCESS) {
    snprintf(g->note, sizeof g->note, "NVML not available: nvmlInit_v2 failed (%s)", cb_nvml_error(&n, rc));
  } else {
    if ((rc = n.by_busid(busid, &dev)) != CB_NVML_SUCCESS) {
      snprintf(g->note, sizeof g->note, "NVML does not find GPU %s (%s)", busid, cb_nvml_error(&n, rc));
    } else {
      nvlink(&n, dev, g);
      pcie_one(&n, n.gen, dev, "generation", &g->pcie_gen, g);
      pcie_one(&n, n.width, dev, "width", &g->pcie_width, g);
      pcie_one(&n, n.max_gen, dev, "maximum generation", &g->pcie_max_gen, g);
      pcie_one(&n, n.max_width, dev, "maximum width", &g->pcie_max_width, g);
    }
    n.shutdown();
  }
  cb_nvml_close(&n);
}

/* The first line of path, or NULL when it cannot be read (empty, missing, or a read error:
 * a virtual interface's speed file fails with EINVAL). */
static char *read_line(const char *path, char *buf, size_t n) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  char *s = fgets(buf, (int)n, f);
  fclose(f);
  if (!s) return NULL;
  buf[strcspn(buf, "\n")] = 0;
  return buf;
}

/* The visible entries of dir in name order (scandir's list; *out NULL and 0 when unreadable). */
static int entries(const char *dir, struct dirent ***out) {
  int k = scandir(dir, out, NULL, alphasort);
  if (k < 0) {
    *out = NULL;
    return 0;
  }
  return k;
}

static void free_entries(struct dirent **e, int k) {
  for (int i = 0; i < k; i++) free(e[i]);
  free(e);
}

static int add_nic(cb_nic_limit_t *nics, int count, int max, int *more, const char *name, double gbs) {
  if (count >= max) {
    *more = 1;
    return count;
  }
  if (snprintf(nics[count].name, sizeof nics[count].name, "%s", name) >= (int)sizeof nics[count].name)
    nics[count].name[sizeof nics[count].name - 2] = '~'; /* cut: says so */
  nics[count].gbs = gbs;
  return count + 1;
}

/* "200 Gb/sec (4X HDR)" -> 25 GB/s; -1 for anything else. */
static double ib_rate_gbs(const char *path) {
  char line[128], unit[16];
  double gb = 0;
  if (!read_line(path, line, sizeof line) || sscanf(line, "%lf %15s", &gb, unit) != 2) return -1;
  return strcmp(unit, "Gb/sec") == 0 && gb > 0 ? gb / 8 : -1;
}

/* "100000" (Mb/s) -> 12.5 GB/s; -1 for "-1" (link down or unknown), garbage or a read error. */
static double eth_rate_gbs(const char *path) {
  char line[64], *end = NULL;
  if (!read_line(path, line, sizeof line)) return -1;
  long mbs = strtol(line, &end, 10);
  return end != line && *end == 0 && mbs > 0 ? mbs / 8000.0 : -1;
}

static int ib_ports(const char *root, cb_nic_limit_t *nics, int max, int *more) {
  char dir[4096], path[4096], name[160];
  if (snprintf(dir, sizeof dir, "%s/class/infiniband", root) >= (int)sizeof dir) return 0;
  struct dirent **devs;
  int ndev = entries(dir, &devs), count = 0;
  for (int d = 0; d < ndev; d++) {
    if (devs[d]->d_name[0] == '.') continue;
    if (snprintf(path, sizeof path, "%s/%s/ports", dir, devs[d]->d_name) >= (int)sizeof path) continue;
    struct dirent **ports;
    int nport = entries(path, &ports);
    for (int p = 0; p < nport; p++) {
      if (ports[p]->d_name[0] == '.') continue;
      char rate[4096];
      int cut = snprintf(rate, sizeof rate, "%s/%s/rate", path, ports[p]->d_name) >= (int)sizeof rate;
      if (snprintf(name, sizeof name, "%s:%s", devs[d]->d_name, ports[p]->d_name) >= (int)sizeof name) cut = 1;
      count = add_nic(nics, count, max, more, name, cut ? -1 : ib_rate_gbs(rate));
    }
    free_entries(ports, nport);
  }
  free_entries(devs, ndev);
  return count;
}

static int eth_ifaces(const char *root, cb_nic_limit_t *nics, int max, int *more) {
  char dir[4096], path[4096], line[32];
  if (snprintf(dir, sizeof dir, "%s/class/net", root) >= (int)sizeof dir) return 0;
  struct dirent **ifs;
  int nif = entries(dir, &ifs), count = 0;
  for (int i = 0; i < nif; i++) {
    const char *name = ifs[i]->d_name;
    if (name[0] == '.' || strcmp(name, "lo") == 0) continue;
    if (snprintf(path, sizeof path, "%s/%s/operstate", dir, name) >= (int)sizeof path) continue;
    if (!read_line(path, line, sizeof line) || strcmp(line, "up") != 0) continue;
    int cut = snprintf(path, sizeof path, "%s/%s/speed", dir, name) >= (int)sizeof path;
    count = add_nic(nics, count, max, more, name, cut ? -1 : eth_rate_gbs(path));
  }
  free_entries(ifs, nif);
  return count;
}

int cb_nic_limits(const char *sys_root, cb_nic_limit_t *nics, int max, int *more) {
  *more = 0;
  int count = ib_ports(sys_root, nics, max, more);
  return count || *more ? count : eth_ifaces(sys_root, nics, max, more);
}
