// cuBLASLt's fp8 GEMM as the yardstick of chapter 09: cublasGemmEx has no fp8 path, so cublasLtMatmul is timed on
// the same operands, its heuristic's first algorithm and the fastest of its first eight (tc/cublaslt_yardstick.hpp).
//
// CublasLtFp8Matmul<Fp8, Out> is one problem's plan: D = alpha * scale_a * scale_b * op(A) * op(B) + beta * C, e4m3
// or e5m2 A and B, fp32 accumulation (CUBLAS_COMPUTE_32F, scale type fp32), C and D of type Out (bf16 or fp32), in
// place on C. cuBLASLt's fp8 kernels take A transposed and B not ("TN"): A stored k x m column-major (that is,
// row-major m x k, K-major) with lda >= k, B stored k x n column-major (K-major) with ldb >= k, C m x n column-major with
// ldc >= m; the same bytes chapter 09's kernels read. scale_a and scale_b are fp32 scales in device memory
// (CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, _B_SCALE_POINTER), read when the GEMM runs: one per tensor
// (Fp8Scaling::PerTensor), or DeepSeek-V3's blocks (Fp8Scaling::Block: CUBLASLT_MATMUL_DESC_A_SCALE_MODE =
// CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F, one scale per row of A and 128 values of K, and _B_SCALE_MODE =
// CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F, one per 128 x 128 block of B), stored as tc/layouts/block_scale.hpp
// says with ld_sa = m and ld_sb = scale_groups(k), the dense layout cuBLASLt reads. Fp8Accumulation::Fast sets
// CUBLASLT_MATMUL_DESC_FAST_ACCUM: the kernels then accumulate in the tensor cores' fp8 accumulator for the whole K,
// without promotion to fp32 (faster, less precise: chapter 09, step 2). A 64 MiB workspace (kLtWorkspaceBytes) goes to
// the heuristic and to every call. Where cuBLASLt has no algorithm (a layout or leading dimension it refuses, k = 0),
// algorithms() is 0 and refusal() says why.
// Errors: tc::CudaError for a failed CUDA or cuBLASLt call other than the heuristic's refusal; std::invalid_argument
// for sizes or leading dimensions cuBLAS's rules reject, and for a candidate index out of range.
// Source: cuBLAS documentation, "cublasLtMatmul()" (the FP8 requirements: "TN" format, fp32 scale type),
// cublasLtMatmulDescAttributes_t (CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, _A_SCALE_MODE, CUBLASLT_MATMUL_DESC_FAST_ACCUM),
// cublasLtMatmulMatrixScale_t (cuBLAS 12.9 and later).
#pragma once

