// Chapter 04's exercise solutions: each exercise's function is the chapter's own code, built in place of the stubs
// with -DTC_EXERCISES=SOLUTIONS (README, "Workshop mode").
#pragma once

#include "imma_shared_gemm.cuh"  // DefaultImmaTile

#include "tc/layouts/smem_banks.hpp"

#include <cstdint>

namespace ex04_1 {
inline int bank_of(std::int64_t byte_address) { return tc::smem_bank(byte_address); }
}  // namespace ex04_1

namespace ex04_2 {
inline constexpr int kLineDataBytes = 64;
// The skew the chapter runs as its chosen one (main.cu, for_each_skew), on its 64-byte lines.
inline int skew_bytes() {
  using Chosen = DefaultImmaTile<16>;
  static_assert(Chosen::BlockK == kLineDataBytes, "the exercise's lines are the chapter's");
  return Chosen::Skew;
}
}  // namespace ex04_2
