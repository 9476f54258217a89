// Chapter 03 -- row-major callers: C = op(A) * op(B) with every matrix row-major, on the column-major kernel.
//
// The identity: the bytes of a row-major r x c array are the column-major c x r array of its transpose. So a row-major
// C (m x n) is the column-major C^T (n x m), and C = op(A) * op(B) is C^T = op(B)^T * op(A)^T: a column-major GEMM of
// size n x m x k with the operands swapped. The ops do not change: a row-major A read column-major is A^T, which is
// what the swapped product needs for op N (op(A)^T = A^T), and likewise for T. Nothing is copied or transposed; the
// wrapper only renames arguments, which is why cuBLAS ships no row-major API and every row-major caller does this.
// Source: cuBLAS documentation, "Data Layout"; the identity (X * Y)^T = Y^T * X^T.
#pragma once

#include "wmma_transposed_gemm.cuh"

#include "tc/gemm_args.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

// [doc:row_major]
// The arguments of one GEMM call: op(A) m x k, op(B) k x n, C m x n, leading dimensions in elements.
template <typename TIn>
struct GemmCall {
  tc::Op op_a, op_b;
  int m, n, k;
  const TIn* A;
  int lda;
  const TIn* B;
  int ldb;
  int ldc;
};

// The column-major call that computes the row-major call `r`: C^T (n x m) = op(B)^T (n x k) * op(A)^T (k x m).
template <typename TIn>
constexpr GemmCall<TIn> row_major_as_column_major(const GemmCall<TIn>& r) {
  return {r.op_b, r.op_a, r.n, r.m, r.k, r.B, r.ldb, r.A, r.lda, r.ldc};
}
// [/doc:row_major]

// Throws std::invalid_argument (one line, in row-major terms) when a row-major call's sizes or leading dimensions are
// impossible: op(A) is m x k, stored row-major as m x k (op N, lda >= max(1, k)) or k x m (op T, lda >= max(1, m));
// op(B) likewise with ldb >= max(1, n) or max(1, k); C is m x n with ldc >= max(1, n). These are exactly the column-
// major rules of the swapped call, checked here first so that the message names the caller's own arguments.
inline void validate_row_major_gemm_arguments(tc::Op op_a, tc::Op op_b, int m, int n, int k, int lda, int ldb,
                                              int ldc) {
  if (m < 0 || n < 0 || k < 0) {
    throw std::invalid_argument("GEMM sizes must be >= 0, got m = " + std::to_string(m) + ", n = " +
                                std::to_string(n) + ", k = " + std::to_string(k));
  }
  auto check = [](const char* name, int ld, int minimum, const char* why) {
    if (ld < std::max(1, minimum)) {
      throw std::invalid_argument(std::string("row-major ") + name + " = " + std::to_string(ld) +
                                  " is too small: it must be >= max(1, " + why + ") = " +
                                  std::to_string(std::max(1, minimum)));
    }
  };
  check("lda", lda, op_a == tc::Op::N ? k : m, op_a == tc::Op::N ? "k" : "m");
  check("ldb", ldb, op_b == tc::Op::N ? n : k, op_b == tc::Op::N ? "n" : "k");
  check("ldc", ldc, n, "n");
}

// C = alpha * op(A) * op(B) + beta * C, every matrix row-major (C's row r starts at C + r * ldc), computed by the
// column-major launcher on the swapped call. P, units, preconditions and errors as launch_wmma_transposed_gemm, with
// the row-major leading-dimension rules above; columns n..ldc-1 of each row of C are never written.
template <typename P>
void launch_wmma_transposed_gemm_row_major(tc::Op transa, tc::Op transb, int m, int n, int k,
                                           typename P::Accumulator alpha, const typename P::Input* A, int lda,
                                           const typename P::Input* B, int ldb, typename P::Accumulator beta,
                                           typename P::Accumulator* C, int ldc, cudaStream_t stream = nullptr) {
  validate_row_major_gemm_arguments(transa, transb, m, n, k, lda, ldb, ldc);
  const GemmCall<typename P::Input> c = row_major_as_column_major(GemmCall<typename P::Input>{transa, transb, m, n, k,
                                                                                               A, lda, B, ldb, ldc});
  launch_wmma_transposed_gemm<P>(c.op_a, c.op_b, c.m, c.n, c.k, alpha, c.A, c.lda, c.B, c.ldb, beta, C, c.ldc, stream);
}
