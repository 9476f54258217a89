// How every chapter checks a GEMM kernel, at every size it reports: three checks on two operand sets.
//
// 1. The exact check (ExactCheck). Operands are integers in [-r, r] (s8 and u8: their full range). Every product is
//    then an integer of magnitude <= r^2 and every partial sum of a K-term dot product one of magnitude <= r^2 * K,
//    which the accumulator holds exactly in any order and under any rounding mode while r^2 * K <= 2^p, p being its
//    significand bits (24 for fp32). exact_fill_max picks r from K so that r^2 * K <= 2^(p-3). The fp64 reference
//    of the same operands (the CPU, or one cuBLAS DGEMM above kCpuReferenceMaxMacs) is exact too, so a correct kernel
//    may differ from it only by its epilogue's rounding: the bound is 4 u_out * mag (Tolerance::exact_operands),
//    at most |alpha| / 2 + 4 u_out |beta| r, whatever K is. Any one product term dropped or counted twice changes an
//    element by |alpha * a * b| >= |alpha| (a and b nonzero integers), more than the bound, so it fails at every
//    size; so do a transposed operand, a wrong alpha or beta (by more than the bound), and an unwritten tile (C is
//    poisoned with NaN first, or holds the input C where beta != 0). Integer outputs must match exactly.
//    bf16 outputs accumulate in fp32 and round once to bf16, whose rounding (2^-8 |C|) hides one term wherever
//    |C| >= 256 |alpha|: their operands are integers in [-1, 1], so that |C| has a standard deviation of about
//    (2/3) sqrt(K) (60 at K = 8192) and nearly every element resolves a dropped term (tc/compare.hpp).
// 2. The random check (RandomOperands). Operands uniform in [-1, 1) (s8/u8: full range): the ones the chapters time,
//    since power draw, and so the clock, depends on the values. Compared with the fp64 reference of the same operands
//    under the K-scaled worst-case bound of tc/compare.hpp. That bound grows like K^2 with random data, so at large K
//    it cannot see a dropped K column (the exact check does); it reports the error real data shows and catches
//    gross precision loss (fp16 accumulation where fp32 was promised, a NaN).
// 3. The statistical check (statistical_rms_bound), on the same random operands: the root mean square of the error
//    over all elements must stay below
//        c * sqrt(K) * (u_in * |alpha| * RMS(a*b) + (u_acc + u_ref) * RMS(ref)) + u_out * RMS(ref),
//    u_in the unit roundoff of the input type (tf32's where the kernel reads fp32 as tf32), RMS(a*b) that of the K
//    products of each element, u_acc and u_out those of random_operand_tolerance, u_ref = 2^-53 the fp64 reference's
//    own, RMS(ref) that of the reference. Why sqrt(K): rounding errors of random data are independent and of either
//    sign, so K of them add like a random walk, and the error of a K-term dot product grows like sqrt(K) u, not K u,
//    with high probability (Higham and Mary, "A New Approach to Probabilistic Rounding Error Analysis", SIAM J. Sci.
//    Comput. 41(5), 2019). The first term is what rounding each input once more to its own precision would cost: a
//    kernel that silently reads fp16 inputs as bf16 (8 bits, not 11) errs about 8 * sqrt(2/3) = 6.5 times that term,
//    and one that reads tf32 inputs truncated to 8 bits more still. The correct kernels' inputs are exact and their
//    products exact in fp32, so only their sums (the second term, which for fp64 is also the reference's) and the
//    output's rounding (the third) remain, far below the first for 16-bit inputs. c = 1 (kStatisticalC) sits between
//    the two: a correct kernel stays well under it, and any lost input bit shows. The binaries and tests print each
//    kernel's RMS error beside its bound (CompareResult::rms_error, rms_bound).
// A chapter's verdict for a kernel is all three checks passing (GemmVerdict: the random check's result carries the
// statistical one). print_verification shows them, per kernel.
//
// Shapes and layouts: GemmProblem, cuBLAS's conventions (tc/reference.hpp): column-major storage, op N or T, lda, ldb,
// ldc in elements. A launch callable takes device pointers (const TIn* A, const TIn* B, TOut* C) and computes
// C = alpha * op(A) * op(B) + beta * C in place for the problem it was built for; it may be asynchronous.
// Errors: std::invalid_argument for bad sizes and for K too long to check exactly (exact_fill_max); tc::CudaError from
// CUDA and cuBLAS, out of memory among them. Memory: gemm_check_memory says what a pair of checks allocates.
// Sources: PTX ISA, "Floating Point Instructions" (round-to-nearest and the significand widths of f16, f32, f64);
// N. J. Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., section 3.1 (the dot-product bound).
#pragma once

