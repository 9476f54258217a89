// Exercise 07.1 -- the wgmma shared-memory descriptor. Hints: docs/07_wgmma_tma.md, "Exercise 07.1". Check it with:
// ctest --preset workshop -R "exercise 07.1"
//
// A slice of 64 K-columns sits in shared memory as rows of 128 bytes in the 128-byte swizzle, its base on a 1024-byte
// boundary. One wgmma reads 16 of those K-columns. Write the 64-bit descriptor that tells it where: for the kk-th 16
// columns (kk = 0..3) of the slice at shared byte address `slice`.
#pragma once

#include "tc_test/exercise.hpp"

#include <cstdint>

namespace ex07_1 {

// Returns the descriptor: start address, leading and stride byte offsets, base offset and swizzle mode, each in the
// bits the PTX ISA's "Matrix Descriptor Format" gives it. Preconditions: slice a multiple of 1024 below 2^18;
// 0 <= kk < 4. Source: PTX ISA, "Matrix Descriptor Format" and "Shared Memory Matrix Layout" (K-major, 128B swizzle).
inline std::uint64_t k_step_descriptor(std::uint32_t slice, int kk) {
  // TODO(exercise 07.1): build the 64 bits. Each address and offset is stored >> 4; which offset is the distance
  // between 8-row groups, and what does a step of 16 K-columns add to the start address?
  (void)slice, (void)kk;
  tc::exercise::todo("07.1", "07_wgmma_tma/exercises/ex1_descriptor.hpp", "07_wgmma_tma");
}

}  // namespace ex07_1
