// cuBLAS as the GPU reference and the yardstick: D = alpha * op(A) * op(B) + beta * C with cublasGemmEx.
//
// Shapes, layouts and leading dimensions follow cuBLAS exactly (column-major; see reference.hpp for the rules). All
// pointers are device pointers. Unlike cuBLAS's in-place C, the result goes to D (D and C may be the same buffer);
// C is not read when beta == 0.
// Type pairs (input TIn, output TOut) and the cuBLAS compute type used:
//   __half -> float, __nv_bfloat16 -> float : CUBLAS_COMPUTE_32F      (fp32 accumulate, as the tensor-core kernels)
//   __nv_bfloat16 -> __nv_bfloat16          : CUBLAS_COMPUTE_32F      (fp32 accumulate, rounded once to bf16)
//   float  -> float                        : CUBLAS_COMPUTE_32F      (full fp32: pass tf32-rounded inputs to check a
//                                             tf32 kernel, or CublasMath::Tf32 for cuBLAS's own tf32 speed)
//   double -> double                       : CUBLAS_COMPUTE_64F
//   int8_t -> int32_t                      : CUBLAS_COMPUTE_32I      (alpha and beta must be integers)
// Preconditions: those of cublasGemmEx (for int8: lda, ldb multiples of 4 and 4-byte aligned pointers, per the cuBLAS
// documentation of cublasGemmEx). Errors: invalid sizes throw std::invalid_argument; cuBLAS and CUDA failures throw
// tc::CudaError. The call is asynchronous on the handle's stream.
// Source: cuBLAS documentation, "cublasGemmEx()" and "cublasComputeType_t".
#pragma once

#include "tc/check.hpp"
#include "tc/cublas_check.hpp"
#include "tc/reference.hpp"

#include <cublas_v2.h>

#include <cstdint>
#include <type_traits>
#include <vector>

namespace tc {

// RAII cuBLAS handle bound to a stream.
class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream = nullptr) {
    TC_CHECK(cublasCreate(&handle_));
    TC_CHECK(cublasSetStream(handle_, stream));
  }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  ~CublasHandle() { cublasDestroy(handle_); }  // a destructor must not throw
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_{};
};

enum class CublasMath { Accurate, Tf32 };  // Tf32 only changes the float -> float case

// cuBLAS's (and cuBLASLt's) name for each element type.
template <typename T>
constexpr cudaDataType_t cuda_data_type() {
  if constexpr (std::is_same_v<T, __half>) return CUDA_R_16F;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return CUDA_R_16BF;
  else if constexpr (std::is_same_v<T, float>) return CUDA_R_32F;
  else if constexpr (std::is_same_v<T, double>) return CUDA_R_64F;
  else if constexpr (std::is_same_v<T, std::int8_t>) return CUDA_R_8I;
  else {
    static_assert(std::is_same_v<T, std::int32_t>, "no cuBLAS data type for this element type");
    return CUDA_R_32I;
  }
}

template <typename TIn, typename TOut>
void cublas_gemm(const CublasHandle& handle, Op op_a, Op op_b, int m, int n, int k, double alpha, const TIn* A,
                 int lda, const TIn* B, int ldb, double beta, const TOut* C, int ldc, TOut* D, int ldd,
                 CublasMath math = CublasMath::Accurate);

// The reference for sizes where the CPU one (reference.hpp) is too slow: D = alpha * op(A) * op(B) + beta * C in fp64,
// from host arrays in cuBLAS layout (C may be empty when beta == 0), returned as a GemmReference with ld = max(1, m).
// Every input is widened exactly to double on the host and the product is one cuBLAS DGEMM, so it is a reference in
// fp64 whatever the kernel's precision, computed by nothing a kernel under test shares: for integer-valued inputs
// (s8, u8, or floats holding integers) every product and partial sum is an integer below 2^53 and the result is
// exact; for real inputs its error, at most k * 2^-53 * mag, is negligible beside any fp32 or fp16 bound. Only fp64
// inputs make it as rounded as the kernel under test (rounded = true, which tc::compare allows for).
// Its magnitude, |alpha| * |op(A)| * |op(B)| + |beta| * |C|, is a second DGEMM on the absolute values: every term is
// non-negative, so that call's own rounding is at most k * 2^-53 relative.
// tf32: pass tf32-rounded inputs (tc::round_to_tf32) to check a tf32 kernel.
// Device memory: A, B, C and the result as doubles, all at once. Errors: those of cublas_gemm, and tc::CudaError when
// device memory runs out.
template <typename TIn, typename TOut>
GemmReference fp64_reference_gemm(const CublasHandle& handle, Op op_a, Op op_b, int m, int n, int k, double alpha,
                                  const std::vector<TIn>& A, int lda, const std::vector<TIn>& B, int ldb, double beta,
                                  const std::vector<TOut>& C, int ldc);

}  // namespace tc