#include "tc/check.hpp"
#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/memory.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"
#include "tc/types.hpp"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tc {

// One GEMM as cuBLAS states it: C = alpha * op(A) * op(B) + beta * C, op(A) m x k, op(B) k x n, C m x n.
struct GemmProblem {
  Op op_a = Op::N;
  Op op_b = Op::N;
  int m = 0, n = 0, k = 0;
  int lda = 1, ldb = 1, ldc = 1;
  double alpha = 1.0, beta = 0.0;

  // Elements of storage each operand spans: ld times the number of stored columns.
  std::size_t a_elements() const { return std::size_t(lda) * std::size_t(op_a == Op::N ? k : m); }
  std::size_t b_elements() const { return std::size_t(ldb) * std::size_t(op_b == Op::N ? n : k); }
  std::size_t c_elements() const { return std::size_t(ldc) * std::size_t(n); }

  // The problem with the smallest leading dimensions cuBLAS allows: max(1, rows of the stored matrix).
  static GemmProblem tight(Op op_a, Op op_b, int m, int n, int k, double alpha, double beta) {
    auto at_least_1 = [](int x) { return x > 1 ? x : 1; };
    return {op_a, op_b, m, n, k, at_least_1(op_a == Op::N ? m : k), at_least_1(op_b == Op::N ? k : n),
            at_least_1(m), alpha, beta};
  }
};

// ---- the exact check's arithmetic (host, pure) ----------------------------------------------------------------

// The largest r in {4, 2, 1} with r^2 * k <= 2^(p-3), p the significand bits of TOut (the accumulator: 24 for fp32,
// 11 for fp16, 53 for fp64). Then every sum is exact (r^2 * k <= 2^p) and the exact check's bound, 4 u * mag with
// mag <= |alpha| r^2 k + |beta| r, stays below |alpha| / 2 + 4 u |beta| r. fp32: r = 4 up to k = 131072, 2 up to
// 524288, 1 up to 2097152. Errors: std::invalid_argument for k < 0 or past the last (one line, naming the limit).
// bf16 outputs: fp32's limit for exact sums, and r = 1 always (see the header).
template <typename TOut>
int exact_fill_max(int k) {
  static_assert(!ElementTraits<TOut>::is_integer, "integer outputs are exact for full-range operands");
  constexpr bool kBf16Out = std::is_same_v<TOut, __nv_bfloat16>;
  const double limit = 0.125 / (kBf16Out ? ElementTraits<float>::unit_roundoff : ElementTraits<TOut>::unit_roundoff);
  if (kBf16Out && k >= 0 && double(k) <= limit) return 1;
  if (k < 0) throw std::invalid_argument("exact check: k must be >= 0, got " + std::to_string(k));
  for (int r : {4, 2, 1}) {
    if (double(r) * r * k <= limit) return r;
  }
  throw std::invalid_argument("k = " + std::to_string(k) + " is too long to check exactly with " +
                              ElementTraits<TOut>::name + " accumulation: integer operands need k <= " +
                              std::to_string(static_cast<long long>(limit)) + " (tc/gemm_check.hpp)");
}

// Does the exact check resolve one product term? Its largest bound must stay below |alpha|, the least a dropped or
// doubled term (|alpha * a * b| with nonzero integers a, b) moves an element.
inline bool resolves_one_term(const CompareResult& exact, double alpha) {
  return exact.largest_bound < std::fabs(alpha);
}

