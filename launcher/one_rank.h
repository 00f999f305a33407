/* One rank: a classic collective (allreduce, allgather, reducescatter, alltoall) run by a
 * single rank moves nothing between GPUs, so its bus bandwidth is 0 by definition (nccl-tests'
 * factors 2(n-1)/n and (n-1)/n are 0 at n = 1). Rows of zeros would read as a broken machine
 * (a recurring nccl-tests question), so the report says it once before the table and marks
 * every measured row. Which families: those whose busbw factor is 0 at one rank (family.h),
 * not a list kept here. sendrecv (factor 1: a rank sends to itself), moe and ringattn keep
 * their rows as they are. */
#ifndef CB_ONE_RANK_H
#define CB_ONE_RANK_H

#include <stdio.h>

#include "report.h"

/* The line printed before the table, and the note appended to each measured row. */
#define CB_ONE_RANK_LINE                                                                        \
  "collbench: 1 rank: collectives move no data between GPUs, so busbw is 0 by definition; run " \
  "with 2 or more GPUs, or --share-gpus ranks on one GPU (correctness only)"
#define CB_ONE_RANK_NOTE "1 rank: busbw 0 by definition"

/* 1 when a row of family at ranks has busbw 0 by definition (an unknown family: 0). */
int cb_one_rank_zero_busbw(const char *family, int ranks);

/* in as the report writes it: with the note appended (after "; " when in has a note of its own)
 * to a measured row that cb_one_rank_zero_busbw marks; otherwise an unchanged copy. When say is
 * not NULL and the row is marked or skipped of such a run, CB_ONE_RANK_LINE goes to say first
 * (the report passes its table stream for the run's first row only). */
cb_row_t cb_one_rank_row(const cb_row_t *in, FILE *say);

#endif
