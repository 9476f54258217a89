// The arguments of a GEMM, as cuBLAS names and checks them: the sizes, the ops and the leading dimensions. Every
// launcher, reference and check in the tutorial takes its arguments through this one header, so the rule and its
// message are written once.
//
// C = alpha * op(A) * op(B) + beta * C, all matrices column-major as in cuBLAS (a row-major matrix is the transposed
// column-major one):
//   op(A) is m x k: A is stored m x k with lda >= max(1, m) for Op::N, k x m with lda >= max(1, k) for Op::T.
//   op(B) is k x n: B is stored k x n with ldb >= max(1, k) for Op::N, n x k with ldb >= max(1, n) for Op::T.
//   C (and a separate output D) is m x n with ldc (ldd) >= max(1, m).
// Units: elements. Sizes may be 0 (an empty product), never negative.
// Source: cuBLAS documentation, "cublas<t>gemm()" (the argument rules and CUBLAS_OP_N / CUBLAS_OP_T).
#pragma once

#include "tc/layouts/tags.hpp"

#include <type_traits>

namespace tc {

enum class Op { N, T };  // cuBLAS's CUBLAS_OP_N and CUBLAS_OP_T

inline const char* op_name(Op op) { return op == Op::N ? "N" : "T"; }

// The op under which a matrix stored with layout tag Layout reads as itself in cuBLAS's column-major terms: a
// column-major matrix is op N; a row-major R x C matrix is the column-major C x R matrix transposed, op T.
template <typename Layout>
constexpr Op op_of() {
  return std::is_same_v<Layout, RowMajor> ? Op::T : Op::N;
}

// One GEMM problem size: C is m x n, the inner dimension k. Units: elements.
struct GemmShape {
  int m = 0;
  int n = 0;
  int k = 0;
  bool operator==(const GemmShape& o) const { return m == o.m && n == o.n && k == o.k; }
};

// Throws std::invalid_argument (one line, naming the value and the rule) if (m, n, k) is negative or a leading
// dimension is below the minimum above. The CPU and cuBLAS references and tc::launch_gemm_any_size call it.
void validate_gemm_arguments(Op op_a, Op op_b, int m, int n, int k, int lda, int ldb, int ldc, int ldd);

}  // namespace tc
