#include "tc/compare.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

namespace tc {

template <typename T>
CompareResult compare(int m, int n, int k, const T* got, int ld_got, const double* ref, const double* mag, int ld_ref,
                      Tolerance tol) {
  CompareResult r;
  double worst_ratio = -1.0;
  double squares = 0.0;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      const double g = to_double(got[i + static_cast<long>(j) * ld_got]);
      const double want = ref[i + static_cast<long>(j) * ld_ref];
      const double scale = mag[i + static_cast<long>(j) * ld_ref];
      const double bound = (k * tol.u_acc + tol.u_mag) * scale + tol.u_out * std::fabs(want);
      const double error = std::fabs(g - want);
      squares += error * error;
      const bool ok = !std::isnan(g) && error <= bound;
      // Ratio error/bound ranks elements; a failure with a zero bound (exact types) or NaN ranks as infinitely bad.
      double ratio = bound > 0.0 ? error / bound : (error > 0.0 ? std::numeric_limits<double>::infinity() : 0.0);
      if (std::isnan(g)) ratio = std::numeric_limits<double>::infinity();
      ++r.checked;
      if (bound > r.largest_bound) r.largest_bound = bound;
      if (!ok) ++r.failures;
      if (ratio > worst_ratio) {  // failures have ratio > 1, passes <= 1, so a failure always wins
        worst_ratio = ratio;
        r.worst_row = i;
        r.worst_col = j;
        r.worst_got = g;
        r.worst_ref = want;
        r.worst_error = error;
        r.worst_bound = bound;
      }
    }
  }
  r.passed = r.failures == 0;
  r.rms_error = r.checked > 0 ? std::sqrt(squares / double(r.checked)) : 0.0;
  return r;
}

std::string CompareResult::summary() const {
  char line[256];
  if (checked == 0) return "PASS: nothing to compare (empty matrix)";
  std::snprintf(line, sizeof line,
                "%s: %lld/%lld within tolerance; worst |err| %.3g at (%d, %d): got %.9g, want %.9g (bound %.3g)",
                passed ? "PASS" : "FAIL", static_cast<long long>(checked - failures), static_cast<long long>(checked),
                worst_error, worst_row, worst_col, worst_got, worst_ref, worst_bound);
  std::string text = line;
  if (rms_bound >= 0.0) {
    std::snprintf(line, sizeof line, "; rms error %.3g (bound %.3g)%s", rms_error, rms_bound,
                  rms_error <= rms_bound ? "" : ", OVER");
    text += line;
  }
  return text;
}

template CompareResult compare<__half>(int, int, int, const __half*, int, const double*, const double*, int, Tolerance);
template CompareResult compare<__nv_bfloat16>(int, int, int, const __nv_bfloat16*, int, const double*, const double*,
                                              int, Tolerance);
template CompareResult compare<float>(int, int, int, const float*, int, const double*, const double*, int, Tolerance);
template CompareResult compare<double>(int, int, int, const double*, int, const double*, const double*, int, Tolerance);
template CompareResult compare<std::int32_t>(int, int, int, const std::int32_t*, int, const double*, const double*, int,
                                             Tolerance);

}  // namespace tc
