/* Time stamps inside the MoE kernels, for finding where a decode round trip's microseconds go
 * (issue 14): compiled only into builds configured with -DCB_MOE_TRACE=ON, which define
 * CB_MOE_TRACE=1; elsewhere CB_MOE_TRACE_AT is nothing, so the kernels of every other build
 * are exactly as before.
 *
 * When the launch arguments carry a buffer (cb_moe_dev_t.trace, set by collectives/moe_trace.c
 * when CB_MOE_TRACE names a folder), one thread per block stores %globaltimer (nanoseconds,
 * one clock for the whole GPU) at fixed points of each kernel:
 *   trace[slot][kernel][block][point], slot = epoch % CB_MOE_TRACE_SLOTS,
 * and at point CB_MOE_TRACE_EPOCH the epoch itself, so the host can order the slots. The
 * points of each kernel are listed in moe.h (CB_MOE_TK_*, CB_MOE_TP_*). */
#ifndef CB_MOE_TRACE_CUH
#define CB_MOE_TRACE_CUH

#include "moe.h"
#include "signal.cuh"

namespace cb_moe {

__device__ __forceinline__ unsigned long long *trace_slot(const cb_moe_dev_t &a, int kernel, uint32_t epoch,
                                                          int point) {
  return a.trace +
         (((size_t)(epoch % CB_MOE_TRACE_SLOTS) * CB_MOE_TRACE_KERNELS + kernel) * CB_MOE_MAX_PUSH_BLOCKS +
          blockIdx.x) *
             CB_MOE_TRACE_POINTS +
         point;
}

/* The calling thread stamps `point` of `kernel` for this block (and, at the start point, the
 * epoch, after clearing the slot's other points: a slot is reused every CB_MOE_TRACE_SLOTS
 * calls, and a point a block does not reach in this call must not show the old call's time;
 * every other point is stamped after a barrier that follows the start). */
__device__ __forceinline__ void trace_at(const cb_moe_dev_t &a, int kernel, uint32_t epoch, int point) {
  if (!a.trace) return;
  if (point == CB_MOE_TP_START) {
    for (int p = 0; p < CB_MOE_TRACE_EPOCH; p++) *trace_slot(a, kernel, epoch, p) = 0;
    *trace_slot(a, kernel, epoch, CB_MOE_TRACE_EPOCH) = epoch;
  }
  *trace_slot(a, kernel, epoch, point) = cb_globaltimer_ns();
}

/* The SM this thread runs on (%smid), for the dispatch push's CB_MOE_TP_A value. */
__device__ __forceinline__ unsigned int sm_id() {
  unsigned int v;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(v));
  return v;
}

/* A value instead of a time at `point` (after the start point's stamp, which clears the slot). */
__device__ __forceinline__ void trace_value(const cb_moe_dev_t &a, int kernel, uint32_t epoch, int point,
                                            unsigned long long v) {
  if (a.trace) *trace_slot(a, kernel, epoch, point) = v;
}

} // namespace cb_moe

#if defined(CB_MOE_TRACE) && CB_MOE_TRACE
#define CB_MOE_TRACE_AT(a, kernel, epoch, point) cb_moe::trace_at((a), (kernel), (epoch), (point))
#define CB_MOE_TRACE_SM(a, kernel, epoch, point) \
  cb_moe::trace_value((a), (kernel), (epoch), (point), cb_moe::sm_id() + 1ull)
/* A point that stands for the whole block: every thread gets there first (trace builds only,
 * so the barrier changes nothing elsewhere). */
#define CB_MOE_TRACE_BLOCK(a, kernel, epoch, point)                          \
  do {                                                                       \
    __syncthreads();                                                         \
    if (threadIdx.x == 0) cb_moe::trace_at((a), (kernel), (epoch), (point)); \
  } while (0)
#else
#define CB_MOE_TRACE_AT(a, kernel, epoch, point) ((void)0)
#define CB_MOE_TRACE_SM(a, kernel, epoch, point) ((void)0)
#define CB_MOE_TRACE_BLOCK(a, kernel, epoch, point) ((void)0)
#endif

#endif