// The comparison the exact check makes, exposed so that tests can feed it any result: got (m x n, ld_got) against the
// exact reference of integer operands, under Tolerance::exact_operands<TOut> (exact for integer TOut).
template <typename TOut>
CompareResult compare_exact(const GemmProblem& p, const TOut* got, int ld_got, const GemmReference& reference) {
  const Tolerance tol = ElementTraits<TOut>::is_integer ? Tolerance::exact() : Tolerance::exact_operands<TOut>();
  return compare(p.m, p.n, p.k, got, ld_got, reference.value.data(), reference.magnitude.data(), reference.ld, tol);
}

// The tolerance of the random check: exact for integers, else the K-scaled bound of the accumulator TOut.
template <typename TOut>
Tolerance random_operand_tolerance() {
  if constexpr (ElementTraits<TOut>::is_integer) return Tolerance::exact();
  else if constexpr (std::is_same_v<TOut, double>) return Tolerance::fp64_accumulate();
  else if constexpr (std::is_same_v<TOut, __half>) return Tolerance::fp16_accumulate();
  else return Tolerance::fp32_accumulate<TOut>();
}

// ---- the statistical check's arithmetic (host, pure) ----------------------------------------------------------

// c of the statistical bound (the header says why 1).
inline constexpr double kStatisticalC = 1.0;

// What the statistical bound depends on, for one problem and one kernel.
struct StatisticalInputs {
  int k = 0;
  double alpha = 1.0;
  double u_in = 0.0;   // unit roundoff of what the kernel multiplies: the input type's, or tf32's
  double u_acc = 0.0;  // of the accumulator (random_operand_tolerance's u_acc)
  double u_out = 0.0;  // of the output type
  double u_ref = 0x1p-53;  // of the fp64 reference's own sums
  double rms_products = 0.0;   // RMS of the K products a_il * b_lj over every element (rms_of_products)
  double rms_reference = 0.0;  // RMS of the reference's elements
};

// The RMS error a kernel's result on random operands may show (the header's formula). Errors: none.
inline double statistical_rms_bound(const StatisticalInputs& s) {
  const double sums = (s.u_acc + s.u_ref) * s.rms_reference;
  return kStatisticalC * std::sqrt(double(s.k)) * (s.u_in * std::fabs(s.alpha) * s.rms_products + sums) +
         s.u_out * s.rms_reference;
}

// RMS of the products op(A)_il * op(B)_lj over all i < m, j < n, l < k: sqrt(sum_l (sum_i a_il^2)(sum_j b_lj^2) /
// (m n k)), in O((m + n) k). Shapes and layouts as GemmProblem. 0 where k = 0.
template <typename TIn>
double rms_of_products(const GemmProblem& p, const std::vector<TIn>& a, const std::vector<TIn>& b) {
  if (p.k == 0 || p.m == 0 || p.n == 0) return 0.0;
  double sum = 0.0;
  for (int l = 0; l < p.k; ++l) {
    double sa = 0.0, sb = 0.0;
    for (int i = 0; i < p.m; ++i) {
      const double x = to_double(p.op_a == Op::N ? a[i + std::size_t(l) * p.lda] : a[l + std::size_t(i) * p.lda]);
      sa += x * x;
    }
    for (int j = 0; j < p.n; ++j) {
      const double x = to_double(p.op_b == Op::N ? b[l + std::size_t(j) * p.ldb] : b[j + std::size_t(l) * p.ldb]);
      sb += x * x;
    }
    sum += sa * sb;
  }
  return std::sqrt(sum / (double(p.m) * p.n * p.k));
}

// RMS of the reference's m x n elements.
inline double rms_of_reference(const GemmProblem& p, const GemmReference& reference) {
  if (p.m == 0 || p.n == 0) return 0.0;
  double sum = 0.0;
  for (int j = 0; j < p.n; ++j)
    for (int i = 0; i < p.m; ++i) {
      const double x = reference.value[i + std::size_t(j) * reference.ld];
      sum += x * x;
    }
  return std::sqrt(sum / (double(p.m) * p.n));
}

