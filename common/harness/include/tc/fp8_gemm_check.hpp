// The operands, the reference and the error measures of chapter 09's fp8 GEMMs: D = alpha * scale_a * scale_b * A * B
// + beta * C, A row-major m x k and B column-major k x n (both K-major, lda = ldb = k), fp8 values with one fp32 scale
// per tensor, C and D column-major m x n (ldc = m).
//
// Two operand sets, as for the 16-bit chapters (tc/gemm_check.hpp), each checked against an fp64 reference of the
// dequantized inputs (every fp8 value times its scale is exact in double; one cuBLAS DGEMM, tc::fp64_reference_gemm):
//   - exact: small integers in fp8 and power-of-two scales, with every partial sum of every output an integer below
//     kFp8ExactSumLimit in magnitude, so that the fp8 accumulator holds each one exactly (chapter 09, step 2, measures
//     how many bits it keeps) and only the epilogue rounds. Values are uniform in [-r, r] with r the largest integer
//     with k * r^2 <= kFp8ExactSumLimit; beyond k = kFp8ExactSumLimit (r would be below 1) they are -1, 0 or 1 and
//     row i of A is zero except at the K indices l with l % q == i % q, q = ceil(k / kFp8ExactSumLimit), so that no
//     sum has more than kFp8ExactSumLimit nonzero terms. Any dropped, repeated or misplaced K slice, row or scale then
//     changes some output by at least one product.
//   - random: reals uniform in [-1, 1) (tc::Fill::Real), quantized to fp8 with the per-tensor scale amax / fp8_max
//     (the largest value maps to the format's largest finite one), rounded to nearest even.
// Error measures: DeepGEMM's relative error, 1 - 2 sum(x y) / sum(x^2 + y^2) over all elements (0 when equal; it
// weighs large elements more, as a model's loss does), and the largest absolute error.
// Units: elements; scales and values as reals. Errors: std::invalid_argument for bad sizes; tc::CudaError from the
// reference's DGEMM.
// Source: DeepSeek-V3 Technical Report, section 3.3 (fine-grained quantization, increased accumulation precision);
// DeepGEMM, tests (calc_diff, the relative error above).
#pragma once

#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/precisions_8bit.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace tc {

// The significand bits the checks assume the fp8 accumulator keeps at least: 12. The DeepSeek-V3 report measured
// about 14 on the H800; chapter 09's probe measures this GPU's. The largest magnitude an exact-set partial sum may
// reach, 2^11, is exact in such an accumulator.
inline constexpr int kFp8AccumulatorBits = 12;
inline constexpr int kFp8ExactSumLimit = 1 << (kFp8AccumulatorBits - 1);

// The exact set's value range r and K stride q (above): uniform integers in [-r, r], row i of A nonzero only where
// l % q == i % q.
struct Fp8ExactRange {
  int r = 1;
  int q = 1;
};
inline Fp8ExactRange fp8_exact_range(int k) {
  if (k <= kFp8ExactSumLimit) {
    int r = 1;
    while (std::int64_t(k) * (r + 1) * (r + 1) <= kFp8ExactSumLimit && r + 1 <= 16) ++r;  // e4m3 holds -16 .. 16
    return {r, 1};
  }
  return {1, (k + kFp8ExactSumLimit - 1) / kFp8ExactSumLimit};
}

enum class Fp8Set { Exact, Random };

// One operand set: A (m x k, row-major, lda = k) and B (k x n, column-major, ldb = k) as fp8, and their scales.
template <typename Fp8>
struct Fp8Operands {
  int m = 0, n = 0, k = 0;
  std::vector<Fp8> a, b;
  float scale_a = 1.0f, scale_b = 1.0f;
};

// The per-tensor scale that maps amax to the format's largest finite value; 1 for an all-zero tensor.
template <typename Fp8>
float fp8_tensor_scale(const std::vector<float>& x) {
  float amax = 0.0f;
  for (float v : x) amax = std::max(amax, std::fabs(v));
  return amax > 0.0f ? amax / fp8_max(kFp8FormatOf<Fp8>) : 1.0f;
}

// Quantizes x / scale to Fp8 (round to nearest even, saturating).
template <typename Fp8>
std::vector<Fp8> fp8_quantize(const std::vector<float>& x, float scale) {
  std::vector<Fp8> q(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) q[i] = ElementTraits<Fp8>::from_double(double(x[i]) / scale);
  return q;
}

