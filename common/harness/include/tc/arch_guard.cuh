// The wrong-architecture guard: does this binary hold code the GPU in front of it can run?
//
// A CUDA binary carries SASS for the architectures it was built for (CMAKE_CUDA_ARCHITECTURES "80-real", "90", ...)
// and PTX for those built as virtual ones ("90" gives both sm_90 SASS and compute_90 PTX). SASS runs only on its own
// major version (sm_80 SASS runs on sm_86, not on sm_90); PTX is compiled by the driver for any newer GPU. A binary
// with neither for the GPU it meets cannot launch a single kernel, and each launch fails with
// cudaErrorNoKernelImageForDevice. A program that checked launches late, or not at all, would print garbage; this
// guard asks once, at start, with cudaFuncGetAttributes on an empty kernel compiled in the caller's translation unit
// (so for exactly the caller's architectures), and stops with one line that names what the binary was built for and
// how to rebuild, and exit code tc::kExitNoKernelImage (5), which is never the "skipped" 77.
// Source: CUDA Runtime API, cudaFuncGetAttributes and cudaFuncAttributes::binaryVersion / ptxVersion; CUDA C++
// Programming Guide, "Binary Compatibility" and "PTX Compatibility".
#pragma once

#include "tc/device.hpp"
#include "tc/exit_codes.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

namespace tc {
namespace detail {
// Empty on purpose: only whether the runtime can load it for this GPU matters. A template, so that each binary
// instantiates it in its own translation unit and it is compiled for that binary's architectures.
template <int Tag>
__global__ void kernel_image_probe() {}
}  // namespace detail

// Nothing if the runtime can load this binary's code for `device` (its own SASS, or PTX the driver compiles, in which
// case cudaFuncAttributes::binaryVersion is the GPU's and ptxVersion the PTX's); otherwise the one-line reason
// (tc::no_kernel_image_message). `built_for` is the binary's CMAKE_CUDA_ARCHITECTURES (tc::chapter::kArchitectures),
// used only in the message. Precondition: device is present. Errors: none thrown; a load failure is the message.
inline std::optional<std::string> kernel_image_problem(const DeviceInfo& device, const std::string& built_for) {
  cudaFuncAttributes attr{};
  const cudaError_t e = cudaFuncGetAttributes(&attr, detail::kernel_image_probe<0>);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear it, so a later tc::check_launch() cannot report this error as its own
    return no_kernel_image_message(device, built_for, std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e));
  }
  return std::nullopt;
}

// What every chapter binary calls right after parsing its command line. With no GPU it returns at once (the binary
// then runs its host-side part and tc::require_sm exits 77); with a GPU whose code is missing it prints
// "error: <tc::no_kernel_image_message>" to stderr and exits tc::kExitNoKernelImage (5).
inline void require_kernel_image(const std::string& built_for) {
  const DeviceInfo device = query_device();
  if (!device.present) return;
  if (auto problem = kernel_image_problem(device, built_for)) {
    std::fprintf(stderr, "error: %s\n", problem->c_str());
    std::exit(kExitNoKernelImage);
  }
}

// require_kernel_image(built_for) as a callable, made in the caller's translation unit (so its probe kernel is the
// caller's), for tc::DriverConfig::kernel_image_guard. `built_for` must outlive the call (a string literal does).
inline std::function<void()> kernel_image_guard(const char* built_for) {
  return [built_for] { require_kernel_image(built_for); };
}

}  // namespace tc