// ---- references -------------------------------------------------------------------------------------------------

// Above this many multiply-adds the CPU reference (double, one core) takes seconds; cuBLAS DGEMM takes over.
inline constexpr double kCpuReferenceMaxMacs = 1 << 27;

inline bool reference_on_cpu(int m, int n, int k) { return double(m) * n * k <= kCpuReferenceMaxMacs; }

// The fp64 reference of p on host operands exactly as given: the CPU below kCpuReferenceMaxMacs, one cuBLAS DGEMM
// (tc::fp64_reference_gemm) above. Exact for integer-valued operands either way. C is not read when beta == 0.
template <typename TIn, typename TOut>
GemmReference reference_in_fp64(const CublasHandle& cublas, const GemmProblem& p, const std::vector<TIn>& a,
                                const std::vector<TIn>& b, const std::vector<TOut>& c) {
  const std::vector<TOut> no_c;
  const auto& used_c = p.beta != 0.0 ? c : no_c;
  if (reference_on_cpu(p.m, p.n, p.k)) {
    GemmReference r = reference_gemm(p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, a, p.lda, b, p.ldb, p.beta, used_c, p.ldc);
    r.rounded = std::is_same_v<TIn, double>;  // products of doubles round in double too
    return r;
  }
  return fp64_reference_gemm<TIn, TOut>(cublas, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, a, p.lda, b, p.ldb, p.beta,
                                        used_c, p.ldc);
}

namespace detail {

// Sets C as a run must find it (the input C when beta != 0, else poison, so an unwritten element fails), runs the
// launch, waits for it and returns what it wrote.
template <typename TIn, typename TOut, typename Launch>
std::vector<TOut> run_on(const GemmProblem& p, const DeviceBuffer<TIn>& a, const DeviceBuffer<TIn>& b,
                         DeviceBuffer<TOut>& c, const std::vector<TOut>& c_input, Launch&& launch) {
  p.beta != 0.0 ? c.upload(c_input) : c.poison();
  launch(a.data(), b.data(), c.data());
  check_launch();
  TC_CHECK(cudaDeviceSynchronize());  // so that an error inside the kernel surfaces here, with this call site
  return c.download();
}

}  // namespace detail

// ---- the two checks (host code that drives the GPU) -------------------------------------------------------------

// The exact check of one problem: integer operands made and uploaded once, their exact reference computed once; run()
// checks any number of kernels against them. Host operands are dropped after upload; tests that mutate a result
// read them back with a(), b(), c_input().
template <typename TIn, typename TOut>
class ExactCheck {
 public:
  ExactCheck(const CublasHandle& cublas, const GemmProblem& p, std::uint64_t seed) : p_(p) {
    validate_gemm_arguments(p.op_a, p.op_b, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.ldc);
    std::vector<TIn> a(p.a_elements()), b(p.b_elements());
    c_input_.resize(p.c_elements());
    if constexpr (ElementTraits<TOut>::is_integer) {
      fill_max_ = 0;  // full range
      fill_random(a, seed, Fill::Real);
      fill_random(b, seed + 1, Fill::Real);
      fill_random(c_input_, seed + 2, Fill::Real);
    } else {
      fill_max_ = exact_fill_max<TOut>(p.k);
      fill_random_integers(a, seed, fill_max_);
      fill_random_integers(b, seed + 1, fill_max_);
      fill_random_integers(c_input_, seed + 2, fill_max_);
    }
    reference_ = reference_in_fp64<TIn, TOut>(cublas, p, a, b, c_input_);
    a_ = DeviceBuffer<TIn>(a);
    b_ = DeviceBuffer<TIn>(b);
    c_ = DeviceBuffer<TOut>(c_input_.size());
  }

  // Runs launch(A, B, C) on the integer operands (C poisoned, or the input C where beta != 0) and compares exactly.
  template <typename Launch>
  CompareResult run(Launch&& launch) {
    output_ = detail::run_on(p_, a_, b_, c_, c_input_, std::forward<Launch>(launch));
    return compare_exact(p_, output_.data(), p_.ldc, reference_);
  }
  // What the last run wrote: all of C's storage (ldc x n), rows past m included.
  const std::vector<TOut>& last_output() const { return output_; }

