// Exercise 09.2 -- operands an fp8 GEMM sums exactly. Hints: docs/09_fp8_int8_wgmma.md, "Exercise 09.2". Check it
// with: ctest --preset workshop -R "exercise 09.2"
//
// The fp8 wgmma's additions keep only part of fp32's bits (step 2's probe), so an exact check must keep every partial
// sum small: with every value of A and B in [-r, r], a sum of K products stays within K r^2. The chapter's checks
// allow partial sums up to 2^11. Beyond K = 2^11 even r = 1 is too much, so each row of A is zero except at one K
// index in q (l % q == i % q), which leaves at most ceil(K / q) terms a sum.
#pragma once

#include "tc_test/exercise.hpp"

namespace ex09_2 {

struct Range {
  int r = 1;  // values in [-r, r], at most 16 (e4m3 holds the integers -16 .. 16 exactly)
  int q = 1;  // row i of A nonzero only at K indices l with l % q == i % q
};

// The largest r (with q = 1) that keeps k * r^2 <= 2^11, or, where even r = 1 does not, r = 1 and the smallest q
// that keeps ceil(k / q) <= 2^11. Preconditions: k >= 1.
inline Range exact_range(int k) {
  // TODO(exercise 09.2): try r = 1, 2, ... up to 16; past k = 2^11, the stride q instead.
  (void)k;
  tc::exercise::todo("09.2", "09_fp8_int8_wgmma/exercises/ex2_exact_range.hpp", "09_fp8_int8_wgmma");
}

}  // namespace ex09_2
