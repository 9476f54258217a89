// Exercise 04.1 -- the shared-memory bank of a byte address. Hints: docs/04_int8_imma_shared.md, "Exercise 04.1".
// Check it with: ctest --preset workshop -R "exercise 04.1"
//
// Shared memory is 32 banks, each delivering one 4-byte word per cycle; consecutive words are in consecutive banks.
// Every bank-conflict count in chapter 04 starts from this function.
#pragma once

#include "tc_test/exercise.hpp"

#include <cstdint>

namespace ex04_1 {

// Returns the bank (0..31) that holds byte `byte_address` (>= 0, relative to a 128-byte-aligned base).
// Source: CUDA C++ Programming Guide, "Shared Memory" (compute capability 5.x and later: 32 banks of 32 bits).
inline int bank_of(std::int64_t byte_address) {
  // TODO(exercise 04.1): return the bank.
  (void)byte_address;
  tc::exercise::todo("04.1", "04_int8_imma_shared/exercises/ex1_bank.hpp", "04_int8_imma_shared");
}

}  // namespace ex04_1
