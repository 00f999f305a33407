/* Implementation of meta_header.h: nccl-tests' "# Using devices" layout, one line per rank, with
 * collbench's algorithm lines above it and its notes below. */
#include "meta_header.h"

#include <stdio.h>

static void rank_line(const cb_meta_rank_t *r, const cb_mpi_world_t *m, cb_strbuf_t *out) {
  cb_sb_printf(out, "#  Rank %3d on %-16s pid %7d  GPU %d [%s] %s  cpus: %s%s%s\n", r->rank, r->host, r->pid, r->device,
               r->busid, r->gpu, r->binding, m->virtual_nodes ? "  node: " : "", m->virtual_nodes ? r->node_name : "");
}

void cb_meta_header(const cb_meta_t *m, cb_strbuf_t *out) {
  const cb_world_t *w = m->w;
  for (int k = 0; k < m->nalgos; k++) {
    const cb_meta_algo_t *al = &m->algos[k];
    cb_sb_printf(out, "#  algorithm %-12s %s%s%s\n", al->algo->name, al->algo->summary, al->desc[0] ? " — " : "",
                 al->desc);
  }
  cb_sb_printf(out, "# collbench %s (git %s): %s\n#\n# Using devices\n", m->version, m->git_rev, m->a->cmdline);
  for (int r = 0; r < m->nranks; r++) rank_line(&m->ranks[r], &w->mpi, out);
  if (w->mpi.virtual_nodes)
    cb_sb_printf(out,
                 "#  virtual cluster: %d nodes named by CB_NODE_ID (NCCL_HOSTID: NCCL joins them over its network "
                 "transport)\n",
                 w->mpi.nnodes);
  if (w->gpu_shared)
    cb_sb_printf(out,
                 "#  shared GPUs: ranks of this job share a GPU (%s); correctness only: their kernels share the "
                 "GPU's SMs and memory, so times are neither NVLink's nor a network's\n",
                 w->gpu_shared_in_node ? "CB_SHARE_GPUS=1: ranks of one node on one GPU, each its own NCCL host, "
                                         "so NCCL joins them over its network transport"
                                       : "ranks of different virtual nodes on the same GPUs");
  cb_sb_printf(out, "#  NCCL %s  CUDA runtime %d  driver %s  peer memory: %s%s\n", m->nccl, w->runtime_version,
               m->driver, w->peer_ok ? "yes" : "no", w->peer_ok ? "" : w->peer_why);
}
