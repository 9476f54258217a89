// Exercise 06.2 -- which row each lane points ldmatrix.x4 at, to load an m16n8k16 A fragment. Hints:
// docs/06_ldmatrix_cp_async.md, "Exercise 06.2". Check it with: ctest --preset workshop -R "exercise 06.2"
//
// The A operand's 16 x 16 tile (M x K) is stored with K along the lines (row-major). ldmatrix.x4 loads four 8 x 8
// matrices; lane l supplies the address of row l % 8 of matrix l / 8, and each lane receives elements by ldmatrix's
// own lane map. Choose the rows so that what lands in the registers is exactly the mma.sync A fragment.
#pragma once

#include "tc/layouts/lane_ids.hpp"  // tc::Coord, tc::kWarpSize
#include "tc_test/exercise.hpp"

namespace ex06_2 {

// Returns {row, k}: lane `lane` (0..31) points at the 8 halves A(row, k .. k + 7), with 0 <= row < 16 and k 0 or 8.
// Source: PTX ISA, section 9.7.14.5.15 "ldmatrix" and section 9.7.14.5.8 (the A fragment).
inline tc::Coord a_source(int lane) {
  // TODO(exercise 06.2): return the row and the first k. Registers a0..a3 of the fragment are the four matrices, in
  // order: which quarter of the 16 x 16 tile is each one?
  (void)lane;
  tc::exercise::todo("06.2", "06_ldmatrix_cp_async/exercises/ex2_ldmatrix_source.hpp", "06_ldmatrix_cp_async");
}

}  // namespace ex06_2
