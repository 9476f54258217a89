// wgmma: Hopper's warpgroup-wide, asynchronous tensor-core instruction, as PTX wrappers named after it.
//
// Four consecutive warps (a warpgroup, 128 threads, the first warp's index a multiple of 4) issue one
// wgmma.mma_async together. B comes from shared memory through a 64-bit matrix descriptor (tc/layouts/wgmma.hpp), A
// from shared memory too (the SS form) or from registers (RS); D stays in registers, spread over the warpgroup as
// tc::wgmma_m64nNk16_d_coord says. The wrappers of every instruction, shape and form are in tc/wgmma_mma_async.cuh
// (generated; this header includes it). The protocol around them (PTX ISA, "Asynchronous Warpgroup Level Matrix
// Multiply-Accumulate"):
//   wgmma_fence()             before the first wgmma that touches D's registers (or, in the RS form, A's), and after
//                             any other write to them;
//   wgmma.mma_async ...       any number, issued back to back: they run asynchronously;
//   wgmma_commit_group()      closes the batch issued so far into one wgmma-group;
//   wgmma_wait_group<N>()     waits until at most N groups are pending: only then may D, the RS form's A registers or
//                             the shared operands of the finished groups be touched.
// Shared memory written by ordinary stores must be made visible to the async proxy (fence_proxy_async_shared_cta in
// tc/mbarrier.cuh) and to the other warps (a barrier) before a wgmma reads it.
// Preconditions: sm_90a (these instructions exist on no other target); all 128 threads of the warpgroup execute each
// call, converged. Errors: none reported; a misuse gives wrong results or an illegal-instruction fault.
// Source: PTX ISA, sections "wgmma.fence", "wgmma.commit_group", "wgmma.wait_group", "wgmma.mma_async" and "Matrix
// Descriptor Format" (9.7.15).
#pragma once

#include "tc/wgmma_mma_async.cuh"

namespace tc {

// wgmma.fence.sync.aligned: orders earlier register writes to D (and shared writes by this warpgroup) before the
// wgmma that follows.
__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }

// wgmma.commit_group.sync.aligned: the wgmmas issued since the last commit become one group.
__device__ inline void wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }

// wgmma.wait_group.sync.aligned N: waits until at most N groups are pending. N is an immediate, hence the template.
template <int N>
__device__ inline void wgmma_wait_group() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes an immediate 0..7");
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

}  // namespace tc
