/* Open MPI 4.1 rankfiles from a plan.
 *
 * Open MPI reads "slot=S:A-B" as: the Package with logical index S, then the cores it holds
 * numbered from 0 inside that package (its rankfile mapper searches cores below the socket
 * object), so a plan's global logical core index c becomes c - first core of the package.
 * Several "S:A-B" items are joined with ',': 4.1's parser splits the slot at ',' and reads
 * each piece as its own socket:cores pair (so "0:0,1" is not "cores 0 and 1 of socket 0";
 * we only ever write ranges).
 * Rankfiles are logical by default (rmaps_rank_file_physical=0); that is what we write.
 * Global rank = host index * ranks_per_node + local rank, matching collbench's local-rank to
 * GPU rule. */
#include <string.h>

#include "topo_internal.h"

int cb_rankfile_host_check(const char *host, char *why, size_t n) {
  size_t len = strlen(host);
  if (len == 0 || len > CB_RANKFILE_HOST_MAX)
    return cb_topo_fail(why, n, "host name of %zu characters: a host name has 1 to %d", len, CB_RANKFILE_HOST_MAX);
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)host[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_')
      continue;
    /* only the valid characters before it are shown: the rest may be anything */
    int shown = i > 60 ? 60 : (int)i;
    if (c < 0x20 || c >= 0x7f)
      return cb_topo_fail(why, n,
                          "host name '%.*s...' holds byte 0x%02x at offset %zu: a rankfile host name is "
                          "letters, digits, '-', '.' and '_'",
                          shown, host, c, i);
    return cb_topo_fail(why, n,
                        "host name '%.*s%c...' holds '%c': a rankfile host name is letters, digits, '-', '.' "
                        "and '_' (Open MPI reads ':', '=', ',', '#' and blanks as syntax)",
                        shown, host, c, c);
  }
  return 0;
}

/* The package holding logical core c, or -1. */
static int package_of_core(const cb_placement_t *pl, int c) {
  for (int p = 0; p < pl->npackages; p++)
    if (pl->package_first_core[p] >= 0 && c >= pl->package_first_core[p] &&
        c < pl->package_first_core[p] + pl->package_ncores[p])
      return p;
  return -1;
}

/* "S:A-B[,T:C-D...]" for one GPU's cores (sorted, as the planner makes them). */
static int slot_list(const cb_placement_t *pl, const cb_gpu_place_t *g, char *buf, size_t n, char *why, size_t whylen) {
  size_t used = 0;
  buf[0] = 0;
  for (int i = 0; i < g->ncores;) {
    int p = package_of_core(pl, g->cores[i]);
    if (p < 0)
      return cb_topo_fail(why, whylen,
                          "%s: core L#%d of GPU %s is in no package: a rankfile "
                          "needs socket:core slots",
                          pl->source, g->cores[i], g->busid);
    int j = i;
    while (j + 1 < g->ncores && g->cores[j + 1] == g->cores[j] + 1 && package_of_core(pl, g->cores[j + 1]) == p) j++;
    int a = g->cores[i] - pl->package_first_core[p], b = g->cores[j] - pl->package_first_core[p];
    int w = a == b ? snprintf(buf + used, n - used, "%s%d:%d", i ? "," : "", p, a)
                   : snprintf(buf + used, n - used, "%s%d:%d-%d", i ? "," : "", p, a, b);
    if (w < 0 || (size_t)w >= n - used)
      return cb_topo_fail(why, whylen, "%s: slot list of GPU %s is too long", pl->source, g->busid);
    used += (size_t)w;
    i = j + 1;
  }
  return 0;
}

int cb_placement_write_rankfile(const cb_placement_t *pl, const char *const *hosts, int nhosts, int ranks_per_node,
                                FILE *out, char *why, size_t n) {
  char slots[4096];
  if (nhosts < 1) return cb_topo_fail(why, n, "no hosts given for the rankfile");
  for (int h = 0; h < nhosts; h++)
    if (cb_rankfile_host_check(hosts[h], why, n)) return -1;
  if (ranks_per_node < 1 || ranks_per_node > pl->ngpus)
    return cb_topo_fail(why, n, "%s: %d ranks per node requested but the topology has %d GPU(s)", pl->source,
                        ranks_per_node, pl->ngpus);
  if (pl->shared)
    return cb_topo_fail(why, n,
                        "%s: a GPU listing shares cores between ranks; a rankfile needs "
                        "a placement",
                        pl->source);
  for (int h = 0; h < nhosts; h++)
    for (int r = 0; r < ranks_per_node; r++) {
      if (slot_list(pl, &pl->gpus[r], slots, sizeof slots, why, n) != 0) return -1;
      if (fprintf(out, "rank %d=%s slot=%s\n", h * ranks_per_node + r, hosts[h], slots) < 0)
        return cb_topo_fail(why, n, "writing the rankfile failed");
    }
  return 0;
}
