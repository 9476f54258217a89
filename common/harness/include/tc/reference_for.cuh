// The fp64 reference and the tolerance of tc/gemm_check.hpp seen through a WMMA precision P, for code that holds its
// own operands rather than the checks' (chapter 04's sweep and tests, chapter 02's exercises). The chapter binaries
// and most tests verify through tc/gemm_check.hpp directly.
//
// reference_for<P>: C = alpha * op(A) * op(B) + beta * C (host arrays in cuBLAS layout: column-major, op N or T, ld
// rules of tc/reference.hpp; C is ignored when beta == 0) as the tensor cores compute it -- for tf32 on the inputs
// rounded with tc::round_to_tf32, since the kernels convert with __float_to_tf32, in fp64 (tc::reference_in_fp64: the
// CPU, or one cuBLAS DGEMM for large problems; exact for integer-valued inputs).
// tolerance_for<P>: exact for integer accumulators and for integer-valued inputs (Fill::Integer, exact in fp32 and
// fp64); otherwise the K-scaled bound of the accumulator (tc/compare.hpp), which is what random real operands get.
// Errors: those of the references (std::invalid_argument for bad sizes, tc::CudaError).
// Source: cuBLAS documentation, "cublas<t>gemm()"; CUDA C++ Programming Guide, "Warp Matrix Functions" (tf32).
#pragma once

#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/gemm_check.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"
#include "tc/types.hpp"
#include "tc/wmma.cuh"

#include <type_traits>
#include <vector>

namespace tc {

template <typename P>
GemmReference reference_for(const CublasHandle& cublas, Op op_a, Op op_b, int m, int n, int k, double alpha,
                            std::vector<typename P::Input> a, int lda, std::vector<typename P::Input> b, int ldb,
                            double beta, const std::vector<typename P::Accumulator>& c, int ldc) {
  if constexpr (std::is_same_v<P, WmmaTF32>) {
    for (float& x : a) x = round_to_tf32(x);
    for (float& x : b) x = round_to_tf32(x);
  }
  return reference_in_fp64<typename P::Input, typename P::Accumulator>(
      cublas, GemmProblem{op_a, op_b, m, n, k, lda, ldb, ldc, alpha, beta}, a, b, c);
}

template <typename P>
Tolerance tolerance_for(Fill fill) {
  using Acc = typename P::Accumulator;
  if (ElementTraits<Acc>::is_integer || fill == Fill::Integer) return Tolerance::exact();
  if (std::is_same_v<Acc, double>) return Tolerance::fp64_accumulate();
  return Tolerance::fp32_accumulate<Acc>();
}

}  // namespace tc
