// Chapter 05's exercise solutions: each exercise's function is the chapter's own code, built in place of the stubs
// with -DTC_EXERCISES=SOLUTIONS (README, "Workshop mode").
#pragma once

#include "tc/layouts/mma_m16n8k16.hpp"

namespace ex05_1 {
inline tc::Coord b_coord(int lane, int i) { return tc::mma_m16n8k16_b_coord(lane, i); }
}  // namespace ex05_1

namespace ex05_2 {
inline tc::Coord c_coord(int lane, int i) { return tc::mma_m16n8k16_c_coord(lane, i); }
}  // namespace ex05_2
