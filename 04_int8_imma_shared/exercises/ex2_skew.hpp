// Exercise 04.2 -- add the skew. Hints: docs/04_int8_imma_shared.md, "Exercise 04.2". Check it with:
// ctest --preset workshop -R "exercise 04.2"
//
// Chapter 04 stores each 64-byte K slice of a row of A (or a column of B) as one shared-memory line. Lines 64 bytes
// apart put the 16 rows of an 8-bit WMMA fragment load in only 8 of the 32 banks: a 4-way conflict. Padding every line
// with a skew of extra bytes moves consecutive lines to other banks.
#pragma once

#include "tc_test/exercise.hpp"

namespace ex04_2 {

inline constexpr int kLineDataBytes = 64;  // BlockK of int8 per line

// The skew in bytes: the smallest one that makes a 16 x 16 s8 fragment load (one LDSM.16.M88.2, whose 16 row
// addresses are the fragment's 16 lines, ld = kLineDataBytes + skew apart) conflict-free. It must keep every line
// start 16-byte aligned for cp.async and load_matrix_sync. Source: CUDA C++ Programming Guide, "Shared Memory" and
// "Warp Matrix Functions" (ldm a multiple of 16 bytes).
inline int skew_bytes() {
  // TODO(exercise 04.2): return the skew. The bank calculator (tc/layouts/smem_banks.hpp) can try candidates.
  tc::exercise::todo("04.2", "04_int8_imma_shared/exercises/ex2_skew.hpp", "04_int8_imma_shared");
}

}  // namespace ex04_2
