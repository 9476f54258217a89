// Chapter 09's graded exercises (README, "Workshop mode"), host-checked: the block-scale factor by computing C from
// scaled group sums of 8-bit products and comparing it with C from the dequantized operands, on ragged shapes with
// padded scale tensors; the exact range by its bound (every partial sum within 2^11) and by being the largest range
// that keeps it. CUDA source because the other chapters' exercise targets are; nothing here runs on a GPU.
#if TC_EXERCISE_SOLUTIONS
#include "exercises/solutions.hpp"
#else
#include "exercises/ex1_block_scale.hpp"
#include "exercises/ex2_exact_range.hpp"
#endif

#include "tc/layouts/block_scale.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/exercise.hpp"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

TEST_CASE("exercise 09.1: which scales multiply a K group's partial sum", "[exercise]") {
  tc::exercise::grade([] {
    const int m = 70, n = 300, k = 300;  // ragged: a last K group of 44, a last column block of 44
    const int groups = tc::scale_groups(k), blocks = tc::scale_column_blocks(n);
    const int ld_sa = m + 3, ld_sb = groups + 2;  // padded, as a caller may pass
    std::mt19937 random(9);
    std::uniform_int_distribution<int> value(-4, 4), exponent(-6, 6);
    std::vector<int> a(std::size_t(m) * k), b(std::size_t(k) * n);  // the 8-bit values (small integers)
    for (int& x : a) x = value(random);
    for (int& x : b) x = value(random);
    std::vector<float> sa(std::size_t(groups) * ld_sa, NAN), sb(std::size_t(blocks) * ld_sb, NAN);
    for (int g = 0; g < groups; ++g) {
      for (int i = 0; i < m; ++i) sa[std::size_t(g) * ld_sa + i] = std::ldexp(1.0f, exponent(random));
      for (int jb = 0; jb < blocks; ++jb) sb[std::size_t(jb) * ld_sb + g] = std::ldexp(1.0f, exponent(random));
    }
    for (int i = 0; i < m; i += 3)
      for (int j = 0; j < n; j += 7) {
        double want = 0.0, got = 0.0;  // from the dequantized values; from scaled group sums
        for (int g = 0; g < groups; ++g) {
          double partial = 0.0;
          for (int l = g * 128; l < std::min(k, g * 128 + 128); ++l) {
            const double x = a[std::size_t(i) * k + l], y = b[std::size_t(j) * k + l];
            partial += x * y;
            want += x * sa[std::size_t(g) * ld_sa + i] * y * sb[std::size_t(j / 128) * ld_sb + g];
          }
          got += double(ex09_1::scale_factor(sa.data(), ld_sa, sb.data(), ld_sb, i, j, g)) * partial;
        }
        INFO("C(" << i << ", " << j << "): " << got << " from scaled group sums, " << want << " dequantized");
        REQUIRE(got == want);  // powers of two and small integers: both sums are exact
      }
  });
}

TEST_CASE("exercise 09.2: the largest operand range whose sums the fp8 accumulator holds exactly", "[exercise]") {
  tc::exercise::grade([] {
    for (int k : {1, 7, 8, 9, 64, 100, 128, 512, 2047, 2048, 2049, 4096, 5000, 65536}) {
      const ex09_2::Range r = ex09_2::exact_range(k);
      const std::int64_t terms = (k + r.q - 1) / r.q;
      INFO("k = " << k << ": r = " << r.r << ", q = " << r.q << ", at most " << terms * r.r * r.r << " a sum");
      REQUIRE(r.r >= 1);
      REQUIRE(r.r <= 16);
      REQUIRE(r.q >= 1);
      REQUIRE(terms * r.r * r.r <= 2048);  // every partial sum within 2^11
      if (k <= 2048) {
        REQUIRE(r.q == 1);  // no stride while r = 1 suffices
        if (r.r < 16) REQUIRE(std::int64_t(k) * (r.r + 1) * (r.r + 1) > 2048);  // the largest r
      } else {
        REQUIRE(r.r == 1);
        REQUIRE((k + r.q - 2) / (r.q - 1) > 2048);  // the smallest q: q - 1 would leave too many terms
      }
    }
  });
}
