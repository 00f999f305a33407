/* MoE kernel time stamps on the host side (a diagnostic; kernels/moe_trace.cuh has the device
 * side): with CB_MOE_TRACE=<folder> and a build configured with -DCB_MOE_TRACE=ON, every MoE
 * instance gets a stamp buffer, and its teardown writes the last CB_MOE_TRACE_SLOTS calls'
 * stamps to <folder>/moe-r<rank>-<algo>-<dtype>-<mode>-<tokens>-b<blocks>.txt (blocks: the push
 * kernels' grid), one line per (kernel, call, block): "kernel block epoch t0 .. t6" (ns of
 * %globaltimer, 0 = not stamped in that call). Nothing is written for an instance that never
 * ran. Read them with results/scripts/moe_trace.py. */
#ifndef CB_MOE_TRACE_H
#define CB_MOE_TRACE_H

#include <stddef.h>

#include "moe_common.h"

/* 0 when CB_MOE_TRACE is unset or the buffer is made; -1 with why when it is set in a build
 * without stamps, names no folder, or the buffer cannot be allocated. */
int cb_moe_trace_setup(cb_moe_state_t *st, char *why, size_t n);
/* Writes the stamps (nothing without a buffer); warns, never fails, when the file cannot be
 * written: the measurements are not at stake. */
void cb_moe_trace_dump(const cb_inst_t *in, const cb_moe_state_t *st);

#endif
