// cuBLAS's grouped GEMM, as the yardstick of a grouped kernel (chapter 10's mixture-of-experts step): one call of
// cublasGemmGroupedBatchedEx that computes C_g = alpha * op(A_g) * op(B_g) + beta * C_g for every group g, each group
// its own m_g x n_g x k_g problem with its own pointers and leading dimensions (one problem a group: group_size 1).
//
// Shapes, layouts and leading dimensions follow cuBLAS (column-major; reference.hpp's rules), all pointers device
// pointers, one op(A) and op(B) for every group. Types: __half or __nv_bfloat16 in and out, fp32 compute
// (CUBLAS_COMPUTE_32F), alpha and beta fp32 on the host. A group with m_g = 0 or n_g = 0 writes nothing and is left
// out of the call; one with k_g = 0 is kept (C_g = beta C_g). The pointer arrays are made on the device once, at
// construction, so run() only enqueues the call: that is what a timing of it measures.
// Errors: std::invalid_argument for a problem whose sizes or leading dimensions cuBLAS would refuse; tc::CudaError
// from CUDA and cuBLAS. Source: cuBLAS documentation, "cublasGemmGroupedBatchedEx()".
#pragma once

#include "tc/check.hpp"
#include "tc/cublas_check.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_args.hpp"
#include "tc/reference.hpp"

#include <cublas_v2.h>

#include <cstddef>
#include <type_traits>
#include <vector>

namespace tc {

template <typename T>
class CublasGroupedGemm {
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, "16-bit inputs and outputs");

 public:
  struct Problem {
    int m = 0, n = 0, k = 0;
    const T* A = nullptr;
    int lda = 1;
    const T* B = nullptr;
    int ldb = 1;
    T* C = nullptr;
    int ldc = 1;
  };

  CublasGroupedGemm(const CublasHandle& handle, Op op_a, Op op_b, const std::vector<Problem>& problems, float alpha,
                    float beta)
      : handle_(handle) {
    std::vector<const void*> a, b;
    std::vector<void*> c;
    for (const Problem& p : problems) {
      validate_gemm_arguments(op_a, op_b, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.ldc);
      if (p.m == 0 || p.n == 0) continue;  // nothing to write
      trans_a_.push_back(op_a == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T);
      trans_b_.push_back(op_b == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T);
      m_.push_back(p.m), n_.push_back(p.n), k_.push_back(p.k);
      lda_.push_back(p.lda), ldb_.push_back(p.ldb), ldc_.push_back(p.ldc);
      alpha_.push_back(alpha), beta_.push_back(beta);
      a.push_back(p.A), b.push_back(p.B), c.push_back(p.C);
    }
    size_.assign(m_.size(), 1);
    if (!m_.empty()) a_ = DeviceBuffer<const void*>(a), b_ = DeviceBuffer<const void*>(b), c_ = DeviceBuffer<void*>(c);
  }

  // The groups the call computes (those with m_g, n_g > 0).
  int groups() const { return int(m_.size()); }

  // Enqueues the grouped GEMM on the handle's stream.
  void run() const {
    if (m_.empty()) return;
    TC_CHECK(cublasGemmGroupedBatchedEx(handle_.get(), trans_a_.data(), trans_b_.data(), m_.data(), n_.data(),
                                        k_.data(), alpha_.data(), a_.data(), cuda_data_type<T>(), lda_.data(),
                                        b_.data(), cuda_data_type<T>(), ldb_.data(), beta_.data(), c_.data(),
                                        cuda_data_type<T>(), ldc_.data(), groups(), size_.data(),
                                        CUBLAS_COMPUTE_32F));
  }

 private:
  const CublasHandle& handle_;
  std::vector<cublasOperation_t> trans_a_, trans_b_;
  std::vector<int> m_, n_, k_, lda_, ldb_, ldc_, size_;
  std::vector<float> alpha_, beta_;  // host arrays, one a group: the handle's pointer mode is host
  DeviceBuffer<const void*> a_, b_;
  DeviceBuffer<void*> c_;
};

}  // namespace tc
