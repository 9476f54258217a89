// Chapter 07's own section: what main.cu prints on the host before the GPU runs -- step 3's shared-memory
// descriptors, field by field, at the offsets the kernel uses, and whether every stage and slice starts on a swizzle
// atom. Units: bytes. Errors: none. Source: PTX ISA, "Matrix Descriptor Format".
#pragma once

#include "step3_ring.cuh"

#include "tc/layouts/wgmma.hpp"
#include "tc/wgmma_slice.cuh"

#include <cstdint>
#include <cstdio>

// (2) What the hardware is told, on the host: step 3's descriptors, field by field, at the offsets the kernel uses.
inline void explain() {
  using T = Step3Tile;
  std::printf("\n== the descriptors of step 3's stage 0 (tc/layouts/wgmma.hpp), its base at shared address 0 ==\n");
  std::printf("%-26s %-18s %8s %6s %6s %5s %8s\n", "operand, K columns", "descriptor", "start", "LBO", "SBO", "base",
              "swizzle");
  const char* names[] = {"none", "128B", "64B", "32B"};
  for (int operand = 0; operand < 3; ++operand)
    for (int kk = 0; kk < T::BlockK / 16; ++kk) {
      // A's two warpgroups start 64 rows apart; B follows A in the stage.
      const std::uint32_t slice = operand == 0 ? 0u : operand == 1 ? 64u * T::kRowBytes : T::kSliceABytes + 0u;
      const std::uint64_t d = tc::slice_descriptor(slice, kk);
      const tc::WgmmaDescriptorFields f = tc::decode_wgmma_descriptor(d);
      const char* what[] = {"A, warpgroup 0", "A, warpgroup 1", "B"};
      std::printf("%-14s k %2d..%-5d 0x%016llx %8u %6u %6u %5d %8s\n", what[operand], 16 * kk, 16 * kk + 15,
                  static_cast<unsigned long long>(d), f.start_address, f.leading_byte_offset, f.stride_byte_offset,
                  f.base_offset, names[tc::wgmma_swizzle_bits(f.swizzle)]);
    }
  std::printf("every stage and slice starts on a 1024-byte swizzle atom: %s\n",
              tc::wgmma_tile_base_problem(tc::Swizzle::B128, T::kStageBytes) == nullptr &&
                      tc::wgmma_tile_base_problem(tc::Swizzle::B128, T::kSliceABytes) == nullptr
                  ? "yes"
                  : "NO");
}
