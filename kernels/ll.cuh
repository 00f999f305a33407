/* The LL ("low latency") protocol, shared by the latency-bound kernels: a 4-byte word travels
 * with its epoch in one 8-byte store {data, epoch}. An 8-byte store arrives whole, so the
 * receiver polls the word itself until its epoch matches: no separate flag, no system fence,
 * no barrier; one NVLink hop. Twice the bytes on the wire, so for small messages only.
 * Slots are reused every other call (epoch parity); a stale slot never carries the current
 * epoch.
 *
 * Lines (cb_ll_send_line / cb_ll_recv_line) carry two words in one 16-byte store
 * {data0, epoch, data1, epoch}: each 8-byte half still arrives whole, so the receiver checks
 * both epochs. Consecutive threads writing consecutive lines make a warp's stores one
 * contiguous 512-byte run, where 8-byte slots 32 bytes apart touched 32 separate sectors. */
#ifndef CB_LL_CUH
#define CB_LL_CUH

#include <stdint.h>
#include <stdio.h>

#include "signal.cuh"

__device__ __forceinline__ void cb_ll_send(void *slot, uint32_t data, uint32_t epoch) {
  asm volatile("st.volatile.global.v2.u32 [%0], {%1,%2};" ::"l"(slot), "r"(data), "r"(epoch) : "memory");
}

__device__ __forceinline__ uint2 cb_ll_load(const void *slot) {
  uint2 v;
  asm volatile("ld.volatile.global.v2.u32 {%0,%1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(slot) : "memory");
  return v;
}

/* Waits until the slot carries `epoch`, returns its word; traps after timeout_ns naming the
 * rank, block and peer. */
__device__ __forceinline__ uint32_t cb_ll_recv(const void *slot, uint32_t epoch, uint64_t timeout_ns, unsigned int *ctl,
                                               int rank, int peer) {
  uint2 v = cb_ll_load(slot);
  if (v.y == epoch) return v.x;
  uint64_t start = cb_globaltimer_ns();
  uint32_t polls = 0;
  for (;;) {
    v = cb_ll_load(slot);
    if (v.y == epoch) return v.x;
    if (cb_spin_expired(&polls, start, timeout_ns, ctl, rank, peer)) {
      printf("collbench: device timeout: rank %d block %d waited %.1f s for LL data from peer rank %d "
             "(epoch %u, slot has %u): the peer is gone or hung\n",
             rank, (int)blockIdx.x, timeout_ns * 1e-9, peer, epoch, v.y);
      __trap();
    }
  }
}

__device__ __forceinline__ void cb_ll_send_line(void *line, uint32_t d0, uint32_t d1, uint32_t epoch) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(line), "r"(d0), "r"(epoch), "r"(d1), "r"(epoch)
               : "memory");
}

__device__ __forceinline__ uint4 cb_ll_load_line(const void *line) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(line)
               : "memory");
  return v;
}

/* Waits until both halves of the line carry `epoch`; returns its two words. Traps like
 * cb_ll_recv. */
__device__ __forceinline__ uint2 cb_ll_recv_line(const void *line, uint32_t epoch, uint64_t timeout_ns,
                                                 unsigned int *ctl, int rank, int peer) {
  uint4 v = cb_ll_load_line(line);
  if (v.y == epoch && v.w == epoch) return make_uint2(v.x, v.z);
  uint64_t start = cb_globaltimer_ns();
  uint32_t polls = 0;
  for (;;) {
    v = cb_ll_load_line(line);
    if (v.y == epoch && v.w == epoch) return make_uint2(v.x, v.z);
    if (cb_spin_expired(&polls, start, timeout_ns, ctl, rank, peer)) {
      printf("collbench: device timeout: rank %d block %d waited %.1f s for LL data from peer rank %d "
             "(epoch %u, line has %u/%u): the peer is gone or hung\n",
             rank, (int)blockIdx.x, timeout_ns * 1e-9, peer, epoch, v.y, v.w);
      __trap();
    }
  }
}

#endif
