/* The ring schedules' host arithmetic, CUDA-free, checked by the CPU tests for P = 1..8: the
 * backward pass's rotation (ringattn_ring_bwd.c, ringattn_nccl_bwd.c), and the slot fills the
 * peer-memory rings' flags count (ringattn_ring.c, ringattn_ring_bwd.c).
 *
 * Rank r holds its queries (and dO, lse, delta) for the whole pass; K/V blocks rotate as in the
 * forward (step i: the block of rank (r - i) mod P), and with each block travel the fp32 partial
 * sums of its dK and dV: at step i rank r adds its queries' contribution to the block it holds
 * and sends the sums on to r + 1. After step P - 1 every rank has added to every block once, and
 * the block rank r holds then is that of r + 1 = (r - (P - 1)) mod P: the last transfer takes
 * the complete sums home. (P = 1: no transfer; the sums are home from the start.) */
#ifndef CB_RINGATTN_BWD_PLAN_H
#define CB_RINGATTN_BWD_PLAN_H

typedef struct cb_ra_bwd_step {
  int kv_src;        /* the rank whose K/V block (and partial dK/dV sums) rank r holds at step i */
  int dkv_to;        /* where the sums go after step i: r + 1 mod P (r itself when P = 1) */
  int dkv_home;      /* 1: that transfer (or, P = 1, none) leaves them with their owner kv_src */
  int contributions; /* ranks whose queries are in the sums once step i is done: i + 1 */
} cb_ra_bwd_step_t;

/* Step i (0 <= i < P) of rank r (0 <= r < P). */
cb_ra_bwd_step_t cb_ra_bwd_step(int P, int r, int i);

/* Two receive slots per rank: the block for step t (t = 1..P-1) lands in slot t % 2. Fills of
 * slot s in one pass, and the 1-based index of step t's fill among those of its slot (the flag
 * values of attn_util.h count fills: value(k) = (pass - 1) * fills + k). */
unsigned cb_ra_slot_fills(int P, int s);
unsigned cb_ra_fill_index(int t);

#endif
