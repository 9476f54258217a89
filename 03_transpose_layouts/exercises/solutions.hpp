// Chapter 03's exercise solutions: each exercise's answer is the chapter's own code, built in place of the stubs with
// -DTC_EXERCISES=SOLUTIONS (README, "Workshop mode").
#pragma once

#include "tc/layouts/tags.hpp"
#include "wmma_loads.hpp"
#include "tc/reference.hpp"

#include <type_traits>

namespace ex03_1 {
// As launch_wmma_transposed_gemm(transa, transb, ...) picks them (wmma_transposed_gemm.cuh): op = T reads the
// column-major storage through its transposed tag.
template <tc::Op TransA, tc::Op TransB>
struct OperandLayouts {
  using A = std::conditional_t<TransA == tc::Op::T, tc::transposed_t<tc::ColMajor>, tc::ColMajor>;
  using B = std::conditional_t<TransB == tc::Op::T, tc::transposed_t<tc::ColMajor>, tc::ColMajor>;
};
}  // namespace ex03_1

namespace ex03_2 {
inline int sectors_touched(const WarpRequest& request, int ld, int element_bytes) {
  return request_cost(request, ld, element_bytes).sectors;
}
}  // namespace ex03_2
