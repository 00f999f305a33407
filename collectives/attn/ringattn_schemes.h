/* The ring-attention schemes, one line each: the table a new scheme adds its line to (its file,
 * ringattn_<name>.c, defines cb_ra_scheme_<name>: ringattn_scheme.h).
 *
 *   X(name, measure, summary with collbench's block kernel, summary with cuDNN's)
 *
 * measure: the row's measure() (cb_ra_measure, ringattn_pass.h: the scheme's parts alone) or
 * NULL for a scheme without parts (`single`).
 *
 * Each line becomes two rows of the registry, one per block kernel (ringattn_block_kernel.h):
 * `name` with collbench's kernel and `name_cudnn` (CB_ATTN_CUDNN_SUFFIX) with cuDNN's;
 * ringattn_rows.c makes them and registry.c lists them (CB_RA_ROW_DECLS, CB_RA_ROW_POINTERS).
 * The lines' order is the order of `collbench ringattn --algo help` and of the rows at a sweep
 * point. Macros only, CUDA-free: the command line's --block-kernel reads the names here too
 * (attn_block.c). */
#ifndef CB_RINGATTN_SCHEMES_H
#define CB_RINGATTN_SCHEMES_H

#define CB_RA_SCHEMES(X)                                                                                      \
  X(single, NULL, "P = 1 reference: the block kernel alone on the whole sequence, one GPU",                   \
    "P = 1 reference with cuDNN's fused attention as the block kernel (the vendor at its best)")              \
  X(ring, cb_ra_measure,                                                                                      \
    "K/V rotate over peer memory on the copy engine, overlapped with the block kernel; zigzag for causal",    \
    "ring with cuDNN's fused attention as the block kernel (TransformerEngine's context-parallel form)")      \
  X(nccl_ring, cb_ra_measure, "the same ring with ncclSend/ncclRecv on a communication stream",               \
    "nccl_ring with cuDNN's fused attention as the block kernel")                                             \
  X(nccl_allgather, cb_ra_measure, "ncclAllGather of K/V, then one local pass over all blocks (no overlap)",  \
    "nccl_allgather with cuDNN's fused attention as the block kernel")                                        \
  X(ulysses, cb_ra_measure,                                                                                   \
    "Ulysses: all-to-all over peer memory in groups of U (--ulysses, default P), the ring across the groups", \
    "ulysses with cuDNN's fused attention as the block kernel")                                               \
  X(nccl_ulysses, cb_ra_measure, "Ulysses with grouped ncclSend/ncclRecv (TransformerEngine's a2a, a2a+p2p)", \
    "nccl_ulysses with cuDNN's fused attention as the block kernel")

/* The registry's two rows of one scheme (registry.c: CB_RA_SCHEMES(CB_RA_ROW_DECLS) declares
 * them, CB_RA_SCHEMES(CB_RA_ROW_POINTERS) lists them). */
#define CB_RA_ROW_DECLS(name, ...) extern const cb_algo_t cb_algo_ringattn_##name, cb_algo_ringattn_##name##_cudnn;
#define CB_RA_ROW_POINTERS(name, ...) &cb_algo_ringattn_##name, &cb_algo_ringattn_##name##_cudnn,

#endif
