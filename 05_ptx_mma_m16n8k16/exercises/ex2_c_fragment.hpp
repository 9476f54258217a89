// Exercise 05.2 -- the lane formula of mma.sync.m16n8k16's accumulator (C and D) fragment. Hints:
// docs/05_ptx_mma_m16n8k16.md, "Exercise 05.2". Check it with: ctest --preset workshop -R "exercise 05.2"
//
// The 32 lanes hold the 16 x 8 (M x N) fp32 accumulator, 4 elements per lane (c0..c3, one register each). The
// epilogue of every mma.sync GEMM stores them with this formula. Write which element of C the lane's i-th element is.
#pragma once

#include "tc/layouts/lane_ids.hpp"  // tc::Coord, tc::kWarpSize
#include "tc_test/exercise.hpp"

namespace ex05_2 {

// Returns {row, col} = {m, n} of element i (0..3) of lane `lane` (0..31): 0 <= m < 16, 0 <= n < 8.
// Source: PTX ISA, section 9.7.14.5.8, figure "MMA .m16n8k16 fragment layout for accumulator matrix C/D".
inline tc::Coord c_coord(int lane, int i) {
  // TODO(exercise 05.2): return the coordinate (groupID and threadID_in_group again).
  (void)lane, (void)i;
  tc::exercise::todo("05.2", "05_ptx_mma_m16n8k16/exercises/ex2_c_fragment.hpp", "05_ptx_mma_m16n8k16");
}

}  // namespace ex05_2
