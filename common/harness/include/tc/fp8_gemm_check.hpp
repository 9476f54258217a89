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
#include "tc/layouts/block_scale.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/gemm_check.hpp"  // rms_of_reference
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
// l % q == i % q. `largest`: the largest integer the format holds with every integer below it, 2^(mantissa bits + 1)
// (fp8_largest_exact_integer): 16 for e4m3, 8 for e5m2.
struct Fp8ExactRange {
  int r = 1;
  int q = 1;
};
inline Fp8ExactRange fp8_exact_range(int k, int largest = 16) {
  if (k <= kFp8ExactSumLimit) {
    int r = 1;
    while (std::int64_t(k) * (r + 1) * (r + 1) <= kFp8ExactSumLimit && r + 1 <= largest) ++r;
    return {r, 1};
  }
  return {1, (k + kFp8ExactSumLimit - 1) / kFp8ExactSumLimit};
}
inline constexpr int fp8_largest_exact_integer(const Fp8Format& f) { return 2 << f.man_bits; }

enum class Fp8Set { Exact, Random };

// One operand set: A (m x k, row-major, lda = k) and B (k x n, column-major, ldb = k) as fp8, and their scales: one
// per tensor, or (block) one per row of A and K group in sa and one per 128 x 128 block of B in sb, stored as
// tc/layouts/block_scale.hpp says with ld_sa = m and ld_sb = scale_groups(k).
template <typename Fp8>
struct Fp8Operands {
  int m = 0, n = 0, k = 0;
  std::vector<Fp8> a, b;
  float scale_a = 1.0f, scale_b = 1.0f;
  bool block = false;
  std::vector<float> sa, sb;
  int ld_sa() const { return m; }
  int ld_sb() const { return scale_groups(k); }
  // The real value element (i, l) of A, and (l, j) of B, stand for: the fp8 value times its scale.
  double a_value(int i, int l) const {
    const double s = block ? sa[a_scale_index(i, l / kScaleBlockK, ld_sa())] : scale_a;
    return ElementTraits<Fp8>::to_double(a[std::size_t(i) * k + l]) * s;
  }
  double b_value(int l, int j) const {
    const double s = block ? sb[b_scale_index(j, l / kScaleBlockK, ld_sb())] : scale_b;
    return ElementTraits<Fp8>::to_double(b[std::size_t(j) * k + l]) * s;
  }
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

// DeepSeek-V3's quantizer on the host: A (m x k, row-major) in 1 x 128 blocks along K, B (k x n, column-major) in
// 128 x 128 blocks, each block's scale block_scale_for_amax of its largest magnitude, every value rounded to nearest
// even and saturated (tc::fp8_encode). The scales go into sa and sb (block_scale.hpp's layout, dense).
template <typename Fp8>
void fp8_quantize_blocks(const std::vector<float>& a, const std::vector<float>& b, Fp8Operands<Fp8>& o) {
  const int m = o.m, n = o.n, k = o.k, groups = scale_groups(k), blocks = scale_column_blocks(n);
  o.block = true;
  o.sa.assign(std::size_t(groups) * o.ld_sa(), 1.0f);
  o.sb.assign(std::size_t(blocks) * o.ld_sb(), 1.0f);
  o.a.resize(a.size());
  o.b.resize(b.size());
  for (int g = 0; g < groups; ++g) {
    const int l0 = g * kScaleBlockK, l1 = std::min(k, l0 + kScaleBlockK);
    for (int i = 0; i < m; ++i) {
      float amax = 0.0f;
      for (int l = l0; l < l1; ++l) amax = std::max(amax, std::fabs(a[std::size_t(i) * k + l]));
      const float s = o.sa[a_scale_index(i, g, o.ld_sa())] = block_scale_for_amax(amax, kFp8FormatOf<Fp8>);
      for (int l = l0; l < l1; ++l) {
        const std::size_t at = std::size_t(i) * k + l;
        o.a[at] = ElementTraits<Fp8>::from_double(a[at] / s);
      }
    }
    for (int jb = 0; jb < blocks; ++jb) {
      const int j0 = jb * kScaleBlockK, j1 = std::min(n, j0 + kScaleBlockK);
      float amax = 0.0f;
      for (int j = j0; j < j1; ++j)
        for (int l = l0; l < l1; ++l) amax = std::max(amax, std::fabs(b[std::size_t(j) * k + l]));
      const float s = o.sb[b_scale_index(j0, g, o.ld_sb())] = block_scale_for_amax(amax, kFp8FormatOf<Fp8>);
      for (int j = j0; j < j1; ++j)
        for (int l = l0; l < l1; ++l) {
          const std::size_t at = std::size_t(j) * k + l;
          o.b[at] = ElementTraits<Fp8>::from_double(b[at] / s);
        }
    }
  }
}

// The block-scaled sets: the exact set's values (above) with every block's scale a power of two in {1/2, 1, 2}, drawn
// at random, so that a scale applied to the wrong block or row, or dropped, changes the sum, while every partial sum
// times its factor, and their fp32 sum, stay exact (at most 2^11 x 4, in units of 1/4: 15 bits); or the random set's
// reals, each 1 x 128 block of A and 128 x 128 block of B first multiplied by 2^e, e uniform in [-4, 4] (magnitudes
// that differ from block to block, which per-tensor scales lose precision on), then quantized by fp8_quantize_blocks.
template <typename Fp8>
Fp8Operands<Fp8> make_fp8_block_operands(int m, int n, int k, Fp8Set set, std::uint64_t seed);

template <typename Fp8>
Fp8Operands<Fp8> make_fp8_operands(int m, int n, int k, Fp8Set set, std::uint64_t seed) {
  if (m < 1 || n < 1 || k < 0) throw std::invalid_argument("fp8 operands need m, n >= 1 and k >= 0");
  Fp8Operands<Fp8> o;
  o.m = m, o.n = n, o.k = k;
  std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n);
  if (set == Fp8Set::Exact) {
    const Fp8ExactRange range = fp8_exact_range(k, fp8_largest_exact_integer(kFp8FormatOf<Fp8>));
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

template <typename Fp8>
Fp8Operands<Fp8> make_fp8_block_operands(int m, int n, int k, Fp8Set set, std::uint64_t seed) {
  if (m < 1 || n < 1 || k < 0) throw std::invalid_argument("fp8 operands need m, n >= 1 and k >= 0");
  if (set == Fp8Set::Exact) {
    Fp8Operands<Fp8> o = make_fp8_operands<Fp8>(m, n, k, Fp8Set::Exact, seed);
    o.block = true;
    o.sa.resize(std::size_t(scale_groups(k)) * o.ld_sa());
    o.sb.resize(std::size_t(scale_column_blocks(n)) * o.ld_sb());
    std::vector<float> e(o.sa.size() + o.sb.size());
    fill_random_integers(e, seed + 5, 1);  // exponents in {-1, 0, 1}
    for (std::size_t i = 0; i < o.sa.size(); ++i) o.sa[i] = std::ldexp(1.0f, int(e[i]));
    for (std::size_t i = 0; i < o.sb.size(); ++i) o.sb[i] = std::ldexp(1.0f, int(e[o.sa.size() + i]));
    return o;
  }
  Fp8Operands<Fp8> o;
  o.m = m, o.n = n, o.k = k;
  std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n);
  fill_random(a, seed, Fill::Real);
  fill_random(b, seed + 1, Fill::Real);
  std::vector<float> e(std::size_t(scale_groups(k)) * (m + scale_column_blocks(n)));
  fill_random_integers(e, seed + 2, 4);  // block magnitudes 2^-4 .. 2^4
  for (int i = 0; i < m; ++i)
    for (int l = 0; l < k; ++l)
      a[std::size_t(i) * k + l] *= std::ldexp(1.0f, int(e[std::size_t(l / kScaleBlockK) * m + i]));
  const std::size_t b_first = std::size_t(scale_groups(k)) * m;
  for (int j = 0; j < n; ++j)
    for (int l = 0; l < k; ++l)
      b[std::size_t(j) * k + l] *= std::ldexp(
          1.0f, int(e[b_first + std::size_t(j / kScaleBlockK) * scale_groups(k) + l / kScaleBlockK]));
  fp8_quantize_blocks(a, b, o);
  return o;
}

// D = alpha * A * B + beta * C in fp64 on the dequantized operands (each fp8 value times its scale: Fp8Operands's
// a_value and b_value; C: m x n column-major, ldc = m, empty when beta == 0). Every dequantized value is exact in
// double and every product too (4 + 24 significand bits), so the reference's own error is the DGEMM's sums', at most
// k * 2^-53 relative to the magnitude: not rounded in tc::compare's sense.
template <typename Fp8>
GemmReference fp8_reference(const CublasHandle& cublas, const Fp8Operands<Fp8>& o, double alpha, double beta,
                            const std::vector<double>& c) {
  std::vector<double> a(o.a.size()), b(o.b.size());
  for (int i = 0; i < o.m; ++i)
    for (int l = 0; l < o.k; ++l) a[std::size_t(i) * o.k + l] = o.a_value(i, l);
  for (int j = 0; j < o.n; ++j)
    for (int l = 0; l < o.k; ++l) b[std::size_t(j) * o.k + l] = o.b_value(l, j);
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

// The random set's statistical bound (the third check of tc/gemm_check.hpp, made for fp8): the RMS error over all
// elements must stay below
//     2^-(bits - 1) * |alpha| * RMS(a*b) * sqrt(k * I) + u_out * RMS(ref)
// with `bits` the significand bits the accumulator keeps (step 2's probe measures them on the GPU at hand), I the
// promotion interval (128 for a kernel that promotes every slice; k for one that keeps the whole sum in the fp8
// accumulator), RMS(a*b) that of the K dequantized products of each element (fp8_rms_of_products) and RMS(ref) that of
// the reference. Why: each product is aligned to the largest magnitude of its instruction's sum and cut to `bits`
// bits, an error of at most 2^-(bits - 1) of that magnitude; within an interval the running sum of random products
// grows like sqrt(t) RMS(a*b), so the I cuts of one interval add up, as a random walk, to about 2^-(bits - 1) RMS(a*b)
// I / sqrt(6), and the k / I intervals' independent errors to sqrt(k / I) times that: 2^-(bits - 1) RMS(a*b)
// sqrt(k I / 6). The bound drops the 1/sqrt(6), a margin of 2.4. What it separates: a kernel that promotes every 128
// stays under it, and the same kernel without promotion, whose intervals are k long, errs sqrt(k / 128) times more
// (11 at k = 16384): the planted test's point, made with fp32 D, since at that k a bf16 D's rounding (the second
// term) outweighs the first. Errors: none.
inline double fp8_statistical_rms_bound(int k, int interval, int bits, double alpha, double rms_products,
                                        double rms_reference, double u_out) {
  const double i = double(std::min(std::max(interval, 1), std::max(k, 1)));
  return std::ldexp(1.0, -(bits - 1)) * std::fabs(alpha) * rms_products * std::sqrt(double(k) * i) +
         u_out * rms_reference;
}

// RMS of the dequantized products a_il * b_lj over all i < m, j < n, l < k: sqrt(sum_l (sum_i a_il^2)(sum_j b_lj^2) /
// (m n k)), in O((m + n) k). 0 where k = 0.
template <typename Fp8>
double fp8_rms_of_products(const Fp8Operands<Fp8>& o) {
  if (o.k == 0) return 0.0;
  double sum = 0.0;
  for (int l = 0; l < o.k; ++l) {
    double sa = 0.0, sb = 0.0;
    for (int i = 0; i < o.m; ++i) sa += o.a_value(i, l) * o.a_value(i, l);
    for (int j = 0; j < o.n; ++j) sb += o.b_value(l, j) * o.b_value(l, j);
    sum += sa * sb;
  }
  return std::sqrt(sum / (double(o.m) * o.n * o.k));
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
