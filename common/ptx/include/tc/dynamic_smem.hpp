// A kernel's on-chip resources. opt_in_dynamic_shared_memory: let a kernel launch with more than 48 KB of dynamic
// shared memory, or say in one line why this GPU cannot. kernel_resources: the registers and spills the compiler gave
// a kernel, as the chapters' resource tables and tile sweeps print them.
//
// A block gets 48 KB of dynamic shared memory unless its kernel opts in to more with
// cudaFuncAttributeMaxDynamicSharedMemorySize, up to the device's cudaDevAttrMaxSharedMemoryPerBlockOptin (227 KB on
// sm_80 and sm_90). Call it once per kernel before its first launch (the chapters keep a function-local static).
// Units: bytes. Errors: std::runtime_error (one line, naming `what`) when the device allows less than `bytes`;
// tc::CudaError when a CUDA call fails.
// Source: CUDA C++ Programming Guide, "Shared Memory" (dynamic shared memory above 48 KB needs an explicit opt-in).
#pragma once

#include "tc/check.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tc {

template <typename Kernel>
void opt_in_dynamic_shared_memory(Kernel* kernel, int bytes, const std::string& what) {
  int device = 0, limit = 0;
  TC_CHECK(cudaGetDevice(&device));
  TC_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (limit < bytes) {
    throw std::runtime_error(what + ": the tile needs " + std::to_string(bytes) +
                             " bytes of shared memory per block; this GPU allows " + std::to_string(limit));
  }
  TC_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

// Registers per thread and local-memory (spill) bytes per thread of `kernel` for this GPU, from cudaFuncGetAttributes
// (numRegs, localSizeBytes). Errors: tc::CudaError (no GPU, or no code for it). Source: CUDA Runtime API,
// "cudaFuncGetAttributes".
struct KernelResources {
  int registers = 0;
  int spill_bytes = 0;
};
template <typename Kernel>
KernelResources kernel_resources(Kernel* kernel) {
  cudaFuncAttributes attr{};
  TC_CHECK(cudaFuncGetAttributes(&attr, kernel));
  return {attr.numRegs, int(attr.localSizeBytes)};
}

}  // namespace tc
