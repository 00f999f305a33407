/* Host-callable launchers of the MoE dispatch/combine kernels (kernels/moe.cu), shared by the
 * custom peer-memory path (custom = 1: rows pushed straight into peers' buffers, counts and
 * completions signalled through peer memory) and the NCCL path (custom = 0: rows permuted into
 * local send buffers that grouped ncclSend/ncclRecv move).
 *
 * Row formats: a dispatched token row is hidden bf16 values (hidden*2 bytes), or with fp8
 * hidden e4m3 bytes followed by hidden/128 fp32 scales; rows are padded to 16 bytes. Its
 * metadata row (cb_moe_meta layout, meta_bytes) holds the source rank, source token, and per
 * top-k slot the local expert id (or -1) and weight. Combine rows are hidden bf16 values.
 *
 * Received rows from source q start at row_base(q): q*cap with peer memory (a fixed region per
 * source), the prefix of the receive counts with NCCL (packed). */
#ifndef CB_MOE_H
#define CB_MOE_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "cb_limits.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CB_MOE_MAX_TOPK 32
/* Most blocks of the push kernels (per-block epoch words of each kind); the grid itself is
 * push_blocks below. */
#define CB_MOE_MAX_PUSH_BLOCKS 256
/* Work counters of the push kernels (cb_moe_dev_t.work): blocks that finish their first share
 * claim more from a counter instead of each taking a fixed stripe (with a fixed stripe, blocks on
 * some SMs finished in 120 us and others in 185, 4096 tokens at 32 SMs: the kernel waited for
 * the slowest). Two counters per kernel, used by call parity; a call zeroes the one the next call
 * uses (the call before last used it, and has ended). */
#define CB_MOE_WORK_DISPATCH 0 /* dispatch push: row-part batches claimed */
#define CB_MOE_WORK_COMBINE 2  /* one-kernel combine: chunks claimed by push blocks */
#define CB_MOE_WORK_WORDS 4
/* Epoch words per instance: layout, dispatch, combine per block, then expert_zeroed, then the
 * work counters. */
#define CB_MOE_EPOCH_WORDS (3 * CB_MOE_MAX_PUSH_BLOCKS + 1 + CB_MOE_WORK_WORDS)
/* Rows per completion flag of the custom combine (moe_combine.cu), chunk_rows below: cap /
 * push blocks, so every push block gets work even at decode sizes, within [MIN, MAX]. 16 rows
 * of 7168 channels are 3.5 row parts per warp of a 1024-thread block and 229 KB: about a
 * microsecond of NVLink, but ~10 us for one of 16 push SMs (~20 GB/s each), so the push blocks'
 * last chunks end up to that far apart (32-row chunks: ~17 us in the 4096-token trace). */
#define CB_MOE_CHUNK_ROWS_MIN 4
#define CB_MOE_CHUNK_ROWS_MAX 16

/* Kernel time stamps (kernels/moe_trace.cuh, builds with -DCB_MOE_TRACE=ON only): the buffer
 * cb_moe_dev_t.trace is uint64 [CB_MOE_TRACE_SLOTS][CB_MOE_TRACE_KERNELS][CB_MOE_MAX_PUSH_BLOCKS]
 * [CB_MOE_TRACE_POINTS] nanoseconds. Kernels and what their points mean: */
#define CB_MOE_TRACE_SLOTS 64
#define CB_MOE_TRACE_KERNELS 4
#define CB_MOE_TRACE_POINTS 8
#define CB_MOE_TK_DISPATCH_LL 0 /* peer_ll's dispatch */
#define CB_MOE_TK_COMBINE 1     /* the one-kernel combine (peer, peer_ll) */
#define CB_MOE_TK_DISPATCH 2    /* peer's dispatch push */
#define CB_MOE_TK_EXPERT 3      /* peer's expert layout */
#define CB_MOE_TP_START 0       /* first instruction (thread 0) */
/* CB_MOE_TP_A: dispatch_ll: counted; combine push block: first chunk stored; dispatch push: not
 * a time, the block's SM (%smid) + 1 */
#define CB_MOE_TP_A 1
#define CB_MOE_TP_B 2      /* dispatch_ll: positions written; combine push block: first flag raised */
#define CB_MOE_TP_PUSHED 3 /* rows pushed (block barrier); combine push block: last flag raised */
/* CB_MOE_TP_SIGNALLED: the flag / completion signal to the first peer stored (its thread);
 * combine reduce block: warp 0's first wait done */
#define CB_MOE_TP_SIGNALLED 4
#define CB_MOE_TP_WAITED 5   /* the wait for peers done (block barrier); combine reduce block: warp 0 done */
#define CB_MOE_TP_END 6      /* every thread done (block barrier) */
#define CB_MOE_TRACE_EPOCH 7 /* not a time: the epoch of this slot */

