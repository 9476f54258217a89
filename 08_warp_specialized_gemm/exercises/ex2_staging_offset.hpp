// Exercise 08.2 -- where step 4's epilogue stages an fp32 result. Hints: docs/08_warp_specialized_gemm.md, "Exercise
// 08.2". Check it with: ctest --preset workshop -R "exercise 08.2"
//
// A consumer warpgroup stages its 64 rows of C, 32 columns at a time, in an 8 KB chunk that TMA stores to C
// (column-major). TMA reads the chunk as two boxes of 32 rows x 32 columns (rows 0..31, then 32..63), each 4 KB, each
// column one 128-byte line, in the 128-byte swizzle: within each 1024-byte atom, the 16-byte chunk index (address
// bits 4-6) is XORed with the line index (bits 7-9).
#pragma once

#include "tc_test/exercise.hpp"

#include <cstdint>

namespace ex08_2 {

// The byte offset of fp32 element (row, col) of the chunk. Preconditions: 0 <= row < 64, 0 <= col < 32.
inline std::uint32_t staging_offset(int row, int col) {
  // TODO(exercise 08.2): the box, the line within it, the byte within the line, then the swizzle.
  (void)row, (void)col;
  tc::exercise::todo("08.2", "08_warp_specialized_gemm/exercises/ex2_staging_offset.hpp", "08_warp_specialized_gemm");
}

}  // namespace ex08_2
