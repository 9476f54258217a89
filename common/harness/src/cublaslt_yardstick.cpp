#include "tc/cublaslt_yardstick.hpp"

#include "tc/reference.hpp"  // validate_gemm_arguments

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace tc {

CublasLtHandle::CublasLtHandle() : workspace_(kLtWorkspaceBytes) { TC_CHECK(cublasLtCreate(&handle_)); }

CublasLtHandle::~CublasLtHandle() { cublasLtDestroy(handle_); }  // a destructor must not throw

std::vector<cublasLtMatmulHeuristicResult_t> lt_heuristic_candidates(const CublasLtHandle& handle,
                                                                     cublasLtMatmulDesc_t desc,
                                                                     cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                                                     cublasLtMatrixLayout_t c, std::string& refusal) {
  cublasLtMatmulPreference_t preference{};
  TC_CHECK(cublasLtMatmulPreferenceCreate(&preference));
  const std::size_t workspace = kLtWorkspaceBytes;
  const cublasStatus_t set = cublasLtMatmulPreferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
  if (set != CUBLAS_STATUS_SUCCESS) {
    cublasLtMatmulPreferenceDestroy(preference);
    TC_CHECK(set);
  }
  std::vector<cublasLtMatmulHeuristicResult_t> candidates(kLtCandidates);
  int returned = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(handle.get(), desc, a, b, c, c, preference,
                                                               kLtCandidates, candidates.data(), &returned);
  cublasLtMatmulPreferenceDestroy(preference);
  // cuBLASLt has no kernel for some problems (CUBLAS_STATUS_NOT_SUPPORTED, or no result).
  if (status != CUBLAS_STATUS_SUCCESS || returned == 0) {
    refusal = status != CUBLAS_STATUS_SUCCESS
                  ? std::string("cublasLtMatmulAlgoGetHeuristic: ") + cublasGetStatusName(status)
                  : "cublasLtMatmulAlgoGetHeuristic returned no algorithm";
    returned = 0;
  }
  candidates.resize(returned);
  return candidates;
}

template <typename TIn, typename TOut>
CublasLtMatmul<TIn, TOut>::CublasLtMatmul(const CublasLtHandle& handle, const GemmProblem& p, CublasMath math)
    : handle_(handle), p_(p) {
  validate_gemm_arguments(p.op_a, p.op_b, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.ldc);
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  cudaDataType_t scale = CUDA_R_32F;
  alpha_f_ = static_cast<float>(p.alpha);
  beta_f_ = static_cast<float>(p.beta);
  alpha_ = &alpha_f_;
  beta_ = &beta_f_;
  if constexpr (std::is_same_v<TOut, double>) {
    compute = CUBLAS_COMPUTE_64F;
    scale = CUDA_R_64F;
    alpha_d_ = p.alpha;
    beta_d_ = p.beta;
    alpha_ = &alpha_d_;
    beta_ = &beta_d_;
  } else if constexpr (std::is_same_v<TOut, std::int32_t>) {
    if (p.alpha != std::trunc(p.alpha) || p.beta != std::trunc(p.beta))
      throw std::invalid_argument("cuBLASLt int8 GEMM needs integer alpha and beta");
    compute = CUBLAS_COMPUTE_32I;
    scale = CUDA_R_32I;
    alpha_i_ = static_cast<int>(p.alpha);
    beta_i_ = static_cast<int>(p.beta);
    alpha_ = &alpha_i_;
    beta_ = &beta_i_;
  } else if (std::is_same_v<TIn, float> && math == CublasMath::Tf32) {
    compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  }
  TC_CHECK(cublasLtMatmulDescCreate(&desc_, compute, scale));
  const cublasOperation_t ta = p.op_a == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t tb = p.op_b == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T;
  TC_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  TC_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  // The stored matrices: A is m x k (op N) or k x m (op T), column-major with leading dimension lda; likewise B.
  const bool an = p.op_a == Op::N, bn = p.op_b == Op::N;
  TC_CHECK(cublasLtMatrixLayoutCreate(&a_, cuda_data_type<TIn>(), an ? p.m : p.k, an ? p.k : p.m, p.lda));
  TC_CHECK(cublasLtMatrixLayoutCreate(&b_, cuda_data_type<TIn>(), bn ? p.k : p.n, bn ? p.n : p.k, p.ldb));
  TC_CHECK(cublasLtMatrixLayoutCreate(&c_, cuda_data_type<TOut>(), p.m, p.n, p.ldc));

  candidates_ = lt_heuristic_candidates(handle_, desc_, a_, b_, c_, refusal_);
}

template <typename TIn, typename TOut>
CublasLtMatmul<TIn, TOut>::~CublasLtMatmul() {
  cublasLtMatrixLayoutDestroy(c_);
  cublasLtMatrixLayoutDestroy(b_);
  cublasLtMatrixLayoutDestroy(a_);
  cublasLtMatmulDescDestroy(desc_);
}

template <typename TIn, typename TOut>
void CublasLtMatmul<TIn, TOut>::run(int i, const TIn* A, const TIn* B, TOut* C) const {
  if (i < 0 || i >= algorithms()) throw std::invalid_argument("cuBLASLt candidate " + std::to_string(i) + " of " +
                                                             std::to_string(algorithms()));
  const cublasLtMatmulHeuristicResult_t& r = candidates_[i];
  TC_CHECK(cublasLtMatmul(handle_.get(), desc_, alpha_, A, a_, B, b_, beta_, C, c_, C, c_, &r.algo,
                          handle_.workspace(), kLtWorkspaceBytes, nullptr));
}

template class CublasLtMatmul<__half, float>;
template class CublasLtMatmul<__nv_bfloat16, float>;
template class CublasLtMatmul<__nv_bfloat16, __nv_bfloat16>;
template class CublasLtMatmul<float, float>;
template class CublasLtMatmul<double, double>;
template class CublasLtMatmul<std::int8_t, std::int32_t>;

}  // namespace tc
