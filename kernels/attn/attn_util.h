/* Helpers around the attention block kernel (attn.h) for ring attention: seeded inputs, the
 * error of an output against an fp32 reference, and the ring's cross-GPU step flags.
 * Device code in kernels/attn/attn_util.cu.
 *
 * Inputs. Element (b, position, head, d) of tensor t (0 = q, 1 = k, 2 = v) has a value drawn
 * from a hash of (seed, t, b, global position, head, d): every rank makes its own shard, the
 * check makes the whole sequence, and both agree without any transfer. q and k are uniform in
 * [-2, 2) (scores with a spread of a few units after scaling, so the softmax is neither flat nor
 * one-hot), v in [-1, 1).
 *
 * Ring flags. A ring step's flag value is computed on the device from a per-rank forward
 * counter (advanced once per forward by cb_ring_iter_advance), so the same launches replay in a
 * CUDA graph: value(k) = (counter - 1) * per_iter + k, where per_iter is how often the flag is
 * raised in one forward and k counts within the forward (1-based). Waits compare wrap-safely
 * and time out naming the peer (signal.cuh). */
#ifndef CB_ATTN_UTIL_H
#define CB_ATTN_UTIL_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "attn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills x [batch][rows][heads][dim] (bf16 or fp16) for tensor t whose rows hold the positions
 * `pos` (attn.h). */
void cb_attn_fill(void *x, int bf16, int t, int batch, int64_t rows, int heads, int dim, cb_attn_pos_t pos,
                  uint64_t seed, cudaStream_t s);

/* Error of out (n elements, bf16/fp16) against ref (fp32): adds to acc[0] the sum of |out - ref|,
 * raises acc[1] to the max, and adds to acc[2] the count of elements with |out - ref| > tol
 * (non-finite outputs count as wrong with an infinite error). acc: 3 doubles of device memory. */
void cb_attn_error(const void *out, int bf16, const float *ref, size_t n, float tol, double *acc, cudaStream_t s);
/* The same for an fp32 output (the backward pass's gradients). */
void cb_attn_error_f32(const float *out, const float *ref, size_t n, float tol, double *acc, cudaStream_t s);

void cb_ring_iter_advance(uint32_t *counter, cudaStream_t s);
/* Stores value(k) to flag (release, system scope; flag may be a peer's memory). */
void cb_ring_flag_set(uint32_t *flag, const uint32_t *counter, uint32_t per_iter, uint32_t k, cudaStream_t s);
/* Waits until *flag >= value(k) (acquire, system scope); traps after timeout_ns, naming
 * rank, peer and step, and stops when the job aborts (ctl: the host-mapped control words of
 * signal_pad.h). */
void cb_ring_flag_wait(const uint32_t *flag, const uint32_t *counter, uint32_t per_iter, uint32_t k,
                       uint64_t timeout_ns, unsigned int *ctl, int rank, int peer, int step, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
