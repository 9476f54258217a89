#include "tc/compare.hpp"
#include "tc/reference.hpp"
#include "tc_test/catch.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {
// A 4 x 3 reference, every element 10 with magnitude 10, stored with ld 5 (one row of padding per column).
constexpr int kM = 4, kN = 3, kLd = 5;
const std::vector<double> kRef(kLd * kN, 10.0);
const std::vector<double> kMag(kLd * kN, 10.0);
}  // namespace

TEST_CASE("compare passes an exact result and reports its worst element", "[compare]") {
  std::vector<float> got(kLd * kN, 10.0f);
  const auto r = tc::compare(kM, kN, 16, got.data(), kLd, kRef.data(), kMag.data(), kLd,
                             tc::Tolerance::fp32_accumulate<float>());
  CHECK(r.passed);
  CHECK(r.checked == kM * kN);
  CHECK(r.failures == 0);
  CHECK(r.summary().rfind("PASS: 12/12", 0) == 0);
}

TEST_CASE("compare fails one corrupted element and names its (row, col)", "[compare]") {
  std::vector<float> got(kLd * kN, 10.0f);
  got[2 + 1 * kLd] = 10.5f;  // (row 2, col 1)
  const auto r = tc::compare(kM, kN, 16, got.data(), kLd, kRef.data(), kMag.data(), kLd,
                             tc::Tolerance::fp32_accumulate<float>());
  CHECK_FALSE(r.passed);
  CHECK(r.failures == 1);
  CHECK(r.worst_row == 2);
  CHECK(r.worst_col == 1);
  CHECK(r.worst_got == 10.5);
  CHECK(r.worst_ref == 10.0);
  CHECK(r.summary().find("FAIL: 11/12") == 0);
  CHECK(r.summary().find("at (2, 1)") != std::string::npos);
}

TEST_CASE("compare ignores padding between columns", "[compare]") {
  std::vector<float> got(kLd * kN, 10.0f);
  got[kM + 0 * kLd] = -999.0f;  // row kM is padding, not part of the 4 x 3 matrix
  CHECK(tc::compare(kM, kN, 16, got.data(), kLd, kRef.data(), kMag.data(), kLd, tc::Tolerance::exact()).passed);
}

TEST_CASE("compare fails NaN, the poison of unwritten outputs, even with a loose tolerance", "[compare]") {
  std::vector<float> got(kLd * kN, 10.0f);
  got[3 + 2 * kLd] = std::numeric_limits<float>::quiet_NaN();
  const tc::Tolerance loose{1.0, 1.0};
  const auto r = tc::compare(kM, kN, 16, got.data(), kLd, kRef.data(), kMag.data(), kLd, loose);
  CHECK_FALSE(r.passed);
  CHECK(r.worst_row == 3);
  CHECK(r.worst_col == 2);
}

TEST_CASE("compare's bound is k * u_acc * mag + u_out * |ref|, so it grows with K", "[compare]") {
  const tc::Tolerance tol = tc::Tolerance::fp32_accumulate<float>();
  const double bound_k16 = 16 * tol.u_acc * 10.0 + tol.u_out * 10.0;
  auto passes = [&](double error, int k) {
    std::vector<double> got(kLd * kN, 10.0);
    got[0] = 10.0 + error;
    return tc::compare(kM, kN, k, got.data(), kLd, kRef.data(), kMag.data(), kLd, tol).passed;
  };
  CHECK(passes(0.99 * bound_k16, 16));
  CHECK_FALSE(passes(1.01 * bound_k16, 16));
  CHECK(passes(1.01 * bound_k16, 32));  // twice the terms, twice the allowed rounding error
}

TEST_CASE("compare demands exact integers", "[compare]") {
  std::vector<std::int32_t> got(kLd * kN, 10);
  CHECK(tc::compare(kM, kN, 1 << 20, got.data(), kLd, kRef.data(), kMag.data(), kLd, tc::Tolerance::exact()).passed);
  got[1] = 11;
  CHECK_FALSE(
      tc::compare(kM, kN, 1 << 20, got.data(), kLd, kRef.data(), kMag.data(), kLd, tc::Tolerance::exact()).passed);
}

TEST_CASE("compare and reference_gemm agree on a real fp16 product rounded to fp32", "[compare]") {
  // The rounding of an fp32 accumulation must pass, and dropping one product term must fail.
  const int m = 8, n = 8, k = 64;
  std::vector<__half> a(m * k), b(k * n);
  for (int i = 0; i < m * k; ++i) a[i] = __double2half(std::sin(1.0 + i));
  for (int i = 0; i < k * n; ++i) b[i] = __double2half(std::cos(2.0 + i));
  std::vector<double> ref(m * n), mag(m * n);
  tc::reference_gemm<__half, __half, float>(tc::Op::N, tc::Op::N, m, n, k, 1.0, a.data(), m, b.data(), k, 0.0,
                                            nullptr, m, ref.data(), m, mag.data());
  std::vector<float> got(m * n), missing_term(m * n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      float acc = 0.0f;  // sequential fp32 accumulation: what a correct kernel might compute
      for (int l = 0; l < k; ++l) acc += __half2float(a[i + l * m]) * __half2float(b[l + j * k]);
      got[i + j * m] = acc;
      missing_term[i + j * m] = acc - __half2float(a[i + (k - 1) * m]) * __half2float(b[(k - 1) + j * k]);
    }
  }
  const tc::Tolerance tol = tc::Tolerance::fp32_accumulate<float>();
  CHECK(tc::compare(m, n, k, got.data(), m, ref.data(), mag.data(), m, tol).passed);
  CHECK_FALSE(tc::compare(m, n, k, missing_term.data(), m, ref.data(), mag.data(), m, tol).passed);
}
