// Chapter 09's exercise solutions: each exercise's function is the tutorial's own code, built in place of the stubs
// with -DTC_EXERCISES=SOLUTIONS (README, "Workshop mode").
#pragma once

#include "tc/fp8_gemm_check.hpp"
#include "tc/layouts/block_scale.hpp"

namespace ex09_1 {
// What the chapter's block-scaled checks and cuBLASLt's BLK128x128_32F read (tc/layouts/block_scale.hpp).
inline float scale_factor(const float* sa, int ld_sa, const float* sb, int ld_sb, int row, int col, int g) {
  return tc::block_scale_factor(sa, ld_sa, sb, ld_sb, row, col, g);
}
}  // namespace ex09_1

namespace ex09_2 {
struct Range {
  int r = 1;
  int q = 1;
};
// The exact set's range (tc/fp8_gemm_check.hpp).
inline Range exact_range(int k) {
  const tc::Fp8ExactRange range = tc::fp8_exact_range(k);
  return {range.r, range.q};
}
}  // namespace ex09_2
