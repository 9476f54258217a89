// Exercise 03.2 -- count the 32-byte sectors one warp-wide load touches. Hints: docs/03_transpose_layouts.md,
// "Exercise 03.2". Check it with: ctest --preset workshop -R "exercise 03.2"
//
// A load instruction of a warp is served in 32-byte sectors: the fewer distinct sectors its 32 lanes touch, the less
// memory traffic it costs. Chapter 03's load traces count them for every layout; write the count.
#pragma once

#include "wmma_loads.hpp"  // WarpRequest, LaneRead, kSectorBytes
#include "tc_test/exercise.hpp"

namespace ex03_2 {

// The distinct 32-byte sectors a request touches. Lane l reads request[l].bytes bytes starting at element
// request[l].element of line request[l].line; lines are ld elements apart, elements element_bytes wide, and the tile
// starts at byte 0 (sector-aligned). Source: CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory".
inline int sectors_touched(const WarpRequest& request, int ld, int element_bytes) {
  // TODO(exercise 03.2): return the count. A lane's bytes may straddle two sectors.
  (void)request, (void)ld, (void)element_bytes;
  tc::exercise::todo("03.2", "03_transpose_layouts/exercises/ex2_sectors.hpp", "03_transpose_layouts");
}

}  // namespace ex03_2
