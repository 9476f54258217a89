// TC_CHECK for cuBLAS and cuBLASLt calls: the cublasStatus_t overload of tc::detail::check.
//
// TC_CHECK (tc/check.hpp, in the ptx layer) checks the CUDA runtime's cudaError_t. The kernels' layers never call
// cuBLAS, so they do not link it; the harness does (its references and yardsticks), and this header adds the overload
// its calls need. TC_CHECK(expr) on a cublasStatus_t then throws tc::CudaError with the one-line message
// "file:line: expr: <cuBLAS's message> (<status name>)". cuBLASLt returns the same cublasStatus_t.
// Without this header, TC_CHECK on a cublasStatus_t does not compile: the enum converts to no cudaError_t.
// Source: cuBLAS documentation, "cublasStatus_t", "cublasGetStatusString()", "cublasGetStatusName()".
#pragma once

#include "tc/check.hpp"

#include <cublas_v2.h>

#include <string>

namespace tc::detail {

inline void check(cublasStatus_t status, const char* file, int line, const char* expr) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw_cuda_error(file, line, expr,
                     std::string(cublasGetStatusString(status)) + " (" + cublasGetStatusName(status) + ")");
  }
}

}  // namespace tc::detail