typedef struct cb_moe_dev {
  int rank, nranks, ntokens, cap, hidden, topk, experts_per_rank, fp8, custom;
  /* grid of the push kernels: one block per SM the world agreed on (at most
   * CB_MOE_MAX_PUSH_BLOCKS), the same on every rank, since receivers count one completion
   * signal per block */
  int push_blocks;
  /* the custom path's one-kernel combine (moe_combine.cu): its first comb_push_blocks roles
   * (block indices, spread over the GPCs when launched in clusters) push, the other
   * push_blocks - comb_push_blocks reduce */
  int comb_push_blocks;
  /* 1: the one-kernel combine may launch in clusters (spread.cuh). 0 with --overlap (a cluster
   * needs 4 free SMs in one GPC, which the compute kernel need not leave) and when ranks share a
   * GPU (the cluster query sees the whole GPU, not an MPS client's share): a plain launch */
  int combine_spread;
  size_t row_bytes, meta_bytes, comb_row_bytes;
  const int32_t *ids;    /* [ntokens][topk] global expert ids or -1 */
  const float *weights;  /* [ntokens][topk] */
  const void *x;         /* [ntokens][hidden] bf16 tokens */
  void *out;             /* [ntokens][hidden] bf16 combined result */
  int32_t *send_count;   /* [n] */
  int32_t *send_idx;     /* [n][cap] */
  int32_t *send_pos;     /* [ntokens][n] */
  int32_t *recv_count;   /* [n] */
  int32_t *expert_count; /* [experts_per_rank] */
  int32_t *expert_rows;  /* [experts_per_rank][n*cap] received row ids per local expert */
  char *dst_rows[CB_MAX_RANKS], *dst_meta[CB_MAX_RANKS]; /* where rows for dest d go */
  char *recv_rows, *recv_meta;                           /* received rows (local) */
  char *comb_dst[CB_MAX_RANKS];                          /* where combine rows for source q go */
  char *comb_src; /* where this rank's combine rows come back: custom [d*cap + j], NCCL [prefix + j] */
  /* peer memory (custom) */
  void *base[CB_MAX_RANKS];
  size_t pad_off, cnt_off; /* signal pad; count slots: peer's LL counts [src] x 8 bytes, peer_ll's
                            * block ranges [2][CB_MOE_MAX_PUSH_BLOCKS][CB_MAX_RANKS] x 8 bytes */
  size_t chunk_off;        /* combine chunk flags: uint32 [src n][nchunks] (moe_combine.cu) */
  int chunk_rows;          /* rows per chunk flag (the same on every rank: from cap and the grid) */
  int nchunks;             /* flags per source region: ceil(cap / CB_MOE_CHUNK_ROWS_MIN) */
  uint32_t *epoch_layout, *epoch_dispatch, *epoch_combine; /* per block */
  /* peer_ll: the dispatch epoch whose expert counters block 0 has zeroed (one word,
   * moe_dispatch_ll.cu) */
  uint32_t *expert_zeroed;
  uint32_t *work; /* CB_MOE_WORK_WORDS work counters (above) */
  uint64_t timeout_ns;
  unsigned int *ctl;         /* host-mapped control words (signal_pad.h CB_CTL_*) */
  unsigned long long *trace; /* time stamps (above; NULL: none; only trace builds write them) */
} cb_moe_dev_t;

void cb_moe_layout(const cb_moe_dev_t *d, cudaStream_t s);
void cb_moe_dispatch_push(const cb_moe_dev_t *d, cudaStream_t s);
void cb_moe_expert_layout(const cb_moe_dev_t *d, cudaStream_t s);
/* peer_ll's dispatch (moe_dispatch_ll.cu): layout, row pushes and per-expert lists in one
 * kernel; each block lists the rows that the same block of every source sent, after that
 * block's flag (no expert-layout kernel, no wait for a peer's whole grid). */
void cb_moe_dispatch_ll(const cb_moe_dev_t *d, cudaStream_t s);
void cb_moe_combine_push(const cb_moe_dev_t *d, cudaStream_t s);
void cb_moe_combine_reduce(const cb_moe_dev_t *d, cudaStream_t s);
/* The custom path's combine in one kernel (moe_combine.cu): push blocks weight and push the
 * rows of remote sources, reduce blocks sum each token's rows as their chunks land, taking
 * this rank's own rows straight from its receive buffer (no copy). */
void cb_moe_combine_fused(const cb_moe_dev_t *d, cudaStream_t s);
/* The cluster size the one-kernel combine launches with (kernels/spread.cuh: kSpreadCluster
 * where combine_spread allows it, the grid divides by it and all clusters fit at once; 1 = a
 * plain launch), for the rows' notes; asked at setup, so the answer is cached before any graph
 * capture. */
int cb_moe_combine_cluster(const cb_moe_dev_t *d);

/* Token data (cb_moe_token_value's formula) into x. */
void cb_moe_fill_tokens(const cb_moe_dev_t *d, uint64_t seed, int iter, cudaStream_t s);

/* Checks (return through *wrong, device memory, accumulated):
 *   received rows: metadata matches the source's routing (all_ids/all_w: [n][cap][topk]), rows
 *   from each source in token order, data equal to the source's tokens (after fp8 round trip);
 *   expert lists: every listed row selected that expert;
 *   combined output: sum_k w_k x within bf16 tolerance. */
void cb_moe_check_received(const cb_moe_dev_t *d, const int32_t *all_ids, const float *all_w,
                           const int32_t *all_ntokens, uint64_t seed, int iter, unsigned long long *wrong,
                           cudaStream_t s);
void cb_moe_check_output(const cb_moe_dev_t *d, uint64_t seed, int iter, unsigned long long *wrong, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
