/* Which block kernel a ringattn row uses (--block-kernel): collbench's own (kernels/attn/attn.h) or
 * cuDNN's fused attention (attn_cudnn.h). Host-only and CUDA-free, so the CLI and the CPU tests
 * use it as the algorithms do.
 *
 * Every ringattn scheme runs with either kernel, as two rows of the registry: the scheme's
 * name (`ring`: collbench's kernel) and the name with CB_ATTN_CUDNN_SUFFIX (`ring_cudnn`).
 * The algorithm name is what a row says, so tables and charts tell the kernels apart without a
 * new column. cb_attn_schemes lists the schemes of ringattn_schemes.h, the table the registry's
 * rows are made from (a CPU test compares the two through `collbench ringattn --algo help`). The
 * kernels themselves: ringattn_block_kernel.h. */
#ifndef CB_ATTN_BLOCK_H
#define CB_ATTN_BLOCK_H

#include <stddef.h>

enum cb_attn_block_bits { CB_ATTN_BLOCK_COLLBENCH = 1, CB_ATTN_BLOCK_CUDNN = 2 };

#define CB_ATTN_CUDNN_SUFFIX "_cudnn"
#define CB_ATTN_NAME_MAX 32 /* bytes of an algorithm name (family.h CB_ALGO_NAME_MAX) */

/* The ringattn schemes (single, ring, nccl_ring, nccl_allgather: ringattn_schemes.h), NULL-terminated. */
extern const char *const cb_attn_schemes[];

/* "collbench", "cudnn", "both" -> CB_ATTN_BLOCK_* bits. Returns 0 or -1. */
int cb_attn_block_parse(const char *s, int *bits);

/* 1 when an algorithm name is a cuDNN row (ends with CB_ATTN_CUDNN_SUFFIX). */
int cb_attn_block_is_cudnn(const char *algo);

/* The --algo names of a ringattn run. in[0..nin) are the names given (nin = 0: none given);
 * kernels is the --block-kernel choice, given = 1 when the option was on the command line.
 *   no names, both kernels: nothing to list (*nout = 0: every algorithm of the family);
 *   no names, one kernel: every scheme with that kernel;
 *   names and --block-kernel: each scheme name becomes its rows with the chosen kernels
 *     (ring -> ring, ring_cudnn with both); a cuDNN row's name stays, unless the choice
 *     excludes cuDNN (an error);
 *   names without --block-kernel: the names exactly as given.
 * Names that are neither are left for the registry lookup to reject. out holds up to `cap`
 * names. Returns 0, or -1 with why (too many names, a contradiction). */
int cb_attn_block_algos(const char (*in)[CB_ATTN_NAME_MAX], int nin, int kernels, int given,
                        char (*out)[CB_ATTN_NAME_MAX], int cap, int *nout, char *why, size_t n);

#endif