template <typename Fp8>
Fp8Operands<Fp8> make_fp8_operands(int m, int n, int k, Fp8Set set, std::uint64_t seed) {
  if (m < 1 || n < 1 || k < 0) throw std::invalid_argument("fp8 operands need m, n >= 1 and k >= 0");
  Fp8Operands<Fp8> o;
  o.m = m, o.n = n, o.k = k;
  std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n);
  if (set == Fp8Set::Exact) {
    const Fp8ExactRange range = fp8_exact_range(k);
    fill_random_integers(a, seed, range.r);
    fill_random_integers(b, seed + 1, range.r);
    if (range.q > 1)
      for (int i = 0; i < m; ++i)
        for (int l = 0; l < k; ++l)
          if (l % range.q != i % range.q) a[std::size_t(i) * k + l] = 0.0f;
    // Powers of two, not 1: a kernel that drops or swaps a scale is off by a factor of 8 or 4.
    o.scale_a = 0.125f;
    o.scale_b = 4.0f;
    o.a = fp8_quantize<Fp8>(a, 1.0f);
    o.b = fp8_quantize<Fp8>(b, 1.0f);
  } else {
    fill_random(a, seed, Fill::Real);
    fill_random(b, seed + 1, Fill::Real);
    o.scale_a = fp8_tensor_scale<Fp8>(a);
    o.scale_b = fp8_tensor_scale<Fp8>(b);
    o.a = fp8_quantize<Fp8>(a, o.scale_a);
    o.b = fp8_quantize<Fp8>(b, o.scale_b);
  }
  return o;
}

// D = alpha * scale_a * scale_b * A * B + beta * C in fp64 on the dequantized operands (C: m x n column-major, ldc =
// m, empty when beta == 0). Every dequantized value is exact in double and every product too (4 + 24 significand
// bits), so the reference's own error is the DGEMM's sums', at most k * 2^-53 relative to the magnitude: not rounded
// in tc::compare's sense.
template <typename Fp8>
GemmReference fp8_reference(const CublasHandle& cublas, const Fp8Operands<Fp8>& o, double alpha, double beta,
                            const std::vector<double>& c) {
  std::vector<double> a(o.a.size()), b(o.b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = ElementTraits<Fp8>::to_double(o.a[i]) * o.scale_a;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = ElementTraits<Fp8>::to_double(o.b[i]) * o.scale_b;
  // A row-major m x k is cuBLAS's k x m column-major with op T; B column-major k x n with op N.
  const int ld = std::max(o.k, 1);  // cuBLAS's rule, where k = 0
  GemmReference ref =
      fp64_reference_gemm<double, double>(cublas, Op::T, Op::N, o.m, o.n, o.k, alpha, a, ld, b, ld, beta, c, o.m);
  ref.rounded = false;
  return ref;
}

// The random set's bound for a kernel that keeps the whole K-long sum in the fp8 accumulator (no promotion: step 1,
// and cuBLASLt's fast accumulation): with at least kFp8AccumulatorBits significand bits kept (the exact set's premise),
// each of at most k additions truncates by at most 2^-(bits - 1) of the partial sum, which mag bounds (tc/compare.hpp:
// the classical k-term bound with the accumulator's unit), and the output rounds once. It is a worst case and loose,
// like every k * u bound; the error random data really shows is reported beside it.
template <typename Out>
Tolerance fp8_unpromoted_tolerance() {
  return {std::ldexp(1.0, -(kFp8AccumulatorBits - 1)), ElementTraits<Out>::unit_roundoff};
}

// DeepGEMM's relative error and the largest absolute error of got (m x n, column-major, ld_got) against ref.
struct Fp8Errors {
  double relative = 0.0;
  double max_abs = 0.0;
};
template <typename T>
Fp8Errors fp8_errors(int m, int n, const T* got, int ld_got, const GemmReference& ref) {
  double xy = 0.0, squares = 0.0;
  Fp8Errors e;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      const double x = to_double(got[i + std::size_t(j) * ld_got]), y = ref.value[i + std::size_t(j) * ref.ld];
      xy += x * y;
      squares += x * x + y * y;
      const double d = std::fabs(x - y);
      if (!(d <= e.max_abs)) e.max_abs = d;  // NaN, too: it stays the largest
    }
  e.relative = squares > 0.0 ? 1.0 - 2.0 * xy / squares : 0.0;
  return e;
}

}  // namespace tc
