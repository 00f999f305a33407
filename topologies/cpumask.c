/* Slurm CPU masks from a plan: the list srun --cpu-bind=mask_cpu:LIST takes, one hexadecimal
 * mask per local task in task order ("0xff,0xff00"), so task r of every node runs on the cores
 * planned for GPU r, as the rankfile does for mpirun.
 *
 * Bit i of a mask is the OS (physical) CPU number i, the number sched_setaffinity and Slurm's
 * task/affinity plugin use (not hwloc's logical index): the plan's pus[] holds exactly those.
 * Masks are written most significant digit first, without leading zeros (srun reads them as
 * one hexadecimal number each). */
#include <string.h>

#include "topo_internal.h"

/* One mask "0x..." for the PUs in pus (OS indexes < CB_TOPO_MAX_CPUS). */
static int format_mask(const int *pus, int npus, char *buf, size_t n) {
  unsigned char nibble[CB_TOPO_MAX_CPUS / 4];
  int top = -1;
  memset(nibble, 0, sizeof nibble);
  for (int i = 0; i < npus; i++) {
    if (pus[i] < 0 || pus[i] >= CB_TOPO_MAX_CPUS) return -1;
    nibble[pus[i] / 4] |= (unsigned char)(1u << (pus[i] % 4));
    if (pus[i] / 4 > top) top = pus[i] / 4;
  }
  if (top < 0 || n < (size_t)top + 4) return -1;
  size_t k = 0;
  buf[k++] = '0';
  buf[k++] = 'x';
  for (int d = top; d >= 0; d--) buf[k++] = "0123456789abcdef"[nibble[d]];
  buf[k] = 0;
  return 0;
}

int cb_placement_format_cpu_masks(const cb_placement_t *pl, int ranks_per_node, char *buf, size_t n, char *why,
                                  size_t whylen) {
  if (ranks_per_node < 1 || ranks_per_node > pl->ngpus)
    return cb_topo_fail(why, whylen, "%s: %d ranks per node requested but the topology has %d GPU(s)", pl->source,
                        ranks_per_node, pl->ngpus);
  if (pl->shared)
    return cb_topo_fail(why, whylen,
                        "%s: a GPU listing shares cores between ranks; CPU masks need a "
                        "placement",
                        pl->source);
  size_t used = 0;
  for (int r = 0; r < ranks_per_node; r++) {
    const cb_gpu_place_t *g = &pl->gpus[r];
    if (used + 2 > n) return cb_topo_fail(why, whylen, "%s: the CPU mask list is too long", pl->source);
    if (r) buf[used++] = ',';
    if (g->npus < 1) return cb_topo_fail(why, whylen, "%s: GPU %s has no CPUs planned", pl->source, g->busid);
    if (format_mask(g->pus, g->npus, buf + used, n - used) != 0)
      return cb_topo_fail(why, whylen, "%s: CPU mask of GPU %s does not fit (CPU numbers up to %d)", pl->source,
                          g->busid, CB_TOPO_MAX_CPUS - 1);
    used += strlen(buf + used);
  }
  return 0;
}
