#include "tc/cublas_reference.hpp"

#include "tc/device_buffer.hpp"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace tc {
namespace {

cublasOperation_t to_cublas(Op op) { return op == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; }

}  // namespace

template <typename TIn, typename TOut>
void cublas_gemm(const CublasHandle& handle, Op op_a, Op op_b, int m, int n, int k, double alpha, const TIn* A,
                 int lda, const TIn* B, int ldb, double beta, const TOut* C, int ldc, TOut* D, int ldd,
                 CublasMath math) {
  validate_gemm_arguments(op_a, op_b, m, n, k, lda, ldb, ldc, ldd);
  cudaStream_t stream = nullptr;
  TC_CHECK(cublasGetStream(handle.get(), &stream));
  // cuBLAS updates C in place; copy C into D first so that the inputs stay untouched.
  if (beta != 0.0 && D != C && m > 0 && n > 0) {
    TC_CHECK(cudaMemcpy2DAsync(D, sizeof(TOut) * ldd, C, sizeof(TOut) * ldc, sizeof(TOut) * m, n,
                               cudaMemcpyDeviceToDevice, stream));
  }
  // alpha/beta must have the scale type of the compute type: float for 32F, double for 64F, int32 for 32I.
  cublasComputeType_t compute;
  float alpha_f = static_cast<float>(alpha), beta_f = static_cast<float>(beta);
  std::int32_t alpha_i = static_cast<std::int32_t>(alpha), beta_i = static_cast<std::int32_t>(beta);
  const void* alpha_p = &alpha_f;
  const void* beta_p = &beta_f;
  if constexpr (std::is_same_v<TOut, double>) {
    compute = CUBLAS_COMPUTE_64F;
    alpha_p = &alpha;
    beta_p = &beta;
  } else if constexpr (std::is_same_v<TOut, std::int32_t>) {
    if (alpha != std::trunc(alpha) || beta != std::trunc(beta)) {
      throw std::invalid_argument("cublas_gemm: int8 GEMM needs integer alpha and beta");
    }
    compute = CUBLAS_COMPUTE_32I;
    alpha_p = &alpha_i;
    beta_p = &beta_i;
  } else {
    compute = (std::is_same_v<TIn, float> && math == CublasMath::Tf32) ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                        : CUBLAS_COMPUTE_32F;
  }
  TC_CHECK(cublasGemmEx(handle.get(), to_cublas(op_a), to_cublas(op_b), m, n, k, alpha_p, A, cuda_data_type<TIn>(),
                        lda, B, cuda_data_type<TIn>(), ldb, beta_p, D, cuda_data_type<TOut>(), ldd, compute,
                        CUBLAS_GEMM_DEFAULT));
}

namespace {

// Every element widened to double (exact for every type here), and the same with absolute values.
template <typename T>
std::vector<double> widen(const std::vector<T>& x, bool absolute) {
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = absolute ? std::fabs(to_double(x[i])) : to_double(x[i]);
  return out;
}

}  // namespace

template <typename TIn, typename TOut>
GemmReference fp64_reference_gemm(const CublasHandle& handle, Op op_a, Op op_b, int m, int n, int k, double alpha,
                                  const std::vector<TIn>& A, int lda, const std::vector<TIn>& B, int ldb, double beta,
                                  const std::vector<TOut>& C, int ldc) {
  const int ld = m > 1 ? m : 1;
  validate_gemm_arguments(op_a, op_b, m, n, k, lda, ldb, ldc, ld);
  GemmReference r;
  r.ld = ld;
  r.rounded = std::is_same_v<TIn, double>;
  const bool has_c = beta != 0.0 && !C.empty();
  DeviceBuffer<double> a(A.size()), b(B.size()), c(has_c ? C.size() : 0), d(static_cast<std::size_t>(ld) * n);
  for (const bool absolute : {false, true}) {
    a.upload(widen(A, absolute));
    b.upload(widen(B, absolute));
    if (has_c) c.upload(widen(C, absolute));
    // Poisoned, so an element DGEMM did not write would show as NaN in the reference and fail every comparison,
    // rather than pass as leftover memory.
    d.poison();
    cublas_gemm<double, double>(handle, op_a, op_b, m, n, k, absolute ? std::fabs(alpha) : alpha, a.data(), lda,
                                b.data(), ldb, has_c ? (absolute ? std::fabs(beta) : beta) : 0.0,
                                has_c ? c.data() : nullptr, ldc, d.data(), ld);
    std::vector<double>& out = absolute ? r.magnitude : r.value;
    out = d.download();
  }
  return r;
}

