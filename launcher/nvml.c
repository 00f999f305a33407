/* Implementation of nvml.h: the one dlopen of libnvidia-ml.so.1 and the one table of the NVML
 * names collbench binds (kNames, in cb_nvml_fn_t's order). */
#include "nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static const char *const kNames[CB_NVML_FN_COUNT] = {
    [CB_NVML_FN_INIT] = "nvmlInit_v2",
    [CB_NVML_FN_SHUTDOWN] = "nvmlShutdown",
    [CB_NVML_FN_ERROR_STRING] = "nvmlErrorString",
    [CB_NVML_FN_BY_BUSID] = "nvmlDeviceGetHandleByPciBusId_v2",
    [CB_NVML_FN_LINK_STATE] = "nvmlDeviceGetNvLinkState",
    [CB_NVML_FN_FIELD_VALUES] = "nvmlDeviceGetFieldValues",
    [CB_NVML_FN_PCIE_GEN] = "nvmlDeviceGetCurrPcieLinkGeneration",
    [CB_NVML_FN_PCIE_WIDTH] = "nvmlDeviceGetCurrPcieLinkWidth",
    [CB_NVML_FN_PCIE_MAX_GEN] = "nvmlDeviceGetMaxPcieLinkGeneration",
    [CB_NVML_FN_PCIE_MAX_WIDTH] = "nvmlDeviceGetMaxPcieLinkWidth",
    [CB_NVML_FN_DRIVER_VERSION] = "nvmlSystemGetDriverVersion",
};

/* dlsym of fn's name, or NULL with fn's bit set in n->missing. */
static void *sym(cb_nvml_t *n, cb_nvml_fn_t fn) {
  void *p = dlsym(n->lib, kNames[fn]);
  if (!p) n->missing |= CB_NVML_FN_BIT(fn);
  return p;
}

int cb_nvml_open(cb_nvml_t *n, char *why, size_t len) {
  memset(n, 0, sizeof *n);
  n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!n->lib) {
    const char *e = dlerror();
    if (!why) return -1;
    if (!e || strstr(e, "No such file")) snprintf(why, len, "libnvidia-ml.so.1 not found");
    else snprintf(why, len, "libnvidia-ml.so.1 cannot be loaded (%s)", e);
    return -1;
  }
  n->init = (int (*)(void))sym(n, CB_NVML_FN_INIT);
  n->shutdown = (int (*)(void))sym(n, CB_NVML_FN_SHUTDOWN);
  n->error = (const char *(*)(int))sym(n, CB_NVML_FN_ERROR_STRING);
  n->by_busid = (int (*)(const char *, cb_nvml_device_t *))sym(n, CB_NVML_FN_BY_BUSID);
  n->link_state = (int (*)(cb_nvml_device_t, unsigned, int *))sym(n, CB_NVML_FN_LINK_STATE);
  n->fields = (int (*)(cb_nvml_device_t, int, cb_nvml_field_t *))sym(n, CB_NVML_FN_FIELD_VALUES);
  n->gen = (int (*)(cb_nvml_device_t, unsigned *))sym(n, CB_NVML_FN_PCIE_GEN);
  n->width = (int (*)(cb_nvml_device_t, unsigned *))sym(n, CB_NVML_FN_PCIE_WIDTH);
  n->max_gen = (int (*)(cb_nvml_device_t, unsigned *))sym(n, CB_NVML_FN_PCIE_MAX_GEN);
  n->max_width = (int (*)(cb_nvml_device_t, unsigned *))sym(n, CB_NVML_FN_PCIE_MAX_WIDTH);
  n->driver_version = (int (*)(char *, unsigned))sym(n, CB_NVML_FN_DRIVER_VERSION);
  return 0;
}

const char *cb_nvml_lacks(const cb_nvml_t *n, unsigned need) {
  for (int fn = 0; fn < CB_NVML_FN_COUNT; fn++)
    if (need & n->missing & CB_NVML_FN_BIT(fn)) return kNames[fn];
  return NULL;
}

const char *cb_nvml_error(const cb_nvml_t *n, int rc) {
  const char *s = n->error ? n->error(rc) : NULL;
  return s ? s : "unknown NVML error";
}

void cb_nvml_close(cb_nvml_t *n) {
  if (n->lib) dlclose(n->lib);
  n->lib = NULL;
}
