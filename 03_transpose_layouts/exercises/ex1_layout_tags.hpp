// Exercise 03.1 -- choose the layout tags for op(A) * op(B). Hints: docs/03_transpose_layouts.md, "Exercise 03.1".
// Check it with: ctest --preset workshop -R "exercise 03.1"
//
// cuBLAS stores A and B column-major and takes transa, transb: C = op(A) * op(B), where op(A) is m x k and is A
// itself (Op::N, A stored m x k) or A^T (Op::T, A stored k x m). Chapter 03 never copies a transposed matrix: it
// reads the same bytes through another layout tag (tc/layouts/tags.hpp). Choose the tags.
#pragma once

#include "tc/layouts/tags.hpp"
#include "tc/reference.hpp"  // tc::Op
#include "tc_test/exercise.hpp"

#include <cstddef>
#include <type_traits>  // std::conditional_t, for the answer

namespace ex03_1 {

// A placeholder tag: reading through it reports the exercise as not done.
struct Todo {
  static std::size_t offset(int, int, int) {
    tc::exercise::todo("03.1", "03_transpose_layouts/exercises/ex1_layout_tags.hpp", "03_transpose_layouts");
  }
};

// A: the tag through which element (row, col) of the m x k operand op(A) is found in A's column-major storage
// (leading dimension lda); B: the same for the k x n operand op(B) in B's storage (ldb).
// Source: cuBLAS documentation, "cublas<t>gemm()" (transa, transb) and "Data Layout".
template <tc::Op TransA, tc::Op TransB>
struct OperandLayouts {
  // TODO(exercise 03.1): replace Todo by tc::RowMajor or tc::ColMajor, depending on TransA and TransB
  // (std::conditional_t from <type_traits> chooses a type at compile time).
  using A = Todo;
  using B = Todo;
};

}  // namespace ex03_1
