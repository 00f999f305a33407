/* MoE kernel time stamps on the host side (a diagnostic; kernels/moe_trace.cuh has the device
 * side): with CB_MOE_TRACE=<folder> (knobs.h, checked at start) in a -DCB_MOE_TRACE=ON build, every MoE
 * instance gets a stamp buffer, and its teardown writes the last CB_MOE_TRACE_SLOTS calls'
 * stamps to <folder>/moe-r<rank>-<algo>-<dtype>-<mode>-<tokens>-b<blocks>.txt (blocks: the push
 * kernels' grid), one line per (kernel, call, block): "kernel block epoch t0 .. t6" (ns of
 * %globaltimer, 0 = not stamped in that call). Nothing is written for an instance that never
 * ran. Read them with tools/moe_trace.py. */
#ifndef CB_MOE_TRACE_H
#define CB_MOE_TRACE_H

#include <stddef.h>

#include "moe_common.h"

/* dir: the world's knobs.moe_trace (checked at start, knobs.c). 0 when it is empty or the
 * buffer is made; -1 with why when the buffer cannot be allocated. */
int cb_moe_trace_setup(const char *dir, cb_moe_state_t *st, char *why, size_t n);
/* Writes the stamps (nothing without a buffer); warns, never fails, when the file cannot be
 * written: the measurements are not at stake. */
void cb_moe_trace_dump(const cb_inst_t *in, const cb_moe_state_t *st);

#endif
