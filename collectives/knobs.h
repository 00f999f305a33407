/* The CB_* tuning knobs of the custom algorithms, read and validated once at start (before any
 * GPU work) so a malformed value is a usage error naming the variable, never a failure halfway
 * through a run. The world carries the result to every algorithm; nothing reads the
 * environment later. The metadata records every CB_* variable as set.
 *
 *   CB_MAX_BLOCKS      caps the grid of every custom all-reduce / all-to-all kernel
 *                      (1..CB_SIGNAL_MAX_BLOCKS; MoE's grids follow the SM cap alone)
 *   CB_SMS             the SM cap of the custom kernels (1..the device's SMs; --sms N overrides
 *                      it): every custom kernel's grid has at most that many blocks, so it
 *                      occupies at most that many SMs (the sms column reports what it used)
 *   CB_SM_COUNT        CB_SMS's former name: set (not empty), it is a usage error naming CB_SMS
 *   CB_AR_LL_MAX, CB_AR_ONESHOT_MAX, CB_AR_TWOSHOT_MAX   auto's thresholds (bytes per rank)
 *   CB_AR_CE_CHUNK     twoshot_ce's chunk (bytes, a multiple of 16)
 *   CB_AR_HIER_CHUNKS  hier's pipeline chunks (1..16; unset: by size)
 *   CB_MOE_PUSH_PCT    moe peer's combine: percent of its blocks that push (1..99, default 50;
 *                      the others reduce)
 *   CB_SHARE_GPUS      1: the ranks of one node may share a GPU (a test mode for machines with
 *                      fewer GPUs than ranks, e.g. the cross-rank paths of the custom kernels on
 *                      one GPU; launcher/collbench-vnode sets the rest up). Local rank l opens
 *                      visible GPU l mod count; NCCL must see every rank as its own host
 *                      (NCCL_HOSTID = CB_NODE_ID.<local rank>: NCCL refuses two ranks on one GPU
 *                      of one host). Correctness only: the header says times are not NVLink's.
 *                      0 or unset: more ranks on a node than GPUs is an error (the default).
 *   CB_MOE_TRACE       a diagnostic, not a tuning knob: the folder for the MoE kernels' time
 *                      stamps (collectives/moe_trace.h); only builds configured with
 *                      -DCB_MOE_TRACE=ON take it, and it must name an existing, writable folder
 *                      (at most CB_MOE_TRACE_DIR_MAX - 1 bytes); it may differ between ranks
 * Every knob but the SM cap must be the same on every rank (launcher/main.c checks it: grids,
 * auto's choices and moe's chunk sizes derive from them); the world agrees on the smallest
 * SM cap. */
#ifndef CB_KNOBS_H
#define CB_KNOBS_H

#include <stddef.h>
#include <stdint.h>

#include "allreduce_plan.h"

#define CB_MOE_TRACE_DIR_MAX 400

typedef struct cb_knobs {
  int max_blocks;                       /* 0 = each algorithm's own cap */
  int sm_count;                         /* SM cap (CB_SMS, --sms); 0 = the device's */
  cb_ar_thresholds_t ar;                /* for this run's rank count */
  uint64_t ar_ce_chunk;                 /* bytes */
  int ar_hier_chunks;                   /* 0 = by size */
  int moe_push_pct;                     /* percent of moe peer's combine blocks that push */
  int share_gpus;                       /* 1: ranks of one node may share a GPU (CB_SHARE_GPUS) */
  char moe_trace[CB_MOE_TRACE_DIR_MAX]; /* CB_MOE_TRACE's folder; "" = no time stamps */
} cb_knobs_t;

/* Reads every knob for a run of nranks ranks. Returns 0, or -1 with why naming the variable. */
int cb_knobs_read(cb_knobs_t *k, int nranks, char *why, size_t n);

/* CB_MOE_TRACE's value (NULL: unset) into out (CB_MOE_TRACE_DIR_MAX bytes; "" when unset), for
 * a build with (traced_build = 1) or without the time stamps: 0, or -1 with why naming the
 * variable and the value (cb_knobs_read passes this build's flag; the tests pass both). */
int cb_moe_trace_knob(const char *value, int traced_build, char *out, char *why, size_t n);

/* The knobs every rank must set alike (all but the SM cap and CB_MOE_TRACE), their names and
 * values, in names[] and values[] (CB_KNOBS_ALIKE entries); returns how many. */
#define CB_KNOBS_ALIKE 8
int cb_knobs_alike(const cb_knobs_t *k, const char *names[CB_KNOBS_ALIKE], long long values[CB_KNOBS_ALIKE]);

/* The SM cap against the device (once the GPU is known): 0, or -1 with why when the cap
 * (`source` names where it came from: "--sms" or "CB_SMS") exceeds the device's sm_count. */
int cb_knobs_check_sms(const cb_knobs_t *k, const char *source, int device_sms, const char *gpu, char *why, size_t n);

#endif
