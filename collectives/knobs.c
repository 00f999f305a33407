/* Implementation of knobs.h: one reader per knob, all called at start. */
#include "knobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cb_limits.h"
#include "env.h"
#include "signal_pad.h"

int cb_knobs_read(cb_knobs_t *k, int nranks, char *why, size_t n) {
  memset(k, 0, sizeof *k);
  uint64_t v = 0;
  if (cb_env_u64("CB_MAX_BLOCKS", 1, CB_SIGNAL_MAX_BLOCKS, &v, why, n) < 0) return -1;
  k->max_blocks = (int)v;
  /* CB_SM_COUNT was CB_SMS's name once: a job that still sets it is told so, not run uncapped */
  const char *former = getenv("CB_SM_COUNT");
  if (former && *former) {
    snprintf(why, n, "CB_SM_COUNT is no longer read: the SM cap is CB_SMS (or --sms); set CB_SMS=%.32s instead",
             former);
    return -1;
  }
  v = 0;
  if (cb_env_u64("CB_SMS", 1, CB_SMS_MAX, &v, why, n) < 0) return -1;
  k->sm_count = (int)v;
  if (cb_ar_thresholds(nranks, &k->ar, why, n) < 0) return -1;
  if (cb_ar_ce_chunk_bytes(&k->ar_ce_chunk, why, n) < 0) return -1;
  if (cb_ar_hier_chunks_knob(&k->ar_hier_chunks, why, n) < 0) return -1;
  v = 50;
  if (cb_env_u64("CB_MOE_PUSH_PCT", 1, 99, &v, why, n) < 0) return -1;
  k->moe_push_pct = (int)v;
  v = 0;
  if (cb_env_u64("CB_SHARE_GPUS", 0, 1, &v, why, n) < 0) return -1;
  k->share_gpus = (int)v;
#if defined(CB_MOE_TRACE) && CB_MOE_TRACE
  const int traced = 1;
#else
  const int traced = 0;
#endif
  return cb_moe_trace_knob(getenv("CB_MOE_TRACE"), traced, k->moe_trace, why, n);
}

int cb_moe_trace_knob(const char *value, int traced_build, char *out, char *why, size_t n) {
  out[0] = '\0';
  if (!value) return 0;
  struct stat sb;
  const char *problem = NULL;
  if (!traced_build) problem = "this build has no MoE kernel time stamps (configure with -DCB_MOE_TRACE=ON)";
  else if (!*value) problem = "empty (name the folder for the time stamp files)";
  else if (strlen(value) >= CB_MOE_TRACE_DIR_MAX) problem = "too long for a folder name here";
  else if (stat(value, &sb) != 0 || !S_ISDIR(sb.st_mode))
    problem = "not an existing folder (the time stamp files go there)";
  else if (access(value, W_OK | X_OK) != 0) problem = "a folder this process cannot write into";
  if (problem) {
    snprintf(why, n, "CB_MOE_TRACE='%.200s%s': %s", value, strlen(value) > 200 ? "..." : "", problem);
    return -1;
  }
  snprintf(out, CB_MOE_TRACE_DIR_MAX, "%s", value);
  return 0;
}

int cb_knobs_alike(const cb_knobs_t *k, const char *names[CB_KNOBS_ALIKE], long long values[CB_KNOBS_ALIKE]) {
  static const char *const alike[CB_KNOBS_ALIKE] = {"CB_MAX_BLOCKS",     "CB_AR_LL_MAX",   "CB_AR_ONESHOT_MAX",
                                                    "CB_AR_TWOSHOT_MAX", "CB_AR_CE_CHUNK", "CB_AR_HIER_CHUNKS",
                                                    "CB_MOE_PUSH_PCT",   "CB_SHARE_GPUS"};
  const long long v[CB_KNOBS_ALIKE] = {k->max_blocks,
                                       (long long)k->ar.ll_max,
                                       (long long)k->ar.oneshot_max,
                                       (long long)k->ar.twoshot_max,
                                       (long long)k->ar_ce_chunk,
                                       k->ar_hier_chunks,
                                       k->moe_push_pct,
                                       k->share_gpus};
  for (int i = 0; i < CB_KNOBS_ALIKE; i++) {
    names[i] = alike[i];
    values[i] = v[i];
  }
  return CB_KNOBS_ALIKE;
}

int cb_knobs_check_sms(const cb_knobs_t *k, const char *source, int device_sms, const char *gpu, char *why, size_t n) {
  if (k->sm_count <= device_sms) return 0;
  snprintf(why, n, "%s %d: more SMs than the GPU has (%s: %d SMs)", source, k->sm_count, gpu, device_sms);
  return -1;
}
