// Seeded, reproducible random fill for every element type the tutorial uses.
//
// Fill::Real    floating types: uniform in [-1, 1), then rounded to T. s8: uniform over [-128, 127]; u8: [0, 255];
//               s32 (the C of an s8 GEMM): [-128, 127] too, so beta * C stays on the scale of one product.
// Fill::Integer floating types: uniform integers in [-4, 4] (fill_random_integers with max 4). Every such value is
//               exact in fp16, bf16, tf32, fp32 and fp64; products are at most 16 in magnitude, so fp32 accumulation
//               of K products is exact while 16 * K <= 2^24. An exact result turns any indexing bug into an exact
//               mismatch; tc/gemm_check.hpp picks the range from K (tc::exact_fill_max).
//               s8, u8 and s32: as for Real (integer math is exact anyway).
// The same (seed, count, mode, T) gives the same values on every platform: the engine is std::mt19937_64, whose
// output the C++ standard fixes, and the mapping to values is written here rather than left to std distributions,
// whose results differ between standard libraries.
// Source: C++17 [rand.eng.mers]; value ranges chosen as documented above.
#pragma once

#include "tc/matrix.hpp"
#include "tc/types.hpp"

#include <cstdint>
#include <vector>

namespace tc {

enum class Fill { Real, Integer };

inline constexpr int kIntegerFillMax = 4;  // Fill::Integer draws from [-4, 4]: see the exactness bound above

template <typename T>
void fill_random(T* data, std::size_t count, std::uint64_t seed, Fill mode);

// Floating types: uniform integers in [-max, max] (Fill::Integer is max = kIntegerFillMax); integer types: as
// fill_random. Precondition: 1 <= max <= 256, so that every value is exact in bf16 (8 significand bits), the
// narrowest floating input here. Errors: std::invalid_argument for max outside [1, 256].
template <typename T>
void fill_random_integers(T* data, std::size_t count, std::uint64_t seed, int max);

template <typename T>
void fill_random_integers(std::vector<T>& values, std::uint64_t seed, int max) {
  fill_random_integers(values.data(), values.size(), seed, max);
}

template <typename T>
void fill_random(std::vector<T>& values, std::uint64_t seed, Fill mode) {
  fill_random(values.data(), values.size(), seed, mode);
}

// Fills the whole storage, padding included, so that a kernel that reads padding gets noise rather than zeros.
template <typename T, typename Layout>
void fill_random(HostMatrix<T, Layout>& m, std::uint64_t seed, Fill mode) {
  fill_random(m.storage(), seed, mode);
}

}  // namespace tc
