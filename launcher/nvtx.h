/* NVTX ranges around the bench engine's steps (setup, every timed round, check), so Nsight
 * Systems and Nsight Compute (collbench-run --profile ncu) show which row a kernel belongs to.
 * Header-only nvtx3 from the CUDA toolkit: without a profiler attached a push or pop costs one
 * call through a null function table; nothing to link but libdl.
 *
 * Range names: FAMILY/ALGO/DTYPE/SIZE/MODE:STEP, e.g. "allreduce/twoshot/bfloat16/8G/graph:round",
 * "moe/nccl/bfloat16/T4096/eager:setup", "ringattn/ring/bfloat16/S65536/eager-causal:check".
 * SIZE is the sweep point: bytes as collbench's -b reads them (K, M, G, T suffixes when exact),
 * T<tokens per rank> for moe, S<sequence length> for ringattn. cb_nvtx_name (nvtx_name.c, no
 * CUDA) builds them; tests/profile checks it. */
#ifndef CB_NVTX_H
#define CB_NVTX_H

#include <stddef.h>
#include <stdint.h>

/* The SIZE field of a name: the family's sweep point (kind 'B' bytes, 'T' tokens, 'S' seq). */
int cb_nvtx_size(char kind, uint64_t value, char *buf, size_t n);

/* FAMILY/ALGO/DTYPE/SIZE/MODE:STEP into buf; returns 0, or -1 when it does not fit (buf then
 * holds the truncated name, still terminated). */
int cb_nvtx_name(char *buf, size_t n, const char *family, const char *algo, const char *dtype, const char *size,
                 const char *mode, const char *step);

#ifdef CB_NVTX_RANGES
#include <nvtx3/nvToolsExt.h>
static inline void cb_nvtx_push(const char *name) { nvtxRangePushA(name); }
static inline void cb_nvtx_pop(void) { nvtxRangePop(); }
#endif

#endif
