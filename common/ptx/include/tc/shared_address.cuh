// The .shared window address of a generic pointer to shared memory: what ldmatrix, mbarrier, TMA and wgmma
// descriptors take. One definition, included by every wrapper header that needs it.
// Preconditions: p points into shared memory (a generic address that is not shared gives an undefined result).
// Source: CUDA C++ Programming Guide, "__cvta_generic_to_shared"; PTX ISA, "cvta".
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tc {

__device__ inline std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace tc
