#include "tc/random.hpp"

#include <random>
#include <stdexcept>
#include <string>

namespace tc {
namespace {

// A double uniform in [0, 1) from the top 53 bits of one 64-bit draw (53 = fp64 significand bits, so every value is
// exact and equally spaced).
double unit_interval(std::mt19937_64& engine) { return static_cast<double>(engine() >> 11) * 0x1p-53; }

// An integer uniform in [lo, hi]. The modulo bias is below 2^-56 for these tiny ranges.
std::int64_t integer_in(std::mt19937_64& engine, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(engine() % static_cast<std::uint64_t>(hi - lo + 1));
}

// The one loop behind both fills: integer types draw their full range whatever the mode; floating types draw
// integers in [-integer_max, integer_max] when integer_max > 0, else reals in [-1, 1).
template <typename T>
void fill(T* data, std::size_t count, std::uint64_t seed, int integer_max) {
  std::mt19937_64 engine(seed);
  for (std::size_t i = 0; i < count; ++i) {
    double v;
    if constexpr (std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::int32_t>) {
      v = static_cast<double>(integer_in(engine, -128, 127));
    } else if constexpr (std::is_same_v<T, std::uint8_t>) {
      v = static_cast<double>(integer_in(engine, 0, 255));
    } else if (integer_max > 0) {
      v = static_cast<double>(integer_in(engine, -integer_max, integer_max));
    } else {
      v = 2.0 * unit_interval(engine) - 1.0;
    }
    data[i] = from_double<T>(v);
  }
}

}  // namespace

template <typename T>
void fill_random(T* data, std::size_t count, std::uint64_t seed, Fill mode) {
  fill(data, count, seed, mode == Fill::Integer ? kIntegerFillMax : 0);
}

template <typename T>
void fill_random_integers(T* data, std::size_t count, std::uint64_t seed, int max) {
  if (max < 1 || max > 256) {
    throw std::invalid_argument("fill_random_integers: max must be in [1, 256], got " + std::to_string(max));
  }
  fill(data, count, seed, max);
}

template void fill_random<__half>(__half*, std::size_t, std::uint64_t, Fill);
template void fill_random_integers<__half>(__half*, std::size_t, std::uint64_t, int);
template void fill_random<__nv_bfloat16>(__nv_bfloat16*, std::size_t, std::uint64_t, Fill);
template void fill_random_integers<__nv_bfloat16>(__nv_bfloat16*, std::size_t, std::uint64_t, int);
template void fill_random<float>(float*, std::size_t, std::uint64_t, Fill);
template void fill_random_integers<float>(float*, std::size_t, std::uint64_t, int);
template void fill_random<double>(double*, std::size_t, std::uint64_t, Fill);
template void fill_random_integers<double>(double*, std::size_t, std::uint64_t, int);
template void fill_random<std::int8_t>(std::int8_t*, std::size_t, std::uint64_t, Fill);
template void fill_random_integers<std::int8_t>(std::int8_t*, std::size_t, std::uint64_t, int);
template void fill_random<std::uint8_t>(std::uint8_t*, std::size_t, std::uint64_t, Fill);
template void fill_random_integers<std::uint8_t>(std::uint8_t*, std::size_t, std::uint64_t, int);
template void fill_random<std::int32_t>(std::int32_t*, std::size_t, std::uint64_t, Fill);
template void fill_random_integers<std::int32_t>(std::int32_t*, std::size_t, std::uint64_t, int);

}  // namespace tc
