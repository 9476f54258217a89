// The 8-bit formats and block scaling on the host (tc/layouts/fp8.hpp, tc/layouts/block_scale.hpp): every e4m3 and
// e5m2 code decoded as the CUDA toolkit's cuda_fp8.h decodes it; the encoder rounding and saturating as its
// satfinite conversion does, at every code, at every midpoint between neighbours and a float either side, beyond the
// range, at NaN and signed zero, and on random floats; the integers each format holds exactly; and the block-scaled
// product's factoring, summed group by group with its scales, equal to the product of the dequantized operands.
#include "tc/layouts/block_scale.hpp"
#include "tc/layouts/fp8.hpp"
#include "tc_test/catch.hpp"

#include <cuda_fp8.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

namespace {

// The toolkit's conversions, the reference the formulas are held to.
float toolkit_decode(std::uint8_t code, __nv_fp8_interpretation_t kind) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t(code), kind)));
}
std::uint8_t toolkit_encode(float x, __nv_fp8_interpretation_t kind) {
  return std::uint8_t(__nv_cvt_float_to_fp8(x, __NV_SATFINITE, kind));
}

struct Case {
  tc::Fp8Format format;
  __nv_fp8_interpretation_t kind;
  float max;
  int exact_integers;  // every integer of magnitude up to this is a code's value
};
const Case kCases[] = {{tc::kE4M3, __NV_E4M3, 448.0f, 16}, {tc::kE5M2, __NV_E5M2, 57344.0f, 8}};

}  // namespace

TEST_CASE("fp8: every code decodes as cuda_fp8.h decodes it", "[fp8]") {
  for (const Case& c : kCases) {
    INFO(c.format.name);
    for (int code = 0; code < 256; ++code) {
      const float mine = tc::fp8_decode(std::uint8_t(code), c.format), ref = toolkit_decode(std::uint8_t(code), c.kind);
      INFO("code " << code);
      CHECK((mine == ref || (std::isnan(mine) && std::isnan(ref))));
    }
    CHECK(tc::fp8_max(c.format) == c.max);
    for (int i = -c.exact_integers; i <= c.exact_integers; ++i) {
      CHECK(tc::fp8_decode(tc::fp8_encode(float(i), c.format), c.format) == float(i));
    }
    // The next integer is the first one the format rounds: 17 lies halfway between e4m3's 16 and 18, 9 between e5m2's
    // 8 and 10, and ties go to the even code.
    const float next = float(c.exact_integers + 1);
    CHECK(tc::fp8_decode(tc::fp8_encode(next, c.format), c.format) != next);
  }
}

TEST_CASE("fp8: encoding rounds to nearest-even and saturates as cvt.rn.satfinite does", "[fp8]") {
  for (const Case& c : kCases) {
    INFO(c.format.name);
    std::vector<float> xs = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-30f, -1e-30f, 1e30f, -1e30f};
    for (int code = 0; code < 256; ++code) {
      const float v = tc::fp8_decode(std::uint8_t(code), c.format);
      if (!std::isfinite(v)) continue;
      xs.insert(xs.end(), {v, std::nextafter(v, INFINITY), std::nextafter(v, -INFINITY)});
      const float w = tc::fp8_decode(std::uint8_t(code + 1), c.format);
      if (code % 128 != 127 && std::isfinite(w)) {  // the midpoint to the next code, where the ties are
        const float mid = (v + w) / 2.0f;
        xs.insert(xs.end(), {mid, std::nextafter(mid, INFINITY), std::nextafter(mid, -INFINITY)});
      }
    }
    std::mt19937 random(2026);
    std::uniform_real_distribution<float> wide(-2.0f * c.max, 2.0f * c.max), narrow(-0.01f, 0.01f);
    for (int i = 0; i < 20000; ++i) xs.insert(xs.end(), {wide(random), narrow(random)});
    int differ = 0;
    for (float x : xs) differ += tc::fp8_encode(x, c.format) != toolkit_encode(x, c.kind);
    CHECK(differ == 0);
    // Saturation: beyond the largest finite value, and infinity, give that value, not NaN or infinity.
    CHECK(tc::fp8_decode(tc::fp8_encode(2.0f * c.max, c.format), c.format) == c.max);
    CHECK(tc::fp8_decode(tc::fp8_encode(-INFINITY, c.format), c.format) == -c.max);
  }
}

