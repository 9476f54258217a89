// Error checks for the CUDA runtime: the project's one macro.
//
// TC_CHECK(expr) evaluates a call that returns cudaError_t. On anything but success it throws tc::CudaError whose
// what() is one line: "file:line: expr: <runtime's message> (<code name>)". The harness adds the cublasStatus_t
// overload (tc/cublas_check.hpp): only it calls cuBLAS, so only it links cuBLAS.
// tc::check_launch() does the same for the error state a kernel launch leaves behind (bad configuration, missing
// kernel image for this GPU); launches return nothing, so call it right after each one.
//
// Why throw rather than abort: tests assert on the failure, and main() turns it into exit code tc::kExitCudaError.
// Source: CUDA C++ Programming Guide, "Error Checking"; CUDA Runtime API, "Error Handling".
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace tc {

// A failed CUDA runtime call (or, through tc/cublas_check.hpp, a cuBLAS or cuBLASLt call). what() is a single line
// suitable for printing as is.
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
[[noreturn]] void throw_cuda_error(const char* file, int line, const char* expr, const std::string& message);

inline void check(cudaError_t status, const char* file, int line, const char* expr) {
  if (status != cudaSuccess) {
    throw_cuda_error(file, line, expr,
                     std::string(cudaGetErrorString(status)) + " (" + cudaGetErrorName(status) + ")");
  }
}
}  // namespace detail

// The one macro: it exists only to capture the call site (__FILE__, __LINE__) and the expression's text.
#define TC_CHECK(expr) ::tc::detail::check((expr), __FILE__, __LINE__, #expr)

// Throws tc::CudaError if the last kernel launch on this thread failed to start. Does not synchronize, so errors
// raised while the kernel runs surface at the next synchronizing call (which TC_CHECK also checks).
inline void check_launch(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  detail::check(cudaGetLastError(), file, line, "kernel launch");
}

}  // namespace tc
