/* Finding the GPUs of a topology and where they are attached.
 *
 * Debian/Ubuntu hwloc has no CUDA/NVML plugin, so on a live host GPUs are only PCI devices:
 * NVIDIA (vendor 0x10de) VGA (class 0x0300) or 3D controllers (0x0302). NVSwitches are NVIDIA
 * PCI devices too, of class 0x0680 (bridge/other), and must not count. XML captured with the
 * plugins also has cudaN / nvmlN OS devices; their PCI parent is accepted as a GPU even if its
 * class is unusual. A PCI GPU without such an OS device still counts (in the K40m fixture only
 * one of three K40m carries cuda0: the capture saw one CUDA device, but CUDA on that machine
 * with all devices visible enumerates all three).
 *
 * GPUs are sorted by (domain, bus, device, function), the order of CUDA_DEVICE_ORDER=PCI_BUS_ID,
 * so GPU i is CUDA device i there and local rank i gets it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_internal.h"

#define CB_PCI_VENDOR_NVIDIA 0x10de
#define CB_PCI_CLASS_VGA 0x0300
#define CB_PCI_CLASS_3D 0x0302

static int is_nvidia_gpu_pci(hwloc_obj_t o) {
  const struct hwloc_pcidev_attr_s *a = &o->attr->pcidev;
  return a->vendor_id == CB_PCI_VENDOR_NVIDIA && (a->class_id == CB_PCI_CLASS_VGA || a->class_id == CB_PCI_CLASS_3D);
}

/* "cuda3" or "nvml12": the CoProc OS devices hwloc's CUDA and NVML plugins create. */
static int is_gpu_osdev_name(const char *name) {
  const char *digits;
  if (!name) return 0;
  if (strncmp(name, "cuda", 4) == 0 || strncmp(name, "nvml", 4) == 0) digits = name + 4;
  else return 0;
  if (!*digits) return 0;
  for (; *digits; digits++)
    if (*digits < '0' || *digits > '9') return 0;
  return 1;
}

static unsigned long long pci_key(hwloc_obj_t o) {
  const struct hwloc_pcidev_attr_s *a = &o->attr->pcidev;
  return ((unsigned long long)a->domain << 24) | ((unsigned long long)a->bus << 16) |
         ((unsigned long long)a->dev << 8) | a->func;
}

static int cmp_gpu(const void *x, const void *y) {
  unsigned long long a = pci_key(((const cb_topo_gpu_t *)x)->pcidev);
  unsigned long long b = pci_key(((const cb_topo_gpu_t *)y)->pcidev);
  return a < b ? -1 : a > b;
}

/* Adds pcidev once; fails when there are more GPUs than the plan can hold. */
static int add_gpu(hwloc_topology_t t, const char *name, hwloc_obj_t pcidev, cb_topo_gpu_t *gpus, int *ngpus, char *why,
                   size_t n) {
  for (int i = 0; i < *ngpus; i++)
    if (gpus[i].pcidev == pcidev) return 0;
  if (*ngpus >= CB_TOPO_MAX_GPUS)
    return cb_topo_fail(why, n, "%s: more than %d GPUs (CB_TOPO_MAX_GPUS)", name, CB_TOPO_MAX_GPUS);
  cb_topo_gpu_t *g = &gpus[*ngpus];
  const struct hwloc_pcidev_attr_s *a = &pcidev->attr->pcidev;
  snprintf(g->busid, sizeof g->busid, "%04x:%02x:%02x.%x", (unsigned)a->domain, (unsigned)a->bus, (unsigned)a->dev,
           (unsigned)a->func);
  /* a bus id names one device: two GPUs at one id would be one CUDA device to two ranks */
  for (int i = 0; i < *ngpus; i++)
    if (!strcmp(gpus[i].busid, g->busid))
      return cb_topo_fail(why, n, "%s: two GPUs at PCI bus id %s: not a real machine's topology", name, g->busid);
  (*ngpus)++;
  g->pcidev = pcidev;
  g->locality = hwloc_get_non_io_ancestor_obj(t, pcidev);
  if (!g->locality || !g->locality->cpuset)
    return cb_topo_fail(why, n, "%s: GPU %s has no CPU-side ancestor in the topology", name, g->busid);
  return 0;
}

int cb_topo_find_gpus(hwloc_topology_t t, const char *name, cb_topo_gpu_t *gpus, int *ngpus, char *why, size_t n) {
  *ngpus = 0;
  for (hwloc_obj_t o = hwloc_get_next_pcidev(t, NULL); o; o = hwloc_get_next_pcidev(t, o))
    if (is_nvidia_gpu_pci(o) && add_gpu(t, name, o, gpus, ngpus, why, n) != 0) return -1;
  for (hwloc_obj_t o = hwloc_get_next_osdev(t, NULL); o; o = hwloc_get_next_osdev(t, o)) {
    if (!is_gpu_osdev_name(o->name)) continue;
    hwloc_obj_t p = o->parent;
    while (p && p->type == HWLOC_OBJ_OS_DEVICE) p = p->parent;
    /* An OS device without a PCI parent has no bus id: CUDA could not be matched to it. */
    if (p && p->type == HWLOC_OBJ_PCI_DEVICE && add_gpu(t, name, p, gpus, ngpus, why, n) != 0) return -1;
  }
  if (*ngpus == 0)
    return cb_topo_fail(why, n,
                        "%s: no GPUs in the topology (no NVIDIA PCI device of class 0300/0302 "
                        "and no cudaN/nvmlN device)",
                        name);
  qsort(gpus, (size_t)*ngpus, sizeof *gpus, cmp_gpu);
  return 0;
}
