/* Implementation of moe_trace.h. */
#include "moe_trace.h"

#include <stdio.h>
#include <stdlib.h>

#include "dtype.h"
#include "error_gpu.h"
#include "moe_family.h"
#include "newfile.h"

#define TRACE_WORDS ((size_t)CB_MOE_TRACE_SLOTS * CB_MOE_TRACE_KERNELS * CB_MOE_MAX_PUSH_BLOCKS * CB_MOE_TRACE_POINTS)

int cb_moe_trace_setup(const char *dir, cb_moe_state_t *st, char *why, size_t n) {
  if (!dir[0]) return 0; /* (the folder and the build were checked at start: knobs.c) */
  /* not through cb_moe_alloc: a diagnostic buffer is no part of the row's mem_bytes */
  if (CB_TRY_CUDA(cudaMalloc((void **)&st->trace, TRACE_WORDS * 8), why, n)) return -1;
  CB_CUDA(cudaMemset(st->trace, 0, TRACE_WORDS * 8));
  return 0;
}

void cb_moe_trace_dump(const cb_inst_t *in, const cb_moe_state_t *st) {
  if (!st->trace) return;
  unsigned long long *h = malloc(TRACE_WORDS * 8);
  if (!h) {
    CB_WARN("CB_MOE_TRACE: out of host memory, time stamps not written");
    return;
  }
  CB_CUDA(cudaMemcpy(h, st->trace, TRACE_WORDS * 8, cudaMemcpyDeviceToHost));
  size_t stamped = 0;
  for (size_t i = CB_MOE_TRACE_EPOCH; i < TRACE_WORDS; i += CB_MOE_TRACE_POINTS) stamped += h[i] != 0;
  const char *dir = in->world->knobs.moe_trace;
  if (!stamped) { /* a setup that failed, or an instance never run: keep any earlier file */
    free(h);
    return;
  }
  char path[1024];
  if (snprintf(path, sizeof path, "%s/moe-r%d-%s-%s-%s-%llu-b%d.txt", dir, st->r, in->algo->name,
               cb_dtype_name(in->p.dtype), in->p.graph ? "graph" : "eager", (unsigned long long)cb_moe_tokens(&in->p),
               st->dev.push_blocks) >= (int)sizeof path) {
    CB_WARN("CB_MOE_TRACE: the folder name is too long, time stamps not written");
    free(h);
    return;
  }
  FILE *f = cb_newfile_replace(path); /* newfile.h: a planted symlink is never followed */
  if (!f) {
    CB_WARN("CB_MOE_TRACE: cannot write %s, time stamps not written", path);
    free(h);
    return;
  }
  fprintf(f, "# kernel block epoch t0 t1 t2 t3 t4 t5 t6 (kernels/moe.h CB_MOE_TK_*, CB_MOE_TP_*; ns, 0 = none)\n");
  for (size_t slot = 0; slot < CB_MOE_TRACE_SLOTS; slot++)
    for (int k = 0; k < CB_MOE_TRACE_KERNELS; k++)
      for (int b = 0; b < CB_MOE_MAX_PUSH_BLOCKS; b++) {
        const unsigned long long *p =
            h + ((slot * CB_MOE_TRACE_KERNELS + (size_t)k) * CB_MOE_MAX_PUSH_BLOCKS + (size_t)b) * CB_MOE_TRACE_POINTS;
        if (!p[CB_MOE_TRACE_EPOCH]) continue;
        fprintf(f, "%d %d %llu", k, b, p[CB_MOE_TRACE_EPOCH]);
        for (int i = 0; i < CB_MOE_TRACE_EPOCH; i++) fprintf(f, " %llu", p[i]);
        fputc('\n', f);
      }
  if (fclose(f) != 0) CB_WARN("CB_MOE_TRACE: writing %s failed", path);
  free(h);
}
