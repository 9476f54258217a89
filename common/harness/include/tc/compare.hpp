// Comparing a computed matrix with a reference, with a documented per-type tolerance.
//
// Element (i, j) passes when
//     |got_ij - ref_ij| <= (k * u_acc + u_mag) * mag_ij + u_out * |ref_ij|
// where mag_ij = |alpha| * sum_l |op(A)_il * op(B)_lj| + |beta| * |C_ij| (tc::reference_gemm computes it).
// Two uses, two tolerances:
//   - random real operands (Tolerance::fp32_accumulate and kin): u_acc is the unit roundoff of the accumulator and
//     u_out that of the output type (tc::ElementTraits), u_mag = 0. This is the classical forward-error bound of a
//     k-term dot product (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., section 3.1): each of at
//     most k additions may err by u_acc relative to the largest partial sum, which mag bounds. Tensor cores accumulate
//     fp32 with truncation rather than round-to-nearest, which doubles the per-addition error, so fp32 accumulation
//     uses u_acc = 2^-23 (twice fp32's 2^-24). It is a worst case: with random data mag grows like k, so the bound
//     grows like k^2 while a real error (one K column dropped) stays of order 1, and at large k it catches nothing
//     of the kind. It is reported beside the error random data really shows, never relied on alone.
//   - integer-valued operands (Tolerance::exact_operands, tc/gemm_check.hpp): every product and partial sum is an
//     integer the accumulator holds exactly, so only the epilogue (alpha, beta, the output's rounding) rounds: u_acc =
//     u_out = 0 and u_mag = 4 u of the output type, a bound that does not grow with k. This is the check that fails on
//     a dropped or doubled K column at every size. bf16 outputs (fp32 accumulation, one rounding to bf16 at the end,
//     tc::BF16F32BF16) are the exception: the epilogue computes in fp32 (u_mag = 4 * 2^-24) and then rounds once to
//     bf16 (u_out = 2^-8 times |ref|), so one product term is resolved where |ref| < 2^8 |alpha|, which the exact
//     check's operands in [-1, 1] keep for nearly every element (tc/gemm_check.hpp).
// Integer results must be exact (every unit 0). NaN never passes, which is how an output element nobody wrote
// (poisoned with NaN) fails.
// Shapes and layouts: got, ref and mag are m x n, column-major, with leading dimensions ld_got, ld_ref (ref and mag
// share it). Errors: none; the result says what failed.
#pragma once

#include "tc/reference.hpp"
#include "tc/types.hpp"

#include <cstdint>
#include <string>
#include <type_traits>

namespace tc {

struct Tolerance {
  double u_acc = 0.0;  // per-addition relative error of the accumulator (times k, times mag)
  double u_out = 0.0;  // relative error of the final conversion to the output type (times |ref|)
  double u_mag = 0.0;  // a fixed relative error of the whole result (times mag): the epilogue's, when sums are exact

  static Tolerance exact() { return {}; }
  // Integer-valued operands whose sums the accumulator holds exactly (tc/gemm_check.hpp): only the epilogue rounds.
  // D = alpha * s + beta * c in TOut with alpha and beta rounded to TOut takes at most 3 roundings of at most
  // u(TOut) relative to |alpha * s| + |beta * c| <= mag, plus terms in u^2; 4 u covers them with room.
  template <typename TOut>
  static Tolerance exact_operands() {
    if constexpr (std::is_same_v<TOut, __nv_bfloat16>) return {0.0, ElementTraits<TOut>::unit_roundoff, 4.0 * 0x1p-24};
    return {0.0, 0.0, 4.0 * ElementTraits<TOut>::unit_roundoff};
  }
  // fp32 accumulation on tensor cores (truncating adds), output stored as TOut.
  template <typename TOut>
  static Tolerance fp32_accumulate() {
    return {0x1p-23, ElementTraits<TOut>::unit_roundoff};
  }
  // fp16 accumulation (mma.sync's .f16 C/D), output fp16: fp16's 2^-11 doubled for the adds, as for fp32, because
  // the tensor cores' rounding of fp16 sums is not documented either.
  static Tolerance fp16_accumulate() { return {0x1p-10, 0x1p-11}; }
  static Tolerance fp64_accumulate() { return {0x1p-52, 0x1p-53}; }
};

struct CompareResult {
  bool passed = true;
  std::int64_t checked = 0;
  std::int64_t failures = 0;  // elements over their bound, NaN included
  // The worst element: the largest error relative to its bound (any failure is worse than any pass).
  int worst_row = -1;
  int worst_col = -1;
  double worst_got = 0.0;
  double worst_ref = 0.0;
  double worst_error = 0.0;
  double worst_bound = 0.0;
  // The largest bound over all elements: every error above it fails wherever it lands (the check's resolution).
  double largest_bound = 0.0;
  // The root mean square of |got - ref| over all elements (NaN where one is NaN), and the bound the statistical check
  // holds it to (tc/gemm_check.hpp, random operands only); rms_bound < 0: no statistical check was made.
  double rms_error = 0.0;
  double rms_bound = -1.0;

  // One line, e.g. "PASS: 256/256 within tolerance; worst |err| 0 at (0, 0): got 5, want 5 (bound 0)", and, where a
  // statistical check was made, "; rms error 3.1e-05 (bound 0.0104)".
  std::string summary() const;
};

template <typename T>
CompareResult compare(int m, int n, int k, const T* got, int ld_got, const double* ref, const double* mag, int ld_ref,
                      Tolerance tol);

// Against a GemmReference. When the reference is itself rounded (reference.rounded, e.g. cuBLAS in fp32), both it
// and `got` may each be off by up to k * u_acc * mag, so u_acc is doubled.
template <typename T>
CompareResult compare(int m, int n, int k, const T* got, int ld_got, const GemmReference& reference, Tolerance tol) {
  if (reference.rounded) tol.u_acc *= 2.0;
  return compare(m, n, k, got, ld_got, reference.value.data(), reference.magnitude.data(), reference.ld, tol);
}

}  // namespace tc
