// Chapter 11's exercise solutions: each exercise's function is the chapter's own code, built in place of the stubs
// with -DTC_EXERCISES=SOLUTIONS (README, "Workshop mode").
#pragma once

#include "problem.hpp"
#include "tile_math.cuh"

namespace ex11_1 {
// What every step's softmax_tile calls (tile_math.cuh).
using attention::RowUpdate;
inline RowUpdate online_row_update(float m, float tile_max, float scale_log2) {
  return attention::online_row_update(m, tile_max, scale_log2);
}
}  // namespace ex11_1

namespace ex11_2 {
// What every step's kernel uses (problem.hpp).
inline int key_tiles(int row0, int rows, int n, int sq, int sk, bool causal) {
  return attention::key_tiles(row0, rows, n, sq, sk, causal);
}
inline bool tile_needs_mask(int row0, int key0, int n, int sq, int sk, bool causal) {
  return attention::tile_needs_mask(row0, key0, n, sq, sk, causal);
}
}  // namespace ex11_2
