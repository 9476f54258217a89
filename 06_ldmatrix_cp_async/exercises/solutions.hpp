// Chapter 06's exercise solutions: each exercise's function is the chapter's own code, built in place of the stubs
// with -DTC_EXERCISES=SOLUTIONS (README, "Workshop mode").
#pragma once

#include "tc/layouts/ldmatrix.hpp"
#include "tc/layouts/smem_lines.hpp"

#include <cuda_fp16.h>

namespace ex06_1 {
inline constexpr int kLineBytes = 64;
inline constexpr int kChunkBytes = 16;
// Step 3's layout: tc::SmemLines<__half, 32, tc::Swizzled> (Step3Tile's lines).
inline int swizzled_chunk(int line, int chunk) { return tc::SmemLines<__half, 32, tc::Swizzled>::chunk(line, chunk); }
}  // namespace ex06_1

namespace ex06_2 {
inline tc::Coord a_source(int lane) { return tc::ldmatrix_x4_a_source(lane); }
}  // namespace ex06_2
