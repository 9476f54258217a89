// How a WMMA chapter checks a kernel of precision P: which reference, built from which inputs, with which tolerance.
// A chapter's main.cu and its tests both call these, so the binary and the test suite verify the same way.
//
// reference_for<P>: C = alpha * op(A) * op(B) + beta * C (host arrays in cuBLAS layout: column-major, op N or T, ld
// rules of tc/reference.hpp; C is ignored when beta == 0) as the tensor cores compute it -- for tf32 on the inputs
// rounded with tc::round_to_tf32, since the kernels convert with __float_to_tf32. Up to kCpuReferenceMaxMacs
// multiply-adds the CPU reference in double (exact); above, cuBLAS with the same transa/transb and an error scale
// (tc::cublas_reference_gemm; int8 there goes through exact fp64).
// tolerance_for<P>: exact for integer accumulators and for integer-valued inputs (exact in fp32 and fp64); otherwise
// the K-scaled bound of the accumulator (tc/compare.hpp).
// Errors: those of the references (std::invalid_argument for bad sizes, tc::CudaError).
// Source: cuBLAS documentation, "cublas<t>gemm()"; CUDA C++ Programming Guide, "Warp Matrix Functions" (tf32).
#pragma once

#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"
#include "tc/types.hpp"
#include "tc/wmma.cuh"

#include <type_traits>
#include <vector>

namespace tc {

// Above this many multiply-adds the CPU reference (double, one core) takes seconds; cuBLAS takes over.
inline constexpr double kCpuReferenceMaxMacs = 1 << 27;

inline bool reference_on_cpu(int m, int n, int k) { return double(m) * n * k <= kCpuReferenceMaxMacs; }

template <typename P>
GemmReference reference_for(const CublasHandle& cublas, Op op_a, Op op_b, int m, int n, int k, double alpha,
                            std::vector<typename P::Input> a, int lda, std::vector<typename P::Input> b, int ldb,
                            double beta, const std::vector<typename P::Accumulator>& c, int ldc) {
  if constexpr (std::is_same_v<P, WmmaTF32>) {
    for (float& x : a) x = round_to_tf32(x);
    for (float& x : b) x = round_to_tf32(x);
  }
  const std::vector<typename P::Accumulator> no_c;
  const auto& used_c = beta != 0.0 ? c : no_c;
  if (reference_on_cpu(m, n, k)) {
    return reference_gemm(op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, used_c, ldc);
  }
  return cublas_reference_gemm<typename P::Input, typename P::Accumulator>(cublas, op_a, op_b, m, n, k, alpha, a, lda,
                                                                           b, ldb, beta, used_c, ldc);
}

template <typename P>
Tolerance tolerance_for(Fill fill) {
  using Acc = typename P::Accumulator;
  if (ElementTraits<Acc>::is_integer || fill == Fill::Integer) return Tolerance::exact();
  if (std::is_same_v<Acc, double>) return Tolerance::fp64_accumulate();
  return Tolerance::fp32_accumulate<Acc>();
}

}  // namespace tc
