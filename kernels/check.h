/* Host-callable launchers for the correctness kernels (kernels/check.cu): fill inputs with the
 * seeded pattern (pattern.cuh) and verify outputs against the values each layout expects. */
#ifndef CB_CHECK_H
#define CB_CHECK_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "check_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_verify_result {
  unsigned long long wrong;
  unsigned long long first_bad; /* index of the first wrong element, ~0 if none */
  unsigned long long digest;    /* order-independent hash of the output bits, for cross-rank equality */
} cb_verify_result_t;

/* buf[i] = pattern(seed, rank, iter, offset + i) for i < n, in dtype (cb_dtype_t): the pattern
 * of op (a cb_redop_t: prod has its own, pattern.cuh); cb_fill_pattern is the sum pattern. */
void cb_fill_pattern(int dtype, void *buf, size_t n, uint64_t seed, int rank, int nranks, int iter, uint64_t offset,
                     cudaStream_t s);
void cb_fill_pattern_op(int dtype, int op, void *buf, size_t n, uint64_t seed, int rank, int nranks, int iter,
                        uint64_t offset, cudaStream_t s);

/* Verifies n output elements; *res (device memory) is overwritten. root: the rooted layouts'
 * root rank (check_layout.h; ignored by the others). */
void cb_verify(cb_layout_t layout, int dtype, int op, const void *out, size_t n, size_t count, int rank, int nranks,
               int root, uint64_t seed, int iter, cb_verify_result_t *res, cudaStream_t s);

/* The expected value of output element i, computed on the host (same code as the kernel), for
 * error messages. */
double cb_expected_host(cb_layout_t layout, int dtype, int op, size_t i, size_t count, int rank, int nranks, int root,
                        uint64_t seed, int iter);
/* Whether one element of dtype (raw: its bytes) passes the check against the expected value
 * want (as cb_expected_host gives it; exact for every value the pattern produces): the verify
 * kernel's comparison, on the host, for the CPU tests. */
int cb_element_ok_host(int dtype, int op, int nranks, const void *raw, double want);
/* One element of dtype from its bytes (host memory), as double. */
double cb_read_element_host(int dtype, const void *raw);
/* Element i of a device buffer of dtype, converted to double (a synchronous copy). */
double cb_read_element(int dtype, const void *buf, size_t i);

#ifdef __cplusplus
}
#endif
#endif
