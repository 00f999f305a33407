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
 *   SENDRECV       in_{(rank-1) mod n}[i]                  (count)  — a ring shift */
typedef enum cb_layout {
  CB_LAYOUT_ALLREDUCE = 0,
  CB_LAYOUT_ALLGATHER,
  CB_LAYOUT_REDUCESCATTER,
  CB_LAYOUT_ALLTOALL,
  CB_LAYOUT_SENDRECV
} cb_layout_t;

#endif