  const GemmProblem& problem() const { return p_; }
  // "[-r, r]", or "full <type>" for integer types, whose operands span their full range.
  std::string operand_range() const {
    return fill_max_ == 0 ? std::string("full ") + ElementTraits<TIn>::name
                          : "[-" + std::to_string(fill_max_) + ", " + std::to_string(fill_max_) + "]";
  }
  std::vector<TIn> a() const { return a_.download(); }
  std::vector<TIn> b() const { return b_.download(); }
  const std::vector<TOut>& c_input() const { return c_input_; }

 private:
  GemmProblem p_;
  int fill_max_ = 0;  // r of [-r, r]; 0 for integer types
  std::vector<TOut> c_input_, output_;
  GemmReference reference_;
  DeviceBuffer<TIn> a_, b_;
  DeviceBuffer<TOut> c_;
};

// How the kernel reads its inputs: as given, or rounded to tf32 (the WMMA tf32 path), which the reference must see.
enum class InputRounding { None, Tf32 };

// The random check of one problem, and the operands the chapters time: uniform in [-1, 1) (s8/u8: full range), on the
// device for as long as the object lives, with their fp64 reference (on the tf32-rounded values where asked).
template <typename TIn, typename TOut>
class RandomOperands {
 public:
  RandomOperands(const CublasHandle& cublas, const GemmProblem& p, std::uint64_t seed,
                 InputRounding rounding = InputRounding::None)
      : p_(p) {
    validate_gemm_arguments(p.op_a, p.op_b, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.ldc);
    std::vector<TIn> a(p.a_elements()), b(p.b_elements());
    c_input_.resize(p.c_elements());
    fill_random(a, seed, Fill::Real);
    fill_random(b, seed + 1, Fill::Real);
    fill_random(c_input_, seed + 2, Fill::Real);
    a_ = DeviceBuffer<TIn>(a);
    b_ = DeviceBuffer<TIn>(b);
    c_ = DeviceBuffer<TOut>(c_input_.size());
    double u_in = ElementTraits<TIn>::unit_roundoff;
    if constexpr (std::is_same_v<TIn, float>) {
      if (rounding == InputRounding::Tf32) {
        for (float& x : a) x = round_to_tf32(x);
        for (float& x : b) x = round_to_tf32(x);
        u_in = 0x1p-11;  // tf32 keeps 10 of fp32's 23 fraction bits
      }
    }
    reference_ = reference_in_fp64<TIn, TOut>(cublas, p, a, b, c_input_);
    const Tolerance tol = random_operand_tolerance<TOut>();
    statistics_ = {p.k, p.alpha, u_in, tol.u_acc, tol.u_out, 0x1p-53, rms_of_products(p, a, b),
                   rms_of_reference(p, reference_)};
  }

  // Runs launch(A, B, C) on these operands and compares with the K-scaled bound (random_operand_tolerance); for
  // floating-point outputs the result's RMS error must also stay within statistical_rms_bound.
  template <typename Launch>
  CompareResult check(Launch&& launch) {
    output_ = detail::run_on(p_, a_, b_, c_, c_input_, std::forward<Launch>(launch));
    CompareResult r = compare(p_.m, p_.n, p_.k, output_.data(), p_.ldc, reference_, random_operand_tolerance<TOut>());
    if constexpr (!ElementTraits<TOut>::is_integer) {
      r.rms_bound = statistical_rms_bound(statistics_);
      r.passed = r.passed && r.rms_error <= r.rms_bound;  // a NaN rms_error fails too
    }
    return r;
  }
  // What the statistical bound of these operands is made of.
  const StatisticalInputs& statistics() const { return statistics_; }
  // What the last check's run wrote: all of C's storage (ldc x n), rows past m included.
  const std::vector<TOut>& last_output() const { return output_; }
  const std::vector<TOut>& c_input() const { return c_input_; }