#include "tc/check.hpp"
#include "tc/cublas_check.hpp"
#include "tc/cublaslt_yardstick.hpp"  // CublasLtHandle, lt_heuristic_candidates, kLtWorkspaceBytes, LtYardstick
#include "tc/reference.hpp"           // validate_gemm_arguments

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tc {

enum class Fp8Scaling { PerTensor, Block };
enum class Fp8Accumulation { Exact, Fast };

template <typename Fp8, typename Out>
class CublasLtFp8Matmul {
  static_assert(std::is_same_v<Fp8, __nv_fp8_e4m3> || std::is_same_v<Fp8, __nv_fp8_e5m2>, "an fp8 input");
  static_assert(std::is_same_v<Out, __nv_bfloat16> || std::is_same_v<Out, float>, "bf16 or fp32 C and D");

 public:
  CublasLtFp8Matmul(const CublasLtHandle& handle, int m, int n, int k, int lda, int ldb, int ldc, float alpha,
                    float beta, const float* scale_a, const float* scale_b, Fp8Scaling scaling,
                    Fp8Accumulation accumulation)
      : handle_(handle), alpha_(alpha), beta_(beta) {
    validate_gemm_arguments(Op::T, Op::N, m, n, k, lda, ldb, ldc, ldc);
    TC_CHECK(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    TC_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    TC_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    TC_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_a, sizeof scale_a));
    TC_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_b, sizeof scale_b));
    if (scaling == Fp8Scaling::Block) {
      const cublasLtMatmulMatrixScale_t a_mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
      const cublasLtMatmulMatrixScale_t b_mode = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
      TC_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &a_mode, sizeof a_mode));
      TC_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &b_mode, sizeof b_mode));
    }
    const std::int8_t fast = accumulation == Fp8Accumulation::Fast ? 1 : 0;
    TC_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
    constexpr cudaDataType_t in = std::is_same_v<Fp8, __nv_fp8_e4m3> ? CUDA_R_8F_E4M3 : CUDA_R_8F_E5M2;
    constexpr cudaDataType_t out = std::is_same_v<Out, float> ? CUDA_R_32F : CUDA_R_16BF;
    TC_CHECK(cublasLtMatrixLayoutCreate(&a_, in, k, m, lda));  // stored k x m: op T gives m x k
    TC_CHECK(cublasLtMatrixLayoutCreate(&b_, in, k, n, ldb));
    TC_CHECK(cublasLtMatrixLayoutCreate(&c_, out, m, n, ldc));

    candidates_ = lt_heuristic_candidates(handle_, desc_, a_, b_, c_, refusal_);  // empty: refusal_ says why
  }
  CublasLtFp8Matmul(const CublasLtFp8Matmul&) = delete;
  CublasLtFp8Matmul& operator=(const CublasLtFp8Matmul&) = delete;
  ~CublasLtFp8Matmul() {
    cublasLtMatrixLayoutDestroy(c_);
    cublasLtMatrixLayoutDestroy(b_);
    cublasLtMatrixLayoutDestroy(a_);
    cublasLtMatmulDescDestroy(desc_);
  }

  int algorithms() const { return static_cast<int>(candidates_.size()); }
  const std::string& refusal() const { return refusal_; }
  // D = alpha * scale_a * scale_b * A * B + beta * C in place on C, with candidate i, on the default stream.
  void run(int i, const Fp8* A, const Fp8* B, Out* C) const {
    if (i < 0 || i >= algorithms())
      throw std::invalid_argument("cuBLASLt candidate " + std::to_string(i) + " of " + std::to_string(algorithms()));
    TC_CHECK(cublasLtMatmul(handle_.get(), desc_, &alpha_, A, a_, B, b_, &beta_, C, c_, C, c_, &candidates_[i].algo,
                            handle_.workspace(), kLtWorkspaceBytes, nullptr));
  }

 private:
  const CublasLtHandle& handle_;
  float alpha_, beta_;  // read by cublasLtMatmul through pointers: members, so that they outlive the call
  cublasLtMatmulDesc_t desc_{};
  cublasLtMatrixLayout_t a_{}, b_{}, c_{};
  std::vector<cublasLtMatmulHeuristicResult_t> candidates_;
  std::string refusal_;
};

// The yardstick on one plan: each candidate timed by `time` (a callable taking a callable and returning its median in
// milliseconds), the first's time kept, then the fastest timed again alone. Where there is no candidate, or
// cublasLtMatmul refuses one at run time, best_ms is -1 and refusal says why.
template <typename Plan, typename Time, typename TA, typename TB, typename TC>
LtYardstick time_lt_plan(const Plan& plan, Time&& time, const TA* a, const TB* b, TC* c) {
  LtYardstick y;
  y.candidates = plan.algorithms();
  y.refusal = plan.refusal();
  try {
    for (int i = 0; i < y.candidates; ++i) {
      const double ms = time([&] { plan.run(i, a, b, c); });
      if (i == 0) y.first_ms = ms;
      if (y.best < 0 || ms < y.best_ms) {
        y.best = i;
        y.best_ms = ms;
      }
    }
    // Timed again, alone, so that the winner's figure is one measurement rather than the luckiest of eight.
    if (y.best >= 0) y.best_ms = time([&] { plan.run(y.best, a, b, c); });
  } catch (const CudaError& e) {  // an algorithm the heuristic offered but cublasLtMatmul refused
    y = LtYardstick{};
    y.refusal = e.what();
  }
  return y;
}

}  // namespace tc
