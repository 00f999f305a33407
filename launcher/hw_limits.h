/* The hardware limits a run is judged against (issue 33; plots/limits.py reads them from the
 * results' meta "limits"): a GPU's NVLink per direction (active links x the common per-link
 * rate) and PCIe link through NVML loaded at run time (no link-time dependency: a machine
 * without the driver builds and runs collbench), and a node's NIC line rates from sysfs. Every
 * figure that cannot be read is unknown (negative here, null in the JSON) with the reason in a
 * note: never a guess. Read once while the metadata is collected, never in a timed loop. */
#ifndef CB_HW_LIMITS_H
#define CB_HW_LIMITS_H

#include <stddef.h>

#define CB_LIMITS_MAX_NICS 32

/* One GPU's figures; -1 where unknown (note says why, "" when everything was read). */
typedef struct {
  double nvlink_gbs;        /* GB/s per direction: nvlink_links x the common per-link rate; 0 with no active link */
  int nvlink_links;         /* links with nvmlDeviceGetNvLinkState == enabled */
  int pcie_gen, pcie_width; /* the link as it runs now (an idle GPU may run a lower generation) */
  int pcie_max_gen, pcie_max_width; /* what the GPU and its slot can run */
  char note[256];
} cb_gpu_limits_t;

/* One NIC port's line rate: name "mlx5_0:1" (InfiniBand device:port) or "eth0"; gbs < 0 when
 * its rate could not be read. */
typedef struct {
  char name[64];
  double gbs;
} cb_nic_limit_t;

/* The figures of the GPU at PCI bus id busid ("0000:19:00.0") through libnvidia-ml.so.1. */
void cb_gpu_limits(const char *busid, cb_gpu_limits_t *g);

/* The NICs under sys_root ("/sys" for the machine; a test passes a folder laid out like it):
 * every InfiniBand port's rate (class/infiniband/DEV/ports/PORT/rate, "200 Gb/sec (4X HDR)"),
 * else every up Ethernet interface but lo (class/net/NAME/speed in Mb/s, operstate "up"), in
 * name order. Returns how many were found (at most max; *more set to 1 when some were left
 * out). */
int cb_nic_limits(const char *sys_root, cb_nic_limit_t *nics, int max, int *more);

#endif
