/* Run metadata for the results files: what ran, where, with which software. Collective over
 * the world (every rank contributes its GPU and binding); the text is valid on rank 0. */
#ifndef CB_META_H
#define CB_META_H

#include "args.h"
#include "collective.h"
#include "strbuf.h"
#include "world.h"

/* Appends the run's metadata as one JSON object to out (hosts, GPUs, versions, environment,
 * options and the selected algorithms) and the matching stdout header to header (algorithm
 * lines, the per-rank "#  Rank 0 ..." lines, versions), on rank 0; other ranks get nothing
 * appended. Prints nothing itself. */
void cb_meta_collect(const cb_world_t *w, const cb_args_t *a, const cb_algo_t *const *algos, int nalgos,
                     cb_strbuf_t *out, cb_strbuf_t *header);

/* The NVIDIA driver version string ("580.159.04") through NVML loaded at run time, or the CUDA
 * driver API version ("CUDA 13.0") when NVML is not there. */
void cb_driver_version(int cuda_driver_version, char *buf, size_t n);

#endif
