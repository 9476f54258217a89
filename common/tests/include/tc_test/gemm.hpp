// What the chapters' GPU tests share for a GEMM kernel: the chapters' own two checks (tc/gemm_check.hpp) on fresh
// operands, and whether C's padding rows (rows m..ldc-1 of each column) came back bit for bit as they went in.
//
// check_both(cublas, p, seed, launch) builds an ExactCheck and a RandomOperands of problem p and runs launch(A, B, C)
// on each (launch as in tc/gemm_check.hpp); both must pass, and neither run may touch C's padding. check_launcher<Gemm>
// does that for a tc/padded_gemm.hpp kernel type through tc::launch_gemm_any_size, with Catch2 CHECKs. Errors: those
// of tc/gemm_check.hpp.
#pragma once

#include "tc/gemm_check.hpp"
#include "tc/padded_gemm.hpp"
#include "tc_test/catch.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace tc::test {

struct GemmCheckOutcome {
  GemmVerdict verdict;
  bool padding_untouched = true;
};

// Rows m..ldc-1 of `out` hold, bit for bit, what they held before the run: the input C where beta != 0, else the
// poison DeviceBuffer::poison writes (bytes 0xFF for floating types, 0x80 for integers).
template <typename T>
bool padding_untouched(const GemmProblem& p, const std::vector<T>& out, const std::vector<T>& c_input) {
  T poison;
  std::memset(static_cast<void*>(&poison), std::is_integral_v<T> ? 0x80 : 0xFF, sizeof poison);
  for (int j = 0; j < p.n; ++j)
    for (int i = p.m; i < p.ldc; ++i) {
      const std::size_t e = std::size_t(j) * p.ldc + i;
      const T& before = p.beta != 0.0 ? c_input[e] : poison;
      if (std::memcmp(&out[e], &before, sizeof(T)) != 0) return false;
    }
  return true;
}

template <typename TIn, typename TOut, typename Launch>
GemmCheckOutcome check_both(const CublasHandle& cublas, const GemmProblem& p, std::uint64_t seed, Launch&& launch,
                            InputRounding rounding = InputRounding::None) {
  ExactCheck<TIn, TOut> exact(cublas, p, seed);
  RandomOperands<TIn, TOut> random(cublas, p, seed + 3, rounding);
  GemmCheckOutcome outcome;
  outcome.verdict = check_gemm(exact, random, launch);
  outcome.padding_untouched = padding_untouched(p, exact.last_output(), exact.c_input()) &&
                              padding_untouched(p, random.last_output(), random.c_input());
  return outcome;
}

// Gemm (a tc/padded_gemm.hpp kernel type) on (m, n, k, alpha, beta) through tc::launch_gemm_any_size and both checks,
// with the tightest leading dimensions, or lda = ldb = ld_ab where ld_ab > 0 (for operands stored K-contiguous, as
// chapters 07 and 08 store them); CHECKs that both pass and that C's padding is untouched.
template <typename Gemm>
void check_launcher(const CublasHandle& cublas, int m, int n, int k, double alpha, double beta, std::uint64_t seed,
                    int ld_ab = 0) {
  using In = typename Gemm::Precision::Input;
  using Out = output_t<typename Gemm::Precision>;
  using Acc = typename Gemm::Precision::Accumulator;
  GemmProblem p = GemmProblem::tight(op_of<typename Gemm::LayoutA>(), op_of<typename Gemm::LayoutB>(), m, n, k, alpha,
                                     beta);
  if (ld_ab > 0) p.lda = p.ldb = ld_ab;
  const GemmCheckOutcome r = check_both<In, Out>(cublas, p, seed, [&](const In* A, const In* B, Out* C) {
    launch_gemm_any_size<Gemm>(m, n, k, Acc(alpha), A, p.lda, B, p.ldb, Acc(beta), C, p.ldc, nullptr);
  });
  INFO(Gemm::name << " " << Gemm::Precision::name << " " << m << "x" << n << "x" << k << " lda " << p.lda << " alpha "
                  << alpha << " beta " << beta << "\nexact:  " << r.verdict.exact.summary()
                  << "\nrandom: " << r.verdict.random.summary());
  CHECK(r.verdict.passed());
  CHECK(r.padding_untouched);
}

}  // namespace tc::test
