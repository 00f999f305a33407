/* Run metadata for the results files: what ran, where, with which software. Collective over
 * the world (every rank contributes its GPU and binding); the text is valid on rank 0. */
#ifndef CB_META_H
#define CB_META_H

#include "args.h"
#include "strbuf.h"
#include "world.h"

/* Appends one JSON object to out (rank 0; other ranks get nothing appended). Also prints the
 * per-rank header lines ("#  Rank 0 ... ") to stdout on rank 0. algo_json is a JSON array of
 * the algorithms selected (name, summary, description). */
void cb_meta_collect(const cb_world_t *w, const cb_args_t *a, const char *algo_json, cb_strbuf_t *out);

/* The NVIDIA driver version string ("580.159.04") through NVML loaded at run time, or the CUDA
 * driver API version ("CUDA 13.0") when NVML is not there. */
void cb_driver_version(int cuda_driver_version, char *buf, size_t n);

#endif
