#include "tc/random.hpp"
#include "tc_test/catch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {
template <typename T>
std::vector<double> draw(std::uint64_t seed, tc::Fill mode, std::size_t n = 4096) {
  std::vector<T> v(n);
  tc::fill_random(v, seed, mode);
  std::vector<double> d;
  for (T x : v) d.push_back(tc::to_double(x));
  return d;
}
}  // namespace

TEMPLATE_TEST_CASE("fill_random is deterministic per seed", "[random]", __half, __nv_bfloat16, float, double,
                   std::int8_t, std::uint8_t) {
  CHECK(draw<TestType>(42, tc::Fill::Real) == draw<TestType>(42, tc::Fill::Real));
  CHECK(draw<TestType>(42, tc::Fill::Real) != draw<TestType>(43, tc::Fill::Real));
}

TEMPLATE_TEST_CASE("Fill::Real stays within -1..1 and is not all zero", "[random]", __half, __nv_bfloat16, float,
                   double) {
  double lo = 1, hi = -1;
  for (double x : draw<TestType>(7, tc::Fill::Real)) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  CHECK(lo >= -1.0);
  CHECK(hi <= 1.0);  // <= because rounding to fp16/bf16 can reach 1.0
  CHECK(lo < -0.9);
  CHECK(hi > 0.9);
}

TEMPLATE_TEST_CASE("Fill::Integer draws every integer from -4 to 4 and nothing else", "[random]", __half,
                   __nv_bfloat16, float, double) {
  std::vector<int> seen(9, 0);
  for (double x : draw<TestType>(7, tc::Fill::Integer)) {
    REQUIRE(x == std::trunc(x));
    REQUIRE(std::fabs(x) <= tc::kIntegerFillMax);
    ++seen[static_cast<int>(x) + 4];
  }
  for (int count : seen) CHECK(count > 0);
}

TEST_CASE("8-bit integer fills cover the full range, extremes included", "[random]") {
  const auto s8 = draw<std::int8_t>(3, tc::Fill::Real, 1 << 16);
  CHECK(*std::min_element(s8.begin(), s8.end()) == -128);
  CHECK(*std::max_element(s8.begin(), s8.end()) == 127);
  const auto u8 = draw<std::uint8_t>(3, tc::Fill::Integer, 1 << 16);
  CHECK(*std::min_element(u8.begin(), u8.end()) == 0);
  CHECK(*std::max_element(u8.begin(), u8.end()) == 255);
}

TEST_CASE("round_to_tf32 keeps 10 significand bits, to nearest, ties away from zero", "[random]") {
  CHECK(tc::round_to_tf32(1.0f + 0x1p-12f) == 1.0f);                // below half an ulp (ulp = 2^-10): down
  CHECK(tc::round_to_tf32(1.0f + 0x1p-11f) == 1.0f + 0x1p-10f);     // exactly half: away from zero
  CHECK(tc::round_to_tf32(-1.0f - 0x1p-11f) == -1.0f - 0x1p-10f);   // ... for negatives too
  CHECK(tc::round_to_tf32(1.0f + 0x1p-10f) == 1.0f + 0x1p-10f);     // representable: unchanged
  CHECK(std::isinf(tc::round_to_tf32(std::numeric_limits<float>::infinity())));
  CHECK(std::isnan(tc::round_to_tf32(std::numeric_limits<float>::quiet_NaN())));
}
