// Warp specialization's two primitives: moving registers between warpgroups (setmaxnreg) and synchronising a subset
// of a block's warps (a named barrier), as PTX wrappers named after their instructions.
//
// A block's registers are allocated at launch, the same count for every thread (the kernel's register count). In a
// warp-specialized kernel the producer warpgroup only issues TMA loads and needs few; the consumer warpgroups hold
// the accumulators and need many. setmaxnreg.dec releases registers of the calling warpgroup to the SM's pool;
// setmaxnreg.inc blocks until the pool can give the calling warpgroup its new count. ptxas compiles the code after
// each call within the new count.
// A named barrier (bar.sync id, threads) waits for `threads` threads (a multiple of 32) arriving on barrier `id`
// (1..15; 0 is __syncthreads'), so one warpgroup can synchronise without stopping the others.
// Preconditions: setmaxnreg: sm_90a; all threads of the warpgroup execute it together; counts in 24..256, multiples
// of 8, and the block's total within the SM's 65,536 registers. bar.sync: every warp of the `threads` calls it.
// Errors: none reported; a bad count is a compile error, a mismatched barrier hangs.
// Source: PTX ISA, "setmaxnreg" and "bar.sync / barrier.sync".
#pragma once

#include <cstdint>

namespace tc {

// setmaxnreg.inc.sync.aligned.u32 N: this warpgroup's threads may use up to N registers from here on.
template <int N>
__device__ inline void setmaxnreg_inc() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

// setmaxnreg.dec.sync.aligned.u32 N: this warpgroup's threads keep N registers and give the rest back.
template <int N>
__device__ inline void setmaxnreg_dec() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

// This thread's warpgroup, threadIdx.x / 128, read from lane 0 with shfl.sync: the same value, but one the compiler
// can prove is equal in every lane of the warp, so what derives from it (shared addresses, wgmma descriptors) stays in
// the uniform registers that wgmma takes its descriptors from, instead of being moved there (R2UR) before every
// wgmma. Preconditions: all 32 lanes of the warp converged. Source: PTX ISA, "shfl.sync"; CUDA C++ Programming Guide,
// "Warp Shuffle Functions".
__device__ inline int warpgroup_index() { return __shfl_sync(0xffffffffu, int(threadIdx.x / 128), 0); }

// bar.sync id, threads: waits until `threads` threads have arrived at named barrier `id`.
__device__ inline void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// bar.arrive id, threads: counts this thread's arrival at named barrier `id` (of `threads` expected) and goes on,
// without waiting: what a producer of a hand-off does, its consumer waiting with bar.sync on the same id and count.
// Source: PTX ISA, "bar.sync / bar.arrive / barrier".
__device__ inline void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace tc
