// Exercise 05.1 -- the lane formula of mma.sync.m16n8k16's B fragment. Hints: docs/05_ptx_mma_m16n8k16.md,
// "Exercise 05.1". Check it with: ctest --preset workshop -R "exercise 05.1"
//
// The 32 lanes of a warp together hold the 16 x 8 (K x N) B operand of one m16n8k16 mma.sync, 4 fp16 elements per
// lane (b0..b3, two per 32-bit register). Write which element of B the lane's i-th element is.
#pragma once

#include "tc/layouts/lane_ids.hpp"  // tc::Coord, tc::kWarpSize
#include "tc_test/exercise.hpp"

namespace ex05_1 {

// Returns {row, col} = {k, n} of element i (0..3) of lane `lane` (0..31): 0 <= k < 16, 0 <= n < 8.
// Source: PTX ISA, section 9.7.14.5.8, figure "MMA .m16n8k16 fragment layout for matrix B with .f16/.bf16 type".
inline tc::Coord b_coord(int lane, int i) {
  // TODO(exercise 05.1): return the coordinate. The ISA names two parts of a lane id: groupID = lane >> 2 and
  // threadID_in_group = lane % 4 (tc/layouts/lane_ids.hpp has both).
  (void)lane, (void)i;
  tc::exercise::todo("05.1", "05_ptx_mma_m16n8k16/exercises/ex1_b_fragment.hpp", "05_ptx_mma_m16n8k16");
}

}  // namespace ex05_1
