// Exercise 01.2 -- the memory rules of load_matrix_sync and store_matrix_sync. Hints: docs/01_wmma_single_tile.md,
// "Exercise 01.2". Check it with: ctest --preset workshop -R "exercise 01.2"
//
// WMMA loads and stores are undefined when a pointer or a leading dimension breaks the Programming Guide's rules,
// which is why every launcher in this tutorial checks them on the host first. Write the check.
#pragma once

#include "tc_test/exercise.hpp"

#include <cstddef>
#include <cstdint>

namespace ex01_2 {

// True when `address` (a device address, in bytes) and `ld` (in elements of element_bytes bytes: 1, 2, 4 or 8) may
// be given to load_matrix_sync / store_matrix_sync. Source: CUDA C++ Programming Guide, "Warp Matrix Functions"
// (the descriptions of mptr and ldm).
inline bool wmma_operand_ok(std::uintptr_t address, int ld, std::size_t element_bytes) {
  // TODO(exercise 01.2): return whether both rules hold.
  (void)address, (void)ld, (void)element_bytes;
  tc::exercise::todo("01.2", "01_wmma_single_tile/exercises/ex2_wmma_rules.hpp", "01_wmma_single_tile");
}

}  // namespace ex01_2
