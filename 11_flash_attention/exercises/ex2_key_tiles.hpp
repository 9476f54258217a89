// Exercise 11.2 -- which key tiles a row block loads, and which of them need the mask. Hints:
// docs/11_flash_attention.md, "Exercise 11.2". Check it with: ctest --preset workshop -R "exercise 11.2"
//
// A block owns query rows row0 .. row0 + rows - 1 of a sequence of sq queries and sk keys, and walks the keys in
// tiles of n. Query i may see key j when j < sk and, with the causal mask (aligned to the bottom right), when
// j <= i + sk - sq (attention::causal_visible). A kernel loads only the tiles some row can see, and masks (sets to
// -inf) only on the tiles where some row cannot see some key: everywhere else it skips the compares.
#pragma once

#include "tc_test/exercise.hpp"

namespace ex11_2 {

// How many key tiles (tiles 0, 1, ..., counted from key 0) rows row0 .. row0 + rows - 1 must load: the last one
// holds the last key any of these rows sees; 0 where none sees any. Rows past sq count as rows (their results are
// never stored). Preconditions: rows >= 1, n >= 1, sq >= 1, sk >= 1, row0 >= 0.
inline int key_tiles(int row0, int rows, int n, int sq, int sk, bool causal) {
  // TODO(exercise 11.2): the last key the block's most permissive row sees, then its tile.
  (void)row0, (void)rows, (void)n, (void)sq, (void)sk, (void)causal;
  tc::exercise::todo("11.2", "11_flash_attention/exercises/ex2_key_tiles.hpp", "11_flash_attention");
}

// Whether key tile key0 .. key0 + n - 1 holds a key that one of the rows row0 .. row0 + 63 may not see.
inline bool tile_needs_mask(int row0, int key0, int n, int sq, int sk, bool causal) {
  // TODO(exercise 11.2): which row is the most restricted, and which key of the tile the hardest to see?
  (void)row0, (void)key0, (void)n, (void)sq, (void)sk, (void)causal;
  tc::exercise::todo("11.2", "11_flash_attention/exercises/ex2_key_tiles.hpp", "11_flash_attention");
}

}  // namespace ex11_2
