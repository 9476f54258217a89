// Comparing a computed matrix with a reference, with a documented per-type tolerance that scales with K.
//
// Element (i, j) passes when
//     |got_ij - ref_ij| <= k * u_acc * mag_ij + u_out * |ref_ij|
// where mag_ij = |alpha| * sum_l |op(A)_il * op(B)_lj| + |beta| * |C_ij| (tc::reference_gemm computes it), u_acc is
// the unit roundoff of the accumulator and u_out that of the output type (tc::ElementTraits). This is the classical
// forward-error bound of a k-term dot product (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
// section 3.1): each of at most k additions may err by u_acc relative to the largest partial sum, which mag bounds.
// Tensor cores accumulate fp32 with truncation rather than round-to-nearest, which doubles the per-addition error,
// so fp32 accumulation uses u_acc = 2^-23 (twice fp32's 2^-24). Integer results must be exact (both units 0).
// NaN never passes, which is how an output element nobody wrote (poisoned with NaN) fails.
// The bound is a worst case and is loose for random data at large K; integer-valued inputs (tc::Fill::Integer) make
// the fp32 result exact, so indexing bugs fail exactly whatever the tolerance.
// Shapes and layouts: got, ref and mag are m x n, column-major, with leading dimensions ld_got, ld_ref (ref and mag
// share it). Errors: none; the result says what failed.
#pragma once

#include "tc/reference.hpp"
#include "tc/types.hpp"

#include <cstdint>
#include <string>

namespace tc {

struct Tolerance {
  double u_acc = 0.0;  // per-addition relative error of the accumulator
  double u_out = 0.0;  // relative error of the final conversion to the output type

  static Tolerance exact() { return {}; }
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

  // One line, e.g. "PASS: 256/256 within tolerance; worst |err| 0 at (0, 0): got 5, want 5 (bound 0)".
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