template void cublas_gemm<__half, float>(const CublasHandle&, Op, Op, int, int, int, double, const __half*, int,
    const __half*, int, double, const float*, int, float*, int, CublasMath);
template void cublas_gemm<__nv_bfloat16, float>(const CublasHandle &, Op, Op,
                                                int, int, int, double,
                                                const __nv_bfloat16 *, int,
                                                const __nv_bfloat16 *, int,
                                                double, const float *, int,
                                                float *, int, CublasMath);
template void cublas_gemm<__nv_bfloat16, __nv_bfloat16>(const CublasHandle&, Op, Op, int, int, int, double,
    const __nv_bfloat16*, int, const __nv_bfloat16*, int, double, const __nv_bfloat16*, int, __nv_bfloat16*, int,
    CublasMath);
template void cublas_gemm<float, float>(const CublasHandle&, Op, Op, int, int, int, double, const float*, int,
    const float*, int, double, const float*, int, float*, int, CublasMath);
template void cublas_gemm<double, double>(const CublasHandle&, Op, Op, int, int, int, double, const double*, int,
    const double*, int, double, const double*, int, double*, int, CublasMath);
template void cublas_gemm<std::int8_t, std::int32_t>(const CublasHandle&, Op, Op, int, int, int, double, const std::int8_t*, int,
    const std::int8_t*, int, double, const std::int32_t*, int, std::int32_t*, int, CublasMath);

template GemmReference fp64_reference_gemm<__half, float>(const CublasHandle&, Op, Op, int, int, int, double,
    const std::vector<__half>&, int, const std::vector<__half>&, int, double, const std::vector<float>&, int);
template GemmReference fp64_reference_gemm<__nv_bfloat16, float>(const CublasHandle&, Op, Op, int, int, int, double,
    const std::vector<__nv_bfloat16>&, int, const std::vector<__nv_bfloat16>&, int, double, const std::vector<float>&,
    int);
template GemmReference fp64_reference_gemm<__nv_bfloat16, __nv_bfloat16>(const CublasHandle&, Op, Op, int, int, int,
    double, const std::vector<__nv_bfloat16>&, int, const std::vector<__nv_bfloat16>&, int, double,
    const std::vector<__nv_bfloat16>&, int);
template GemmReference fp64_reference_gemm<__half, __half>(const CublasHandle&, Op, Op, int, int, int, double,
    const std::vector<__half>&, int, const std::vector<__half>&, int, double, const std::vector<__half>&, int);
template GemmReference fp64_reference_gemm<float, float>(const CublasHandle&, Op, Op, int, int, int, double,
    const std::vector<float>&, int, const std::vector<float>&, int, double, const std::vector<float>&, int);
template GemmReference fp64_reference_gemm<double, double>(const CublasHandle&, Op, Op, int, int, int, double,
    const std::vector<double>&, int, const std::vector<double>&, int, double, const std::vector<double>&, int);
template GemmReference fp64_reference_gemm<std::int8_t, std::int32_t>(const CublasHandle&, Op, Op, int, int, int,
    double, const std::vector<std::int8_t>&, int, const std::vector<std::int8_t>&, int, double,
    const std::vector<std::int32_t>&, int);
template GemmReference fp64_reference_gemm<std::uint8_t, std::int32_t>(const CublasHandle&, Op, Op, int, int, int,
    double, const std::vector<std::uint8_t>&, int, const std::vector<std::uint8_t>&, int, double,
    const std::vector<std::int32_t>&, int);

}  // namespace tc
