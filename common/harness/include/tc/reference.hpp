// CPU reference GEMM: D = alpha * op(A) * op(B) + beta * C, in double precision, with cuBLAS's conventions.
//
// Shapes and layouts (all column-major, as in cuBLAS; a row-major matrix is the transposed column-major one):
//   op(A) is m x k: A is stored m x k with lda >= max(1, m) for Op::N, k x m with lda >= max(1, k) for Op::T.
//   op(B) is k x n: B is stored k x n with ldb >= max(1, k) for Op::N, n x k with ldb >= max(1, n) for Op::T.
//   C and D are m x n with ldc, ldd >= max(1, m). C is not read when beta == 0 (it may then be nullptr).
// Units: elements. Every input is converted exactly to double and every product and sum is formed in double, so the
// result is the exact answer for the inputs as stored, up to double rounding (exact for integer inputs while
// |sums| < 2^53).
// `magnitude`, if not null, receives |alpha| * sum_l |op(A)_il| * |op(B)_lj| + |beta| * |C_ij| per element: the scale
// against which tc::compare measures rounding error (see compare.hpp).
// Errors: negative sizes or a too-small leading dimension throw std::invalid_argument (one line, naming the value).
// Source: cuBLAS documentation, "cublas<t>gemm()" (the same argument rules).
#pragma once

#include "tc/gemm_args.hpp"
#include "tc/types.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tc {

// A reference result and its error scale, as compare() takes them: value and magnitude are m x n, column-major with
// leading dimension ld. `rounded` says the value itself carries rounding error (a cuBLAS reference in fp32), which
// compare() then allows for; the CPU reference in double is exact for every input type here.
struct GemmReference {
  std::vector<double> value;
  std::vector<double> magnitude;
  int ld = 1;
  bool rounded = false;
};

template <typename TA, typename TB, typename TC>
void reference_gemm(Op op_a, Op op_b, int m, int n, int k, double alpha, const TA* A, int lda, const TB* B, int ldb,
                    double beta, const TC* C, int ldc, double* D, int ldd, double* magnitude = nullptr) {
  validate_gemm_arguments(op_a, op_b, m, n, k, lda, ldb, ldc, ldd);
  auto a = [&](int i, int l) { return to_double(op_a == Op::N ? A[i + static_cast<long>(l) * lda]
                                                               : A[l + static_cast<long>(i) * lda]); };
  auto b = [&](int l, int j) { return to_double(op_b == Op::N ? B[l + static_cast<long>(j) * ldb]
                                                               : B[j + static_cast<long>(l) * ldb]); };
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double sum = 0.0;
      double abs_sum = 0.0;
      for (int l = 0; l < k; ++l) {
        const double p = a(i, l) * b(l, j);
        sum += p;
        abs_sum += std::fabs(p);
      }
      const double c = beta != 0.0 ? to_double(C[i + static_cast<long>(j) * ldc]) : 0.0;
      D[i + static_cast<long>(j) * ldd] = alpha * sum + beta * c;
      if (magnitude != nullptr) {
        magnitude[i + static_cast<long>(j) * ldd] = std::fabs(alpha) * abs_sum + std::fabs(beta) * std::fabs(c);
      }
    }
  }
}

// The CPU reference as a GemmReference (ld = max(1, m)); C may be empty when beta == 0.
template <typename TA, typename TB, typename TC>
GemmReference reference_gemm(Op op_a, Op op_b, int m, int n, int k, double alpha, const std::vector<TA>& A, int lda,
                             const std::vector<TB>& B, int ldb, double beta, const std::vector<TC>& C, int ldc) {
  GemmReference r;
  r.ld = m > 1 ? m : 1;
  r.value.resize(static_cast<std::size_t>(r.ld) * n);
  r.magnitude.resize(r.value.size());
  reference_gemm(op_a, op_b, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.empty() ? nullptr : C.data(), ldc,
                 r.value.data(), r.ld, r.magnitude.data());
  return r;
}

}  // namespace tc
