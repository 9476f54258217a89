// Exercise 09.1 -- which scales multiply C(i, j)'s partial sum over K group g. Hints: docs/09_fp8_int8_wgmma.md,
// "Exercise 09.1". Check it with: ctest --preset workshop -R "exercise 09.1"
//
// DeepSeek-V3's block scaling quantizes A (M x K, row-major) in blocks of 1 x 128 along K and B (K x N, column-major)
// in blocks of 128 x 128, each block with one fp32 scale. Over K group g (K indices 128 g .. 128 g + 127) every
// product A(i, k) B(k, j) carries the same two scales, so a GEMM sums the group's 8-bit products and multiplies the
// partial sum once. The scales are stored as cuBLASLt reads them: sa holds A's, K group by K group, each group's M
// scales contiguous (ld_sa apart); sb holds B's, 128-column block by block, each block's scales for every K group
// contiguous (ld_sb apart).
#pragma once

#include "tc_test/exercise.hpp"

namespace ex09_1 {

// The factor that multiplies C(row, col)'s partial sum over K group g: A's scale for (row, g) times B's for the
// 128 x 128 block holding column col in group g. Preconditions: 0 <= row < M <= ld_sa; 0 <= col < N; 0 <= g <
// groups(K) <= ld_sb.
inline float scale_factor(const float* sa, int ld_sa, const float* sb, int ld_sb, int row, int col, int g) {
  // TODO(exercise 09.1): A's scale, B's scale, their product.
  (void)sa, (void)ld_sa, (void)sb, (void)ld_sb, (void)row, (void)col, (void)g;
  tc::exercise::todo("09.1", "09_fp8_int8_wgmma/exercises/ex1_block_scale.hpp", "09_fp8_int8_wgmma");
}

}  // namespace ex09_1
