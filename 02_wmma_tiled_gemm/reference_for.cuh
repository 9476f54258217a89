// How chapter 02 checks a kernel of precision P: which reference, built from which inputs, with which tolerance.
// main.cu and the tests both call these, so the binary and the test suite verify the same way.
//
// reference_for<P>: C = alpha * A * B + beta * C (column-major, host arrays, A m x k with lda, B k x n with ldb, C
// m x n with ldc; C is ignored when beta == 0) as the tensor cores compute it -- for tf32 on the inputs rounded with
// tc::round_to_tf32, since the kernel converts with __float_to_tf32. Up to kCpuReferenceMaxMacs multiply-adds the
// CPU reference in double (exact); above, cuBLAS with an error scale (tc::cublas_reference_gemm).
// tolerance_for<P>: exact for s8 and for integer-valued inputs (exact in fp32 and fp64); otherwise the K-scaled bound
// of the accumulator (tc/compare.hpp). Errors: those of the references (std::invalid_argument, tc::CudaError).
#pragma once

#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"
#include "tc/types.hpp"
#include "tc/wmma.cuh"

#include <type_traits>
#include <vector>

// Above this many multiply-adds the CPU reference (double, one core) takes seconds; cuBLAS takes over.
inline constexpr double kCpuReferenceMaxMacs = 1 << 27;

inline bool reference_on_cpu(int m, int n, int k) { return double(m) * n * k <= kCpuReferenceMaxMacs; }

template <typename P>
tc::GemmReference reference_for(const tc::CublasHandle& cublas, int m, int n, int k, double alpha,
                                std::vector<typename P::Input> a, int lda, std::vector<typename P::Input> b, int ldb,
                                double beta, const std::vector<typename P::Accumulator>& c, int ldc) {
  if constexpr (std::is_same_v<P, tc::WmmaTF32>) {
    for (float& x : a) x = tc::round_to_tf32(x);
    for (float& x : b) x = tc::round_to_tf32(x);
  }
  const std::vector<typename P::Accumulator> no_c;
  const auto& used_c = beta != 0.0 ? c : no_c;
  if (reference_on_cpu(m, n, k)) {
    return tc::reference_gemm(tc::Op::N, tc::Op::N, m, n, k, alpha, a, lda, b, ldb, beta, used_c, ldc);
  }
  return tc::cublas_reference_gemm<typename P::Input, typename P::Accumulator>(
      cublas, tc::Op::N, tc::Op::N, m, n, k, alpha, a, lda, b, ldb, beta, used_c, ldc);
}

template <typename P>
tc::Tolerance tolerance_for(tc::Fill fill) {
  using Acc = typename P::Accumulator;
  if (tc::ElementTraits<Acc>::is_integer || fill == tc::Fill::Integer) return tc::Tolerance::exact();
  if (std::is_same_v<Acc, double>) return tc::Tolerance::fp64_accumulate();
  return tc::Tolerance::fp32_accumulate<Acc>();
}
