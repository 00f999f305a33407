/* NVML loaded at run time, in one place: the few ABI types and constants collbench needs, the
 * dlopen of libnvidia-ml.so.1 and the binding of its entry points. hw_limits.c reads a GPU's
 * NVLink and PCIe links through it, meta.c the driver version. Nothing links against NVML, so a
 * machine without the driver builds and runs collbench; and NVML is declared here, not
 * included, because CUDA 13's toolkit ships no nvml.h. The declarations are NVML's public ABI
 * (nvml.h: nvmlReturn_t is an int enum with NVML_SUCCESS 0, nvmlDevice_t an opaque pointer,
 * nvmlFieldValue_t a 40-byte struct whose value is an 8-byte union). */
#ifndef CB_NVML_H
#define CB_NVML_H

#include <stddef.h>

typedef struct cb_nvml_device *cb_nvml_device_t;
typedef struct {
  unsigned int field_id, scope_id;
  long long timestamp, latency_us;
  int value_type, ret;
  union {
    double d;
    unsigned int ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
    unsigned short us;
  } value;
} cb_nvml_field_t;

enum {
  CB_NVML_SUCCESS = 0,
  CB_NVML_ERROR_INVALID_ARGUMENT = 2, /* a link index past the GPU's last link */
  CB_NVML_ERROR_NOT_SUPPORTED = 3,    /* a GPU without NVLink */
  CB_NVML_FEATURE_ENABLED = 1,
  CB_NVML_FI_NVLINK_SPEED_MBPS_COMMON = 90 /* NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON: MB/s of each active link */
};

/* The entry points cb_nvml_open binds, one bit each in cb_nvml_t.missing (CB_NVML_FN_BIT). */
typedef enum {
  CB_NVML_FN_INIT,           /* nvmlInit_v2 */
  CB_NVML_FN_SHUTDOWN,       /* nvmlShutdown */
  CB_NVML_FN_ERROR_STRING,   /* nvmlErrorString */
  CB_NVML_FN_BY_BUSID,       /* nvmlDeviceGetHandleByPciBusId_v2 */
  CB_NVML_FN_LINK_STATE,     /* nvmlDeviceGetNvLinkState */
  CB_NVML_FN_FIELD_VALUES,   /* nvmlDeviceGetFieldValues */
  CB_NVML_FN_PCIE_GEN,       /* nvmlDeviceGetCurrPcieLinkGeneration */
  CB_NVML_FN_PCIE_WIDTH,     /* nvmlDeviceGetCurrPcieLinkWidth */
  CB_NVML_FN_PCIE_MAX_GEN,   /* nvmlDeviceGetMaxPcieLinkGeneration */
  CB_NVML_FN_PCIE_MAX_WIDTH, /* nvmlDeviceGetMaxPcieLinkWidth */
  CB_NVML_FN_DRIVER_VERSION, /* nvmlSystemGetDriverVersion */
  CB_NVML_FN_COUNT
} cb_nvml_fn_t;
#define CB_NVML_FN_BIT(fn) (1u << (fn))

/* The library and its entry points: each NULL where the library lacks it (its bit set in
 * missing); a caller checks those it calls, with cb_nvml_lacks where it names the one missing. */
typedef struct {
  void *lib;        /* dlopen's handle */
  unsigned missing; /* CB_NVML_FN_BIT of each entry point not found */
  int (*init)(void);
  int (*shutdown)(void);
  const char *(*error)(int);
  int (*by_busid)(const char *, cb_nvml_device_t *);
  int (*link_state)(cb_nvml_device_t, unsigned, int *);
  int (*fields)(cb_nvml_device_t, int, cb_nvml_field_t *);
  int (*gen)(cb_nvml_device_t, unsigned *), (*width)(cb_nvml_device_t, unsigned *);
  int (*max_gen)(cb_nvml_device_t, unsigned *), (*max_width)(cb_nvml_device_t, unsigned *);
  int (*driver_version)(char *, unsigned);
} cb_nvml_t;

/* Loads libnvidia-ml.so.1 and binds every entry point it has. Returns 0; or -1 when it cannot
 * be loaded, with why (when not NULL) "libnvidia-ml.so.1 not found" or "libnvidia-ml.so.1
 * cannot be loaded (dlerror's text)". Does not call nvmlInit_v2: the caller does. */
int cb_nvml_open(cb_nvml_t *n, char *why, size_t len);

/* The NVML name of the first entry point (in cb_nvml_fn_t's order) among need's bits that n
 * lacks, or NULL when it has them all. */
const char *cb_nvml_lacks(const cb_nvml_t *n, unsigned need);

/* nvmlErrorString(rc), or "unknown NVML error" without one. */
const char *cb_nvml_error(const cb_nvml_t *n, int rc);

/* Unloads the library cb_nvml_open loaded (the caller has called nvmlShutdown). */
void cb_nvml_close(cb_nvml_t *n);

#endif
