// Exercise 11.1 -- one row's step of the online softmax. Hints: docs/11_flash_attention.md, "Exercise 11.1". Check it
// with: ctest --preset workshop -R "exercise 11.1"
//
// A row has seen some key tiles: it keeps m, the largest score so far in log2 units (raw score q . k times
// scale_log2 = log2(e) / sqrt(d)), with l = sum_j 2^(scale_log2 s_j - m) over the keys seen and O the same sum of
// 2^(...) v_j. A new tile arrives whose largest raw score is tile_max (-inf where every key of the tile is masked).
// The row then subtracts a new reference point from the tile's exponents, and the old l and O must be multiplied by
// one factor so that they are relative to it too. A row that has seen no visible key yet has m = -inf.
#pragma once

#include "tc_test/exercise.hpp"

namespace ex11_1 {

struct RowUpdate {
  float m;        // the new running max, log2 units
  float base;     // what the tile's exponents subtract: p_j = 2^(scale_log2 s_j - base)
  float rescale;  // what l and O are multiplied by
};

// Preconditions: scale_log2 > 0; m and tile_max finite or -inf. The result must never make a NaN: not in base or
// rescale, nor in the p_j = 2^(scale_log2 s_j - base) of a masked key (s_j = -inf).
inline RowUpdate online_row_update(float m, float tile_max, float scale_log2) {
  // TODO(exercise 11.1): the new max, the base (mind m' = -inf), and the factor for what was summed before.
  (void)m, (void)tile_max, (void)scale_log2;
  tc::exercise::todo("11.1", "11_flash_attention/exercises/ex1_online_softmax.hpp", "11_flash_attention");
}

}  // namespace ex11_1
