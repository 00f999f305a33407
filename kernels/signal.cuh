/* Cross-GPU flags over peer memory, with the memory order in each helper's name.
 *
 * A flag is a 32-bit word in a rank's signal pad (peer-mapped memory). Writers store with
 * release semantics at system scope after a __syncthreads(), so every write the block made
 * before (to local or peer memory) is visible to whoever acquires the flag; readers load with
 * acquire semantics at system scope and then __syncthreads(), so the whole block sees what the
 * writer published. Flags carry epochs that only grow (compared wrap-safely), so a pad never
 * needs resetting and a peer running one barrier ahead is harmless. Epochs live in device
 * memory and are advanced by the kernel, so CUDA-graph replays stay in step.
 *
 * Every spin has a timeout (%globaltimer, ns): on expiry it records the peer in the host-mapped
 * control words (signal_pad.h CB_CTL_TIMEOUT), prints rank, block, peer and the flag values, then
 * traps, which fails the stream; the host reports it as a timeout naming the peer. Every spin
 * also polls the host's abort word (CB_CTL_ABORT) so a stuck kernel cannot outlive the job. */
#ifndef CB_SIGNAL_CUH
#define CB_SIGNAL_CUH

#include <stdint.h>
#include <stdio.h>

#include "signal_pad.h"

__device__ __forceinline__ void cb_st_release_sys(uint32_t *p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ uint32_t cb_ld_acquire_sys(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ uint64_t cb_globaltimer_ns(void) {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__host__ __device__ __forceinline__ uint32_t *cb_pad_flag(void *pad, int slot, int block, int src) {
  return (uint32_t *)pad + ((size_t)slot * CB_SIGNAL_MAX_BLOCKS + block) * CB_MAX_RANKS + src;
}

/* The slow path of every spin, called once per poll after the first miss: every
 * CB_SPIN_CTL_EVERY polls it reads the host's abort word (ctl may be NULL) and traps when the job
 * is being aborted; past timeout_ns it records 1 + peer for the host and returns 1 (the caller
 * prints its own message and traps). */
__device__ __forceinline__ int cb_spin_expired(uint32_t *polls, uint64_t start, uint64_t timeout_ns, unsigned int *ctl,
                                               int rank, int peer) {
  if (ctl && (++*polls % CB_SPIN_CTL_EVERY) == 0 && *(volatile unsigned int *)&ctl[CB_CTL_ABORT]) {
    if (blockIdx.x == 0)
      printf("collbench: device: rank %d stops waiting for peer rank %d: the host is aborting the job\n", rank, peer);
    __trap();
  }
  if (cb_globaltimer_ns() - start <= timeout_ns) return 0;
  if (ctl) {
    *(volatile unsigned int *)&ctl[CB_CTL_TIMEOUT] = (unsigned int)peer + 1u;
    __threadfence_system();
  }
  return 1;
}

/* Spins until *flag >= want (wrap-safe); traps after timeout_ns. */
__device__ __forceinline__ void cb_wait_geq_acquire_sys(const uint32_t *flag, uint32_t want, uint64_t timeout_ns,
                                                        unsigned int *ctl, int rank, int peer, int slot) {
  uint32_t got = cb_ld_acquire_sys(flag);
  if ((int32_t)(got - want) >= 0) return;
  uint64_t start = cb_globaltimer_ns();
  uint32_t polls = 0;
  for (;;) {
    got = cb_ld_acquire_sys(flag);
    if ((int32_t)(got - want) >= 0) return;
    if (cb_spin_expired(&polls, start, timeout_ns, ctl, rank, peer)) {
      printf("collbench: device timeout: rank %d block %d waited %.1f s for peer rank %d at barrier %d "
             "(flag %u, want %u): the peer is gone or hung\n",
             rank, (int)blockIdx.x, timeout_ns * 1e-9, peer, slot, got, want);
      __trap();
    }
  }
}

/* Block-level barrier among n ranks for this block index: announce `epoch` to every peer's pad,
 * then wait for every peer's announcement in ours. pads[q] is rank q's pad (pads[rank] = own). */
__device__ __forceinline__ void cb_block_barrier(void *const *pads, int rank, int n, int slot, uint32_t epoch,
                                                 uint64_t timeout_ns, unsigned int *ctl) {
  __syncthreads();
  int t = threadIdx.x;
  if (t < n && t != rank) {
    cb_st_release_sys(cb_pad_flag(pads[t], slot, blockIdx.x, rank), epoch);
    cb_wait_geq_acquire_sys(cb_pad_flag(pads[rank], slot, blockIdx.x, t), epoch, timeout_ns, ctl, rank, t, slot);
  }
  __syncthreads();
}

#endif
