// cp.async: copies from global to shared memory that do not pass through registers and complete asynchronously.
//
// A thread issues copies, closes them into a group with cp_async_commit_group(), and later waits with
// cp_async_wait_group<N>() until at most N of its most recent groups are still in flight. Waiting covers only the
// calling thread's own copies: a __syncthreads() after the wait is what makes every thread's data visible to the
// whole block. This is what lets a kernel keep several shared-memory stages in flight without spending registers on
// them (chapter 04), and what chapter 06 builds its pipeline on.
// Preconditions: sm_80 or newer; 16-byte aligned shared and global addresses.
// Source: PTX ISA, "Data Movement and Conversion Instructions: cp.async", "cp.async.commit_group",
// "cp.async.wait_group".
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tc {

// cp.async.cg.shared.global [dst], [src], 16, src_size: copy 16 bytes, caching in L2 only (.cg: the data is staged in
// shared memory once, so L1 would only hold a second copy). With `fill_zero` the source size is 0 and the 16 bytes
// of dst are zero-filled without reading src (which must still be a valid address expression).
__device__ inline void cp_async_cg_shared_global_16(void* dst, const void* src, bool fill_zero) {
  const auto dst_shared = static_cast<std::uint32_t>(__cvta_generic_to_shared(dst));
  const int src_size = fill_zero ? 0 : 16;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst_shared), "l"(src), "r"(src_size)
               : "memory");
}

// cp.async.commit_group: closes this thread's copies issued since the last commit into one group (possibly empty).
__device__ inline void cp_async_commit_group() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// cp.async.wait_group N: returns once at most N of this thread's committed groups are pending.
template <int N>
__device__ inline void cp_async_wait_group() {
  static_assert(N >= 0, "the count of groups left in flight cannot be negative");
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

}  // namespace tc
