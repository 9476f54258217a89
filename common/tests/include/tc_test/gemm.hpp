// What the chapters' GPU tests share for a GEMM kernel: the chapters' own two checks (tc/gemm_check.hpp) on fresh
// operands, and whether C's padding rows (rows m..ldc-1 of each column) came back bit for bit as they went in.
//
// check_both(cublas, p, seed, launch) builds an ExactCheck and a RandomOperands of problem p and runs launch(A, B, C)
// on each (launch as in tc/gemm_check.hpp); both must pass, and neither run may touch C's padding. Errors: those of
// tc/gemm_check.hpp.
#pragma once

#include "tc/gemm_check.hpp"

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

}  // namespace tc::test
