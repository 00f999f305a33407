/* The Ulysses all-to-all's host arithmetic (DeepSpeed-Ulysses, TransformerEngine's a2a, USP):
 * which heads each rank of a group of U takes, the strided copies that scatter a tensor by heads
 * and gather it by sequence (and back), and the bytes a Ulysses or hybrid row moves per GPU.
 * Host-only and CUDA-free: the CPU tests run the copies on host arrays against the index math;
 * the schemes (ringattn_ulysses*.c) run the same copies with cudaMemcpy2DAsync.
 *
 * Heads. A group of U ranks (members u = 0..U-1) splits the H query heads evenly: member v
 * takes heads [v*H/U, (v+1)*H/U). K/V heads (KV of them, grouped: query head h reads K/V head
 * h / (H/KV)): KV divisible by U -> member v takes [v*KV/U, (v+1)*KV/U); otherwise, when U is a
 * multiple of KV, every member takes the one K/V head its query heads read, each K/V head held
 * by U/KV members (replicated, as USP does; TransformerEngine's a2a refuses CP > KV heads
 * instead), and in the backward the replicas' dK/dV sums are added at their owner; neither:
 * refused with the reason.
 *
 * Tensors. A rank's shard holds [batch][L][Hs][unit] (L = S/P rows of its sequence, Hs = H or KV
 * heads, unit = head_dim elements); a member's inner copy holds [batch][U*L][Hi][unit]: its
 * group's rows (member u's rows at [u*L, (u+1)*L)) for its Hi heads. The log-sum-exp is
 * [batch][heads][rows] on both sides (unit = one float). Member u's rows and member v's heads
 * form one block, copied shard(u) -> inner(v) forward and inner(v) -> shard(u) back. */
#ifndef CB_ATTN_A2A_H
#define CB_ATTN_A2A_H

#include <stddef.h>
#include <stdint.h>

#include "attn_config.h"

typedef struct cb_attn_heads_split {
  int U;
  int q_heads;     /* query heads per member: H / U */
  int kv_heads;    /* K/V heads per member: KV / U, or 1 when replicated */
  int kv_replicas; /* members holding each K/V head: 1, or U / KV */
} cb_attn_heads_split_t;

/* The split of H query and KV key/value heads over U members (above). Returns 0, or -1 with why
 * ("not supported: ..."). */
int cb_attn_heads_split(int H, int KV, int U, cb_attn_heads_split_t *s, char *why, size_t n);

/* First query head / first K/V head of member v. */
int cb_attn_q_head0(const cb_attn_heads_split_t *s, int v);
int cb_attn_kv_head0(const cb_attn_heads_split_t *s, int v);
/* Which replica of its K/V head member v holds (0 .. kv_replicas-1). */
int cb_attn_kv_replica(const cb_attn_heads_split_t *s, int v);

/* One block copy: `batch` slabs of `rows` rows of `width` bytes; the offsets of the first byte
 * and the pitches (bytes from one row / one slab to the next) on each side. */
typedef struct cb_attn_copy {
  size_t src, dst, width;
  size_t rows, src_row, dst_row;
  size_t batch, src_batch, dst_batch;
} cb_attn_copy_t;

/* A tensor of the all-to-all (above): rows_major 1 for [batch][rows][heads][unit], 0 for the
 * log-sum-exp's [batch][heads][rows]. */
typedef struct cb_attn_a2a_tensor {
  int rows_major;
  size_t batch, L; /* batch, rows of a shard */
  int U;
  int shard_heads, inner_heads; /* Hs, Hi */
  size_t unit;                  /* bytes of one head of one row */
} cb_attn_a2a_tensor_t;

/* The block of member u's rows and the heads [head0, head0 + Hi) of its shard (src), into the
 * inner copy of the member holding those heads, at member u's rows (dst). Reversed
 * (cb_attn_copy_reverse): the way back. */
cb_attn_copy_t cb_attn_a2a_block(const cb_attn_a2a_tensor_t *t, int u, int head0);
cb_attn_copy_t cb_attn_copy_reverse(cb_attn_copy_t c);
/* The copy into (packed_dst) or out of (!packed_dst) a contiguous staging chunk instead of the
 * other side's tensor: what NCCL sends and receives. Its bytes: cb_attn_copy_bytes. */
cb_attn_copy_t cb_attn_copy_packed(cb_attn_copy_t c, int packed_dst);
size_t cb_attn_copy_bytes(const cb_attn_copy_t *c);

/* The largest pitch a 2D copy takes (cudaDeviceProp::memPitch on current GPUs). */
#define CB_ATTN_COPY_MAX_PITCH ((size_t)2147483647)

/* Runs c as few 2D copies as its pitches allow (one when the slabs or the rows are contiguous on
 * both sides, else one per slab; a row pitch beyond CB_ATTN_COPY_MAX_PITCH: one per row), each
 * through copy2d(dst, dpitch, src, spitch, width, height, ctx). Returns how many. */
typedef void (*cb_attn_copy2d_fn)(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                                  void *ctx);
int cb_attn_copy_run(const cb_attn_copy_t *c, void *dst_base, const void *src_base, cb_attn_copy2d_fn copy2d,
                     void *ctx);

/* Bytes one rank receives in one pass (CB_ATTN_PASS_*) of a row with Ulysses degree U over P
 * ranks (R = P/U ring members), elem bytes per input element, gradients in fp32:
 *   all-to-all, fwd  (U-1) B L (Hu + 2 KVu) D elem   q, k, v in
 *                  + (U-1) B L Hu D elem             out back
 *   all-to-all, bwd  (U-1) B L Hu D elem             dout in
 *                  + (U-1) B L (Hu + 2 KVu) D 4      dq, dk, dv back
 *   ring across the R groups: cb_attn_pass_bytes with Hu, KVu heads over R ranks
 * (L = S/P, Hu = H/U, KVu as split; both = fwd + bwd). U = 1 is the ring's; 0 on one rank. The
 * heads must split (cb_attn_heads_split). */
uint64_t cb_attn_ulysses_bytes(const cb_attn_config_t *c, uint64_t S, int P, int U, size_t elem, int pass);

#endif
