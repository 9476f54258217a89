// Chapter 01's exercise solutions: each exercise's function is the chapter's own code, built in place of the stubs
// with -DTC_EXERCISES=SOLUTIONS (README, "Workshop mode").
#pragma once

#include "wmma_single_tile.cuh"

#include "wmma_rules.hpp"

#include <cstddef>
#include <cstdint>

namespace ex01_1 {
template <typename LayoutA, typename LayoutB>
void launch_single_tile(const __half* A, int lda, const __half* B, int ldb, const float* C, int ldc, float* D,
                        int ldd) {
  launch_wmma_single_tile<Shape16x16x16, LayoutA, LayoutB>(16, 16, 16, A, lda, B, ldb, C, ldc, D, ldd);
}
}  // namespace ex01_1

namespace ex01_2 {
inline bool wmma_operand_ok(std::uintptr_t address, int ld, std::size_t element_bytes) {
  return !tc::wmma_operand_problem(reinterpret_cast<const void*>(address), ld, element_bytes, "operand");
}
}  // namespace ex01_2
