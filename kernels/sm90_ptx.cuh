/* Hopper (sm_90) building blocks of kernels/attn/attn_fwd_sm90.cu, as small named PTX wrappers:
 * mbarriers (the completion counters the copy engine and the consumer warps signal), TMA tile
 * loads (cp.async.bulk.tensor completing on an mbarrier), named barriers, register
 * reallocation (setmaxnreg, sm_90a) and the proxy fences.
 *
 * mbarrier protocol (PTX ISA, "mbarrier"): a 64-bit counter in shared memory with an expected
 * arrival count and a phase bit. A phase completes when `count` threads have arrived and every
 * byte announced with expect_tx has landed; waiters poll for the completion of the phase whose
 * parity they name. A fresh barrier is in phase 0, and waiting for parity 1 (the phase "before"
 * it) succeeds at once: that is how a producer finds every stage empty on its first pass. */
#ifndef CB_SM90_PTX_CUH
#define CB_SM90_PTX_CUH

#include <stdint.h>

#include "mma_ptx.cuh" /* cb_smem_addr */

/* Cycles an mbarrier wait may spin before the kernel reports and traps (about 10 s at the
 * H200's 1.98 GHz): a TMA that never completes must end in an error, not a hang. */
#define CB_SM90_WAIT_CYCLES (20ull * 1000 * 1000 * 1000)

__device__ __forceinline__ void cb_mbar_init(uint64_t *bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(cb_smem_addr(bar)), "r"(count));
}

/* Makes the barriers' initialisation visible to the async proxy (the copy engine) before any
 * TMA uses them; a __syncthreads() after it makes it visible to the other threads. */
__device__ __forceinline__ void cb_mbar_fence_init() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::); }

/* One arrival that also announces `bytes` of TMA data the phase must wait for. */
__device__ __forceinline__ void cb_mbar_arrive_expect_tx(uint64_t *bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(cb_smem_addr(bar)), "r"(bytes)
               : "memory");
}

/* Announces `bytes` of TMA data the current phase must wait for, without arriving. */
__device__ __forceinline__ void cb_mbar_expect_tx(uint64_t *bar, uint32_t bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(cb_smem_addr(bar)), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void cb_mbar_arrive(uint64_t *bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(cb_smem_addr(bar)) : "memory");
}

__device__ __forceinline__ bool cb_mbar_try_wait(uint64_t *bar, uint32_t parity) {
  uint32_t done;
  asm volatile("{\n.reg .pred p;\n"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
               "selp.u32 %0, 1, 0, p;\n}\n"
               : "=r"(done)
               : "r"(cb_smem_addr(bar)), "r"(parity)
               : "memory");
  return done != 0;
}

/* Waits until the phase of parity `parity` has completed (acquire: what the arrivals and the
 * TMA wrote before it is visible after it). Traps after CB_SM90_WAIT_CYCLES, which the host's
 * launch check then reports as the kernel's error. No printf here: a function call inside the
 * consumers' loop would make ptxas serialize every wgmma (its warning C7510). */
__device__ __forceinline__ void cb_mbar_wait(uint64_t *bar, uint32_t parity) {
  if (cb_mbar_try_wait(bar, parity)) return;
  const unsigned long long t0 = clock64();
  for (unsigned spins = 1;; spins++) {
    if (cb_mbar_try_wait(bar, parity)) return;
    if ((spins & 1023u) == 0 && clock64() - t0 > CB_SM90_WAIT_CYCLES) __trap();
  }
}

/* The same wait with no timeout of its own, for a wait that another thread's timed wait is
 * certain to trap first if it never completes (a trap ends the whole grid). The timed wait's
 * trap path, at the top of the forward's per-tile loop, made ptxas spill P's registers. */
__device__ __forceinline__ void cb_mbar_wait_untimed(uint64_t *bar, uint32_t parity) {
  while (!cb_mbar_try_wait(bar, parity)) {
  }
}

/* Fetches a tensor map (a __grid_constant__ kernel parameter) into the descriptor cache. */
__device__ __forceinline__ void cb_tma_prefetch_map(const void *map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

/* A 4-d box of the tensor `map` at coordinates (c0 innermost .. c3) into shared memory at dst
 * (1024-byte aligned for the 128-byte swizzle), completing `bar`'s transaction count. Elements
 * outside the tensor arrive as zeros and still count as bytes. */
__device__ __forceinline__ void cb_tma_load_4d(void *dst, const void *map, uint64_t *bar, int c0, int c1, int c2,
                                               int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], "
      "[%2];\n" ::"r"(cb_smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(cb_smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

/* Named barriers 1..15 (0 is __syncthreads): `threads` threads take part, some blocking in
 * sync, the others passing through arrive. */
__device__ __forceinline__ void cb_named_bar_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void cb_named_bar_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/* Register reallocation between warpgroups (sm_90a): every warp of a warpgroup executes the
 * same one; the kernel needs a register cap at entry (__launch_bounds__(threads, 1)). */
template <int kRegs>
__device__ __forceinline__ void cb_setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void cb_setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

/* Ordinary shared-memory stores made visible to the async proxy (wgmma reading the tile next);
 * each writing thread runs it before the barrier that hands the tile over. */
__device__ __forceinline__ void cb_fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* Stores to a shared-memory byte address (cb_smem_addr): the address math stays 32-bit, so a
 * swizzled store's address can be one XOR of a per-row base. */
__device__ __forceinline__ void cb_st_shared_b32(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ void cb_st_shared_v2_f32(uint32_t addr, float a, float b) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(addr), "f"(a), "f"(b) : "memory");
}

/* Two fp32 adds to consecutive global addresses in one reduction (sm_90: red.global.v2.f32),
 * 8-byte aligned; no value returned, so the adds do not wait. */
__device__ __forceinline__ void cb_red_add_v2(float *p, float a, float b) {
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(p), "f"(a), "f"(b) : "memory");
}

/* Bulk tensor reduction (sm_90, the TMA unit): adds the fp32 box at smem (1024-byte aligned, laid
 * out as the map's swizzle says) into the tensor `map` at coordinates (c0 innermost .. c3), as one
 * asynchronous operation of the thread's bulk group; elements outside the tensor are skipped.
 * The shared source must stay unchanged until cb_bulk_wait_read; ordinary stores to it need
 * cb_fence_proxy_async_smem first. */
__device__ __forceinline__ void cb_tma_reduce_add_4d(const void *map, const void *smem, int c0, int c1, int c2,
                                                     int c3) {
  asm volatile(
      "cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n" ::"l"(
          reinterpret_cast<uint64_t>(map)),
      "r"(cb_smem_addr(smem)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}
__device__ __forceinline__ void cb_bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
/* Waits until the thread's bulk groups have read their shared sources (the buffer is free). */
__device__ __forceinline__ void cb_bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); }
/* Waits until the thread's bulk groups have completed (their global writes done). */
__device__ __forceinline__ void cb_bulk_wait() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }

#endif
