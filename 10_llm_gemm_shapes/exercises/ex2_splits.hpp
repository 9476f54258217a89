// Exercise 10.2 -- how many splits of K. Hints: docs/10_llm_gemm_shapes.md, "Exercise 10.2". Check it with:
// ctest --preset workshop -R "exercise 10.2"
//
// Step 3 cuts K between the blocks of a cluster when a weight makes too few 64-row tiles to busy every SM. Given the
// weights m, the tokens n (1 to 256), K and the SMs, return the splits it runs: 1, 2, 4 or 8.
#pragma once

#include "tc_test/exercise.hpp"

namespace ex10_2 {

// The rules: a tile is 64 weights by n tokens rounded up to 8, 16, 32, 64, 128 or 256 (one column of tiles here, as
// n <= 256); double the splits while the doubled count of blocks (tiles x splits) still fits one an SM and each split
// still keeps at least 8 slices of 64 values of K (the slices are ceil(k / 64), and a split gets slices / splits of
// them, rounded down); never more than 8 (a portable cluster). Preconditions: m, k >= 1; 1 <= n <= 256; sms >= 1.
inline int splits(int m, int n, int k, int sms) {
  // TODO(exercise 10.2): count the tiles, then double while both rules hold.
  (void)m, (void)n, (void)k, (void)sms;
  tc::exercise::todo("10.2", "10_llm_gemm_shapes/exercises/ex2_splits.hpp", "10_llm_gemm_shapes");
}

}  // namespace ex10_2
