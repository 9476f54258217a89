#include "tc/cublas_reference.hpp"

#include "tc/device_buffer.hpp"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace tc {
namespace {

// cuBLAS's name for each element type.
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

template <typename T>
std::vector<T> absolute_values(const std::vector<T>& x) {
  std::vector<T> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = from_double<T>(std::fabs(to_double(x[i])));  // exact
  return out;
}

template <typename T>
std::vector<double> download_as_double(const DeviceBuffer<T>& buffer) {
  const std::vector<T> host = buffer.download();
  std::vector<double> out(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) out[i] = to_double(host[i]);
  return out;
}

}  // namespace

template <typename TIn, typename TOut>
GemmReference cublas_reference_gemm(const CublasHandle& handle, Op op_a, Op op_b, int m, int n, int k, double alpha,
                                    const std::vector<TIn>& A, int lda, const std::vector<TIn>& B, int ldb,
                                    double beta, const std::vector<TOut>& C, int ldc) {
  const int ld = m > 1 ? m : 1;
  validate_gemm_arguments(op_a, op_b, m, n, k, lda, ldb, ldc, ld);
  GemmReference r;
  r.ld = ld;
  if constexpr (ElementTraits<TIn>::is_integer) {
    // Integer GEMM (s8 or u8) in fp64: every product and partial sum is an integer far below 2^53, so DGEMM is exact,
    // and it has none of cuBLAS's int8 restrictions (lda and ldb multiples of 4; no u8 x u8 at all), so any size the
    // kernels take can be checked.
    auto widen = [](const auto& x) { return std::vector<double>(x.begin(), x.end()); };
    r.value = cublas_reference_gemm<double, double>(handle, op_a, op_b, m, n, k, alpha, widen(A), lda, widen(B), ldb,
                                                    beta, widen(C), ldc).value;
    r.magnitude.assign(r.value.size(), 0.0);
    return r;
  } else {
    r.rounded = true;
    DeviceBuffer<TIn> a(A), b(B);
    DeviceBuffer<TOut> c(C), d(static_cast<std::size_t>(ld) * n);
    // Poisoned, so an element cuBLAS did not write would show as NaN (or 0x80808080) in the reference and fail every
    // comparison, rather than pass as leftover memory.
    d.poison();
    cublas_gemm<TIn, TOut>(handle, op_a, op_b, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta,
                           C.empty() ? nullptr : c.data(), ldc, d.data(), ld);
    r.value = download_as_double(d);
    a.upload(absolute_values(A));
    b.upload(absolute_values(B));
    if (!C.empty()) c.upload(absolute_values(C));
    cublas_gemm<TIn, TOut>(handle, op_a, op_b, m, n, k, std::fabs(alpha), a.data(), lda, b.data(), ldb, std::fabs(beta),
                           C.empty() ? nullptr : c.data(), ldc, d.data(), ld);
    r.magnitude = download_as_double(d);
    return r;
  }
}

template void cublas_gemm<__half, float>(const CublasHandle&, Op, Op, int, int, int, double, const __half*, int,
    const __half*, int, double, const float*, int, float*, int, CublasMath);
template void cublas_gemm<__nv_bfloat16, float>(const CublasHandle &, Op, Op,
                                                int, int, int, double,
                                                const __nv_bfloat16 *, int,
                                                const __nv_bfloat16 *, int,
                                                double, const float *, int,
                                                float *, int, CublasMath);
template void cublas_gemm<float, float>(const CublasHandle&, Op, Op, int, int, int, double, const float*, int,
    const float*, int, double, const float*, int, float*, int, CublasMath);
template void cublas_gemm<double, double>(const CublasHandle&, Op, Op, int, int, int, double, const double*, int,
    const double*, int, double, const double*, int, double*, int, CublasMath);
template void cublas_gemm<std::int8_t, std::int32_t>(const CublasHandle&, Op, Op, int, int, int, double, const std::int8_t*, int,
    const std::int8_t*, int, double, const std::int32_t*, int, std::int32_t*, int, CublasMath);

template GemmReference cublas_reference_gemm<__half, float>(const CublasHandle&, Op, Op, int, int, int, double,
    const std::vector<__half>&, int, const std::vector<__half>&, int, double, const std::vector<float>&, int);
template GemmReference cublas_reference_gemm<__nv_bfloat16, float>(const CublasHandle&, Op, Op, int, int, int, double,
    const std::vector<__nv_bfloat16>&, int, const std::vector<__nv_bfloat16>&, int, double, const std::vector<float>&, int);
template GemmReference cublas_reference_gemm<float, float>(const CublasHandle&, Op, Op, int, int, int, double,
    const std::vector<float>&, int, const std::vector<float>&, int, double, const std::vector<float>&, int);
template GemmReference cublas_reference_gemm<double, double>(const CublasHandle&, Op, Op, int, int, int, double,
    const std::vector<double>&, int, const std::vector<double>&, int, double, const std::vector<double>&, int);
template GemmReference cublas_reference_gemm<std::int8_t, std::int32_t>(const CublasHandle&, Op, Op, int, int, int, double,
    const std::vector<std::int8_t>&, int, const std::vector<std::int8_t>&, int, double, const std::vector<std::int32_t>&, int);
template GemmReference cublas_reference_gemm<std::uint8_t, std::int32_t>(const CublasHandle&, Op, Op, int, int, int, double,
    const std::vector<std::uint8_t>&, int, const std::vector<std::uint8_t>&, int, double, const std::vector<std::int32_t>&, int);

}  // namespace tc
