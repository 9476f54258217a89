// Exercise 06.1 -- the XOR swizzle of a shared tile. Hints: docs/06_ldmatrix_cp_async.md, "Exercise 06.1". Check it
// with: ctest --preset workshop -R "exercise 06.1"
//
// Step 3 stores a slice as lines of 32 halves (64 bytes = 4 chunks of 16 bytes), one line per row of A or column of B,
// with no padding. Unswizzled, the 8 lines one ldmatrix phase reads sit in only 4 distinct 16-byte bank groups, a
// 2-way conflict. Write where logical chunk `chunk` of line `line` is stored, so that every ldmatrix phase and every
// cp.async phase hits 32 distinct banks.
#pragma once

#include "tc_test/exercise.hpp"

namespace ex06_1 {

inline constexpr int kLineBytes = 64;   // 32 halves: step 3's BlockK
inline constexpr int kChunkBytes = 16;  // one cp.async, one ldmatrix row

// Returns the physical chunk (0..3) of line `line` (>= 0) that holds logical chunk `chunk` (0..3). It must be a
// permutation of 0..3 for every line. Source: PTX ISA, "ldmatrix" (one 16-byte row per lane, 8 rows per phase);
// CUDA C++ Programming Guide, "Shared Memory" (32 banks of 4 bytes).
inline int swizzled_chunk(int line, int chunk) {
  // TODO(exercise 06.1): return the physical chunk. Two 64-byte lines share one 128-byte row of banks.
  (void)line, (void)chunk;
  tc::exercise::todo("06.1", "06_ldmatrix_cp_async/exercises/ex1_swizzle.hpp", "06_ldmatrix_cp_async");
}

}  // namespace ex06_1
