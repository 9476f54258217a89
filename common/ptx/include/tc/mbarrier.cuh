// mbarrier, TMA loads and the proxy fences: the PTX wrappers of a TMA pipeline, named after their instructions.
//
// An mbarrier is a 64-bit object in shared memory that counts arrivals and, with expect_tx, bytes in flight; its
// phase completes when both reach zero, and threads wait on a phase's parity (tc/layouts/mbarrier_ring.hpp models
// the ring built from them). A TMA load (cp.async.bulk.tensor) writes a box of a tensor map into shared memory
// through the async proxy and counts its bytes off the mbarrier it names.
// Addresses: `bar` and `dst` are shared-memory pointers (generic addresses of __shared__ objects, converted with
// __cvta_generic_to_shared); `map` is the address of a CUtensorMap kernel parameter (`const __grid_constant__`).
// Preconditions: sm_90 (the .shared::cluster, expect_tx and tensor forms are sm_90); each mbarrier 8-byte aligned;
// each TMA destination aligned as its swizzle needs (1024 bytes for 128B). Errors: none reported; misuse hangs or
// corrupts shared memory.
// Source: PTX ISA, "mbarrier.init", "mbarrier.arrive", "mbarrier.expect_tx"/"arrive.expect_tx",
// "mbarrier.try_wait", "cp.async.bulk.tensor", "membar/fence" (fence.proxy.async, fence.mbarrier_init).
#pragma once

#include "tc/shared_address.cuh"

#include <cuda.h>  // CUtensorMap

#include <cstdint>

namespace tc {

// mbarrier.init.shared::cta.b64: a fresh barrier in phase 0 that completes a phase after `count` arrivals.
__device__ inline void mbarrier_init(std::uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(count) : "memory");
}

// fence.mbarrier_init.release.cluster: makes the initialised barriers visible to the async proxy (the TMA unit that
// will complete transactions on them) and to the cluster, before any thread or copy uses them.
__device__ inline void fence_mbarrier_init_release_cluster() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// mbarrier.arrive.shared::cta.b64: one arrival.
__device__ inline void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(shared_address(bar))
               : "memory");
}

// mbarrier.arrive.expect_tx.shared::cta.b64: one arrival, and `bytes` more to be completed by copies.
__device__ inline void mbarrier_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(
                   shared_address(bar)),
               "r"(bytes)
               : "memory");
}

// mbarrier.try_wait.parity.shared::cta.b64 on the barrier at shared address `bar` (tc::shared_address): true once
// the phase of this parity has completed (it may also return false after a time-out the hardware picks, so callers
// loop). Taking the address lets a loop compute it once rather than every iteration.
__device__ inline bool mbarrier_try_wait_parity_at(std::uint32_t bar, int parity) {
  std::uint32_t done;
  asm volatile(
      "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

// Waits for the phase of this parity at shared address `bar`: try_wait in a loop (try_wait suspends the thread in
// hardware for a while before it gives up, so the loop does not spin hot).
__device__ inline void mbarrier_wait_parity_at(std::uint32_t bar, int parity) {
  while (!mbarrier_try_wait_parity_at(bar, parity)) {
  }
}

// The same on a pointer to the barrier.
__device__ inline void mbarrier_wait_parity(std::uint64_t* bar, int parity) {
  mbarrier_wait_parity_at(shared_address(bar), parity);
}

// fence.proxy.async.shared::cta: orders this thread's generic-proxy accesses to shared memory before later
// async-proxy accesses (wgmma operand reads, TMA stores) and the reverse.
__device__ inline void fence_proxy_async_shared_cta() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes: the box at element coordinates
// (inner, row) of `map` into shared `dst`, its bytes counted off `bar`. Issued by one thread.
__device__ inline void cp_async_bulk_tensor_2d_global_to_shared(void* dst, const CUtensorMap* map, int inner, int row,
                                                                 std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          shared_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(inner), "r"(row), "r"(shared_address(bar))
      : "memory");
}

// cp.async.bulk.tensor.3d and .4d, as the 2-D load: the box at element coordinates (c0, c1, c2[, c3]) of a map of that
// rank (tc::TmaTensor; c0 along the contiguous dimension) into shared `dst`, its bytes counted off `bar`. Attention
// reads [batch, seqlen, heads, head_dim] in place through a rank-4 map: (0, first key, head, batch). Issued by one
// thread. Source: PTX ISA, "cp.async.bulk.tensor" (.3d, .4d: tensor coordinates, one 32-bit integer each).
__device__ inline void cp_async_bulk_tensor_3d_global_to_shared(void* dst, const CUtensorMap* map, int c0, int c1,
                                                                 int c2, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n"
      ::"r"(shared_address(dst)), "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2),
      "r"(shared_address(bar))
      : "memory");
}
__device__ inline void cp_async_bulk_tensor_4d_global_to_shared(void* dst, const CUtensorMap* map, int c0, int c1,
                                                                 int c2, int c3, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
      "[%6];\n" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(shared_address(bar))
      : "memory");
}

}  // namespace tc
