/* The backward pass of the ring-attention algorithms (issue 34): the buffers every scheme
 * shares, the block-pair launch (kernels/attn_bwd.h, cb_attn_bwd), the pass dispatch and the
 * schemes' backward schedules (ringattn_ring_bwd.c: peer memory on the copy engine;
 * ringattn_nccl_bwd.c: ncclSend/ncclRecv; nccl_allgather's and single's in their own files).
 *
 * Buffers of one rank (rows = S/P, or S for `single`), beside the forward's (ringattn_common.h):
 *   dout  [batch][rows][heads][head_dim]                  dtype: the loss gradient of out,
 *                                                         seeded random values (tensor 3 of
 *                                                         attn_util.h's fill), made once
 *   delta [batch][heads][rows]                            fp32: rowsum(dout * out)
 *   dq    [batch][rows][heads][head_dim]                  fp32 (accumulated over the steps)
 *   dkv   [ dK: batch][rows][kv_heads][head_dim] | dV ]   fp32 home: the complete dK, dV of
 *                                                         this rank's K/V shard (one allocation
 *                                                         so one copy moves both)
 *   part  like dkv                                        one step's contribution (ring forms)
 * Every pass starts from zero (cb_ra_bwd_begin): the block kernel only adds. */
#ifndef CB_RINGATTN_BWD_H
#define CB_RINGATTN_BWD_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "attn_bwd.h"

struct cb_ra;
struct cb_inst;

typedef struct cb_ra_bwd {
  void *dout;
  float *delta, *dq, *dkv, *part;
  size_t dkv_elems; /* floats of dK and dV together (2 x the K/V block's elements; set by cb_ra_init) */
  size_t dkv_bytes;
  /* cuDNN rows (ringattn_cudnn_bwd.c): one call's dQ [batch][q_len][heads][head_dim] and dK | dV
   * [batch][kv_len][kv_heads][head_dim] in the dtype, and its rows' lse [batch][heads][q_len] */
  void *cudnn_dq, *cudnn_dkv;
  float *cudnn_stats;
} cb_ra_bwd_t;

/* The backward buffers of x (home: a dkv the scheme provides, e.g. in peer memory; NULL:
 * allocated here; parts: also allocate `part`), dout filled from seed, and, for --pass bwd, the
 * untimed forward that gives out and lse (computed locally from the whole sequence's K/V made
 * from the same seed: no communication in setup). Then one block pair as a probe: a build or a
 * GPU without the backward kernel fails here with cb_attn_bwd's reason. Returns 0 or -1 with
 * why. */
int cb_ra_bwd_init(struct cb_ra *x, const struct cb_inst *in, float *home, int parts, char *why, size_t n);

/* The arguments of one block pair (kernels/attn_bwd.h): q_len query rows (q, dout, lse, delta,
 * dq) at qpos against kv_len K/V rows (kv: K then V, kv_elems elements each) at kvpos, with the
 * sums into dkv (dK then dV, kv_elems floats each); batch, shape, dtype and mask from x. */
cb_attn_bwd_args_t cb_ra_bwd_pair(const struct cb_ra *x, const void *q, const void *dout, const float *lse,
                                  const float *delta, float *dq, int64_t q_len, cb_attn_pos_t qpos, const void *kv,
                                  int64_t kv_len, cb_attn_pos_t kvpos, float *dkv, size_t kv_elems);

/* Start of every backward: delta from out and dout, dq = 0. */
void cb_ra_bwd_begin(const struct cb_ra *x, cudaStream_t s);

/* One block pair: this rank's queries against the K/V block kv (positions kvpos): dq and
 * dkv (dK | dV of that block) += its gradients. Exits (CB_DIE) if the kernel refuses. */
void cb_ra_bwd_attend(const struct cb_ra *x, const void *kv, cb_attn_pos_t kvpos, float *dkv, cudaStream_t s);

/* The local backward alone on one S/P block with contiguous positions (the bwd part of
 * ring_over_single's denominator). */
void cb_ra_bwd_local(struct cb_inst *in, cudaStream_t s);

/* The backward check (ringattn_bwd_check.c): after a checked forward of the same inputs, fresh
 * dout, poisoned gradients, the scheme's backward, then dq, dk, dv against the fp32 reference
 * (cb_attn_bwd_reference). Adds to in->metric[CB_ATTN_ERR_MAX], [CB_ATTN_ERR_MEAN] (attn_family.h);
 * returns the wrong elements. */
long long cb_ra_bwd_check(struct cb_inst *in, cudaStream_t s, unsigned long long seed);

/* The ring forms' compute alone (their measure()): the backward's start, then for every step i
 * the sums cleared (step 0: acc0, later: part), the pair against kv_slot[i % 2] (step 0: the
 * own block) and, from step 1, d[i % 2] += part; on whatever the slots hold. */
void cb_ra_bwd_ring_compute(const struct cb_ra *x, void *const kv_slot[2], float *acc0, float *const d[2],
                            cudaStream_t s);

/* The single rank's backward (`single` and P = 1): one pair, straight into the home dkv. */
void cb_ra_bwd_single(struct cb_inst *in, cudaStream_t s);

/* The peer-memory ring's backward (ringattn_ring_bwd.c): its own peer allocation (two K/V
 * slots, two dK/dV slots, the home dK/dV, flags), the run, and its parts alone. */
struct cb_ra_ring_bwd;
int cb_ra_ring_bwd_setup(struct cb_inst *in, struct cb_ra *x, struct cb_ra_ring_bwd **out, char *why, size_t n);
void cb_ra_ring_bwd_run(struct cb_inst *in, struct cb_ra_ring_bwd *g, cudaStream_t s);
void cb_ra_ring_bwd_compute(struct cb_inst *in, struct cb_ra_ring_bwd *g, cudaStream_t s);
void cb_ra_ring_bwd_comm(struct cb_inst *in, struct cb_ra_ring_bwd *g, cudaStream_t s);
void cb_ra_ring_bwd_free(struct cb_ra_ring_bwd *g); /* NULL: nothing */
size_t cb_ra_ring_bwd_peer_bytes(const struct cb_ra_ring_bwd *g);

/* nccl_ring's backward (ringattn_nccl_bwd.c) over the forward's two receive slots (reused: the
 * backward's first receive is ordered after the forward's last read on the same streams), with
 * its own two dK/dV receive slots and step 0's sums. */
struct cb_ra_nccl_bwd;
int cb_ra_nccl_bwd_setup(struct cb_inst *in, struct cb_ra *x, void *const slot[2], struct cb_ra_nccl_bwd **out,
                         char *why, size_t n);
void cb_ra_nccl_bwd_run(struct cb_inst *in, struct cb_ra_nccl_bwd *g, cudaStream_t s);
void cb_ra_nccl_bwd_compute(struct cb_inst *in, struct cb_ra_nccl_bwd *g, cudaStream_t s);
void cb_ra_nccl_bwd_comm(struct cb_inst *in, struct cb_ra_nccl_bwd *g, cudaStream_t s);
void cb_ra_nccl_bwd_free(struct cb_ra_nccl_bwd *g); /* NULL: nothing */

#endif
