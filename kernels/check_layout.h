/* The output layouts the correctness kernels verify (check.h cb_verify), by name: CUDA-free, so
 * the family describers (collectives/family.h, host C) can say which one each family's generic
 * check uses. */
#ifndef CB_CHECK_LAYOUT_H
#define CB_CHECK_LAYOUT_H

/* What output element i of rank `rank` must hold, with `count` the per-rank chunk:
 *   ALLREDUCE      op over r of in_r[i]                    (count elements)
 *   ALLGATHER      in_{i/count}[i%count]                   (count * nranks)
 *   REDUCESCATTER  op over r of in_r[rank*count + i]       (count)
 *   ALLTOALL       in_{i/count}[rank*count + i%count]      (count * nranks)
 *   SENDRECV       in_{(rank-1) mod n}[i]                  (count)  — a ring shift
 * and with `root` the root rank (-r) of the rooted families:
 *   BROADCAST      in_root[i]                              (count)  every rank
 *   REDUCE         op over r of in_r[i]                    (count)  the root only
 *   GATHER         in_{i/count}[i%count]                   (count * nranks)  the root only
 *   SCATTER        in_root[rank*count + i]                 (count)  every rank
 * "The root only": the other ranks' receive buffers are left undefined by the collective (NCCL
 * writes nothing there), so they are not checked (cb_layout_root_only). */
typedef enum cb_layout {
  CB_LAYOUT_ALLREDUCE = 0,
  CB_LAYOUT_ALLGATHER,
  CB_LAYOUT_REDUCESCATTER,
  CB_LAYOUT_ALLTOALL,
  CB_LAYOUT_SENDRECV,
  CB_LAYOUT_BROADCAST,
  CB_LAYOUT_REDUCE,
  CB_LAYOUT_GATHER,
  CB_LAYOUT_SCATTER
} cb_layout_t;

/* 1: only the root's output is defined (reduce, gather). */
static inline int cb_layout_root_only(cb_layout_t l) { return l == CB_LAYOUT_REDUCE || l == CB_LAYOUT_GATHER; }

#endif