  // The device operands, for timing. reset_c() puts C back as a run must find it (input C, or poison).
  const TIn* a() const { return a_.data(); }
  const TIn* b() const { return b_.data(); }
  TOut* c() { return c_.data(); }
  void reset_c() { p_.beta != 0.0 ? c_.upload(c_input_) : c_.poison(); }
  const GemmProblem& problem() const { return p_; }

 private:
  GemmProblem p_;
  std::vector<TOut> c_input_, output_;
  GemmReference reference_;
  StatisticalInputs statistics_;
  DeviceBuffer<TIn> a_, b_;
  DeviceBuffer<TOut> c_;
};

// ---- verdicts ---------------------------------------------------------------------------------------------------

// One kernel's verdict on one problem: both checks must pass.
struct GemmVerdict {
  CompareResult exact;   // integer operands, exact reference (ExactCheck::run)
  CompareResult random;  // random operands, fp64 reference, K-scaled bound and RMS bound (RandomOperands::check)
  std::string exact_range;  // ExactCheck::operand_range()
  bool passed() const { return exact.passed && random.passed; }
};

// Both checks of one kernel on one problem, with the operand sets a chapter already holds.
template <typename TIn, typename TOut, typename Launch>
GemmVerdict check_gemm(ExactCheck<TIn, TOut>& exact, RandomOperands<TIn, TOut>& random, Launch&& launch) {
  GemmVerdict v;
  v.exact = exact.run(launch);
  v.random = random.check(launch);
  v.exact_range = exact.operand_range();
  return v;
}

// One row of the verification table: what was checked (kernel, size, type: the chapter's words) and its verdict.
struct VerificationRow {
  std::string what;
  GemmVerdict verdict;
  double alpha = 1.0;
};

// The verification table, then a legend that says what each check can and cannot catch, the worst element of every
// check that failed (CompareResult::summary), and one line for any row whose exact check cannot resolve a single
// product term (resolves_one_term). `what_header` heads the first column.
std::string format_verification(const std::string& what_header, const std::vector<VerificationRow>& rows);
void print_verification(const std::string& what_header, const std::vector<VerificationRow>& rows);

// ---- memory -----------------------------------------------------------------------------------------------------

// What an ExactCheck and a RandomOperands of p allocate while both live, at the peak (the second one's reference):
// host: both references (value and magnitude, doubles), the input C and the last output each keeps, one operand set
// being made and its widest fp64 copy; device: both operand sets, plus DGEMM's fp64 copies of A, B, C and D where
// the reference runs on the GPU. Errors: tc::TooLargeError if a count overflows 64 bits.
template <typename TIn, typename TOut>
MemoryNeed gemm_check_memory(const GemmProblem& p) {
  const std::uint64_t a = checked_bytes(p.a_elements(), sizeof(TIn));
  const std::uint64_t b = checked_bytes(p.b_elements(), sizeof(TIn));
  const std::uint64_t c = checked_bytes(p.c_elements(), sizeof(TOut));
  const std::uint64_t ref_elems = checked_bytes(std::uint64_t(p.m > 1 ? p.m : 1), std::uint64_t(p.n));
  const std::uint64_t reference = checked_bytes(ref_elems, 2 * sizeof(double));
  std::uint64_t widest = p.a_elements();
  if (p.b_elements() > widest) widest = p.b_elements();
  if (p.c_elements() > widest) widest = p.c_elements();
  MemoryNeed need;
  need.host_bytes = checked_sum({reference, reference, c, c, c, c, a, b, c, checked_bytes(widest, sizeof(double))});
  need.device_bytes = checked_sum({a, b, c, a, b, c});
  if (!reference_on_cpu(p.m, p.n, p.k)) {
    need.device_bytes = checked_sum({need.device_bytes, checked_bytes(p.a_elements(), sizeof(double)),
                                     checked_bytes(p.b_elements(), sizeof(double)),
                                     checked_bytes(p.c_elements(), sizeof(double)),
                                     checked_bytes(ref_elems, sizeof(double))});
  }
  return need;
}

}  // namespace tc
