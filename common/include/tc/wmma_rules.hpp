// The memory rules of WMMA's load_matrix_sync / store_matrix_sync, checked on the host before a launch.
//
// CUDA C++ Programming Guide, "Warp Matrix Functions": "mptr must be a 256-bit aligned pointer" and "ldm ... must
// be a multiple of 8 for __half element type or multiple of 4 for float element type" -- i.e. a multiple of 16 bytes
// for every element type. Breaking them is undefined behaviour (misaligned-address faults or wrong data), so
// launchers check every operand and throw std::invalid_argument with a one-line message instead.
// Units: ld in elements, element_bytes in bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace tc {

inline constexpr std::size_t kWmmaPointerAlignmentBytes = 32;  // 256 bits
inline constexpr std::size_t kWmmaLdmMultipleBytes = 16;       // 8 halves, 4 floats, 16 int8, 2 doubles

inline std::optional<std::string> wmma_operand_problem(const void* pointer, int ld, std::size_t element_bytes,
                                                       const std::string& name) {
  if (reinterpret_cast<std::uintptr_t>(pointer) % kWmmaPointerAlignmentBytes != 0) {
    return name + " must be 32-byte (256-bit) aligned for load/store_matrix_sync";
  }
  if ((static_cast<std::size_t>(ld) * element_bytes) % kWmmaLdmMultipleBytes != 0) {
    return "ld of " + name + " is " + std::to_string(ld) + " elements; load/store_matrix_sync needs a multiple of " +
           std::to_string(kWmmaLdmMultipleBytes / element_bytes) + " (16 bytes)";
  }
  return std::nullopt;
}

template <typename T>
void require_wmma_operand(const T* pointer, int ld, const std::string& name) {
  if (auto problem = wmma_operand_problem(pointer, ld, sizeof(T), name)) throw std::invalid_argument(*problem);
}

}  // namespace tc
