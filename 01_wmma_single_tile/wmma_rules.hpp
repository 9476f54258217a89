// The memory rules of WMMA's load_matrix_sync / store_matrix_sync, checked on the host before a launch.
//
// CUDA C++ Programming Guide, "Warp Matrix Functions": "mptr must be a 256-bit aligned pointer" and "ldm ... must
// be a multiple of 8 for __half element type or multiple of 4 for float element type" -- i.e. a multiple of 16 bytes
// for every element type. Breaking them is undefined behaviour (misaligned-address faults or wrong data), so
// launchers check every operand and throw std::invalid_argument with a one-line message instead. The rule itself is
// tc::kWmmaOperandRule (tc/tile_contract.hpp), where every kernel's operand rules live.
// Units: ld in elements, element_bytes in bytes.
#pragma once

#include "tc/tile_contract.hpp"

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

namespace tc {

inline std::optional<std::string> wmma_operand_problem(const void* pointer, int ld, std::size_t element_bytes,
                                                       const std::string& name) {
  return operand_problem(kWmmaOperandRule, pointer, ld, element_bytes, name);
}

template <typename T>
void require_wmma_operand(const T* pointer, int ld, const std::string& name) {
  if (auto problem = wmma_operand_problem(pointer, ld, sizeof(T), name)) throw std::invalid_argument(*problem);
}

}  // namespace tc
