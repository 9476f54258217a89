// Flags in global memory by which one block hands another a result, as PTX wrappers named after the instruction:
// what chapter 10's stream-K uses to pass a partial tile from the block that computed it to the block that finishes
// the tile.
//
// The writer stores its data, then a release store of the flag; the reader spins on acquire loads of the flag until it
// sees the value, then reads the data. The release makes every write that happens before it visible to a thread whose
// acquire reads the stored value: the writer's own, and other threads' writes ordered before it by a barrier (bar.sync
// is part of the memory model's causality order, and release is cumulative). A reader's other threads then take the
// data after a barrier with the thread that acquired. Both at GPU scope: the two blocks run on different SMs.
// Preconditions: sm_70 or newer; `flag` a global address, 4-byte aligned. Errors: none reported.
// Source: PTX ISA, "ld" and "st" (.acquire, .release, .relaxed, .gpu), "Memory Consistency Model" (release and
// acquire patterns, causality order).
#pragma once

namespace tc {

// ld.acquire.gpu.global.u32: the flag's value, with every load after it ordered after it.
__device__ inline unsigned ld_acquire_gpu_u32(const unsigned* flag) {
  unsigned value;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(value) : "l"(flag) : "memory");
  return value;
}

// st.release.gpu.global.u32: stores value, with every memory operation before it ordered before it.
__device__ inline void st_release_gpu_u32(unsigned* flag, unsigned value) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(value) : "memory");
}

// st.relaxed.gpu.global.u32: stores value with no ordering (a reset that the next kernel launch sees, as a launch
// boundary orders everything before it).
__device__ inline void st_relaxed_gpu_u32(unsigned* flag, unsigned value) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(value) : "memory");
}

}  // namespace tc