TEST_CASE("block scaling: every scale has one place, and the factored sum is the dequantized product", "[fp8]") {
  const int m = 130, n = 300, k = 300;  // ragged: a last K group of 44, a last column block of 44
  const int groups = tc::scale_groups(k), blocks = tc::scale_column_blocks(n);
  CHECK(groups == 3);
  CHECK(blocks == 3);
  const int ld_sa = m + 2, ld_sb = groups + 1;  // padded leading dimensions, as a caller may pass
  std::set<std::size_t> a_places, b_places;
  for (int g = 0; g < groups; ++g) {
    for (int i = 0; i < m; ++i) a_places.insert(tc::a_scale_index(i, g, ld_sa));
    for (int j = 0; j < n; ++j) b_places.insert(tc::b_scale_index(j, g, ld_sb));
  }
  CHECK(a_places.size() == std::size_t(m) * groups);       // one scale per row and group
  CHECK(b_places.size() == std::size_t(blocks) * groups);  // one per 128-column block and group
  CHECK(*a_places.rbegin() < std::size_t(groups) * ld_sa);
  CHECK(*b_places.rbegin() < std::size_t(blocks) * ld_sb);

  // Quantize random operands block by block, then compare C from the scaled group sums with C from the dequantized
  // values: the same terms, grouped differently, so equal to within the rounding of the double sums.
  std::mt19937 random(7);
  std::normal_distribution<float> value(0.0f, 3.0f);
  std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n), sa(std::size_t(groups) * ld_sa, 0.0f),
      sb(std::size_t(blocks) * ld_sb, 0.0f);
  for (float& x : a) x = value(random);
  for (float& x : b) x = value(random);
  std::vector<std::uint8_t> aq(a.size()), bq(b.size());
  for (int g = 0; g < groups; ++g) {
    const int k0 = g * tc::kScaleBlockK, k1 = std::min(k, k0 + tc::kScaleBlockK);
    for (int i = 0; i < m; ++i) {
      float amax = 0.0f;
      for (int kk = k0; kk < k1; ++kk) amax = std::max(amax, std::fabs(a[std::size_t(i) * k + kk]));
      const float s = sa[tc::a_scale_index(i, g, ld_sa)] = tc::block_scale_for_amax(amax, tc::kE4M3);
      for (int kk = k0; kk < k1; ++kk) {
        aq[std::size_t(i) * k + kk] = tc::fp8_encode(a[std::size_t(i) * k + kk] / s, tc::kE4M3);
      }
    }
    for (int jb = 0; jb < blocks; ++jb) {
      const int j0 = jb * tc::kScaleBlockK, j1 = std::min(n, j0 + tc::kScaleBlockK);
      float amax = 0.0f;
      for (int j = j0; j < j1; ++j)
        for (int kk = k0; kk < k1; ++kk) amax = std::max(amax, std::fabs(b[std::size_t(j) * k + kk]));
      const float s = sb[tc::b_scale_index(j0, g, ld_sb)] = tc::block_scale_for_amax(amax, tc::kE4M3);
      for (int j = j0; j < j1; ++j)
        for (int kk = k0; kk < k1; ++kk) {
          bq[std::size_t(j) * k + kk] = tc::fp8_encode(b[std::size_t(j) * k + kk] / s, tc::kE4M3);
        }
    }
  }
  // The quantizer's scale puts each block's largest magnitude at the format's largest value.
  CHECK(tc::fp8_decode(tc::fp8_encode(tc::fp8_max(tc::kE4M3), tc::kE4M3), tc::kE4M3) == 448.0f);
  double worst = 0.0;
  for (int i = 0; i < m; i += 7) {
    for (int j = 0; j < n; j += 11) {
      double grouped = 0.0, dequantized = 0.0, magnitude = 0.0;
      for (int g = 0; g < groups; ++g) {
        double partial = 0.0;
        for (int kk = g * tc::kScaleBlockK; kk < std::min(k, (g + 1) * tc::kScaleBlockK); ++kk) {
          const double x = tc::fp8_decode(aq[std::size_t(i) * k + kk], tc::kE4M3);
          const double y = tc::fp8_decode(bq[std::size_t(j) * k + kk], tc::kE4M3);
          partial += x * y;
          const double term = x * sa[tc::a_scale_index(i, g, ld_sa)] * y * sb[tc::b_scale_index(j, g, ld_sb)];
          dequantized += term;
          magnitude += std::fabs(term);
        }
        grouped += double(tc::block_scale_factor(sa.data(), ld_sa, sb.data(), ld_sb, i, j, g)) * partial;
      }
      worst = std::max(worst, std::fabs(grouped - dequantized) / magnitude);
    }
  }
  // The only rounding the grouping adds is the fp32 product of the two scales, 2^-24 of each group's partial sum: at
  // most that share of the terms' magnitudes, whatever cancels in the sum.
  CHECK(worst < 1e-7);
  // A quantized block's largest element sits at the format's largest finite value, or one rounding step below.
  float top = 0.0f;
  for (int kk = 0; kk < tc::kScaleBlockK; ++kk) top = std::max(top, std::fabs(tc::fp8_decode(aq[kk], tc::kE4M3)));
  CHECK(top == 448.0f);
  CHECK(tc::block_scale_for_amax(0.0f, tc::kE4M3) == 1.0f);
}
