// cuBLASLt as the second yardstick: the heuristic's first algorithm, and the fastest of its first eight.
//
// cublasGemmEx with CUBLAS_GEMM_DEFAULT (tc/cublas_reference.hpp) runs the first algorithm cuBLAS's heuristic picks,
// with its default workspace: what most callers get. cuBLASLt exposes the heuristic itself:
// cublasLtMatmulAlgoGetHeuristic returns up to N candidate algorithms for one problem, and a caller who times them
// keeps the fastest, which can beat the first pick by a few percent. A kernel claimed "at cuBLAS" is held to both,
// each named for what it is.
//
// CublasLtMatmul<TIn, TOut> is one problem's plan: the matmul and layout descriptors, a 64 MiB workspace passed both
// to the heuristic (CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES) and to every cublasLtMatmul call, and the candidates the
// heuristic returned (at most kLtCandidates). run(i, A, B, C) computes C = alpha * op(A) * op(B) + beta * C in place
// with candidate i. Shapes, layouts and leading dimensions as tc::GemmProblem (cuBLAS's: column-major, op N or T).
// Type pairs and compute types, as tc::cublas_gemm: __half or __nv_bfloat16 -> float, __nv_bfloat16 ->
// __nv_bfloat16 and float -> float (CUBLAS_COMPUTE_32F, or _32F_FAST_TF32 for CublasMath::Tf32), double -> double
// (_64F), int8_t -> int32_t (_32I, integer alpha and beta). Where cuBLASLt has no algorithm for the problem (an int8
// layout other than TN, leading dimensions it refuses, k = 0), algorithms() is 0 and refusal() says why.
// Errors: tc::CudaError for a failed CUDA or cuBLASLt call other than the heuristic's refusal; std::invalid_argument
// for bad sizes (tc::validate_gemm_arguments) and for non-integer scales of an int8 GEMM.
// Source: cuBLAS documentation, "cuBLASLt API Reference": cublasLtMatmul(), cublasLtMatmulAlgoGetHeuristic(),
// cublasLtMatmulPreferenceAttributes_t (CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES).
#pragma once

#include "tc/check.hpp"
#include "tc/cublas_check.hpp"
#include "tc/cublas_reference.hpp"  // tc::CublasMath
#include "tc/device_buffer.hpp"
#include "tc/gemm_check.hpp"        // tc::GemmProblem

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace tc {

// How many of the heuristic's candidates are timed, and the workspace they may use.
inline constexpr int kLtCandidates = 8;
inline constexpr std::size_t kLtWorkspaceBytes = std::size_t(64) << 20;

// A cuBLASLt handle and the workspace every plan made from it shares.
class CublasLtHandle {
 public:
  CublasLtHandle();
  CublasLtHandle(const CublasLtHandle&) = delete;
  CublasLtHandle& operator=(const CublasLtHandle&) = delete;
  ~CublasLtHandle();
  cublasLtHandle_t get() const { return handle_; }
  void* workspace() const { return workspace_.data(); }

 private:
  cublasLtHandle_t handle_{};
  mutable DeviceBuffer<unsigned char> workspace_;  // cuBLASLt's scratch, written by every call: no state of ours
};

// The heuristic's first kLtCandidates algorithms for one matmul (desc; A, B and C's layouts, D laid out as C), each
// allowed a kLtWorkspaceBytes workspace, best first. Where the heuristic refuses the problem (a status other than
// success, or no algorithm) the list is empty and `refusal` says why, in one line: a fact about the yardstick,
// reported beside the table, not an error of the run. Errors: tc::CudaError for a failed preference call.
// Source: cuBLAS documentation, "cublasLtMatmulAlgoGetHeuristic()", "cublasLtMatmulPreferenceAttributes_t".
std::vector<cublasLtMatmulHeuristicResult_t> lt_heuristic_candidates(const CublasLtHandle& handle,
                                                                     cublasLtMatmulDesc_t desc,
                                                                     cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                                                     cublasLtMatrixLayout_t c, std::string& refusal);

template <typename TIn, typename TOut>
class CublasLtMatmul {
 public:
  CublasLtMatmul(const CublasLtHandle& handle, const GemmProblem& p, CublasMath math = CublasMath::Accurate);
  CublasLtMatmul(const CublasLtMatmul&) = delete;
  CublasLtMatmul& operator=(const CublasLtMatmul&) = delete;
  ~CublasLtMatmul();

  int algorithms() const { return static_cast<int>(candidates_.size()); }
  const std::string& refusal() const { return refusal_; }
  // C = alpha * op(A) * op(B) + beta * C with candidate i (0 <= i < algorithms()), on the default stream.
  void run(int i, const TIn* A, const TIn* B, TOut* C) const;

 private:
  const CublasLtHandle& handle_;
  GemmProblem p_;
  cublasLtMatmulDesc_t desc_{};
  cublasLtMatrixLayout_t a_{}, b_{}, c_{};
  std::vector<cublasLtMatmulHeuristicResult_t> candidates_;
  std::string refusal_;
  // The scales in the compute type's scale type: float, double or int32 (cublasLtMatmul reads them through void*).
  float alpha_f_ = 0.0f, beta_f_ = 0.0f;
  double alpha_d_ = 0.0, beta_d_ = 0.0;
  int alpha_i_ = 0, beta_i_ = 0;
  const void* alpha_ = nullptr;
  const void* beta_ = nullptr;
};

// Whether CublasLtMatmul has the pair (TIn, TOut): the pairs listed above (u8 is timed as s8 on the same bytes by the
// driver, as for cublasGemmEx).
template <typename TIn, typename TOut>
inline constexpr bool kLtHasPair =
    (std::is_same_v<TOut, float> &&
     (std::is_same_v<TIn, __half> || std::is_same_v<TIn, __nv_bfloat16> || std::is_same_v<TIn, float>)) ||
    (std::is_same_v<TIn, __nv_bfloat16> && std::is_same_v<TOut, __nv_bfloat16>) ||
    (std::is_same_v<TIn, double> && std::is_same_v<TOut, double>) ||
    (std::is_same_v<TIn, std::int8_t> && std::is_same_v<TOut, std::int32_t>);

// What the yardstick measured on one problem (milliseconds; -1 where there is nothing to time).
struct LtYardstick {
  double first_ms = -1.0;  // the heuristic's first candidate
  double best_ms = -1.0;   // the fastest of the first kLtCandidates, timed again
  int best = -1;           // its place in the heuristic's order
  int candidates = 0;      // how many the heuristic returned
  std::string refusal;     // why there is none
};

}  // namespace tc
