// What the chapters' GPU tests share for a GEMM kernel: the chapters' own two checks (tc/gemm_check.hpp) on fresh
// operands, and whether C's padding rows (rows m..ldc-1 of each column) came back bit for bit as they went in.
//
// check_both(cublas, p, seed, launch) builds an ExactCheck and a RandomOperands of problem p and runs launch(A, B, C)
// on each (launch as in tc/gemm_check.hpp); both must pass, and neither run may touch C's padding. check_launcher<Gemm>
// does that for a tc/padded_gemm.hpp kernel type through tc::launch_gemm_any_size, with Catch2 CHECKs.
// gemm_scales<TIn>() is the (alpha, beta) list every GEMM's tests run, and with_padding(p, ...) gives a problem
// leading dimensions larger than the minimum, so that C has padding rows to check. Errors: those of
// tc/gemm_check.hpp.
#pragma once

#include "tc/gemm_check.hpp"
#include "tc/padded_gemm.hpp"
#include "tc_test/catch.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tc::test {

// The (alpha, beta) pairs every GEMM's tests run. Floating point: (1, 0), C not read; (0.5, 2), scales exact in every
// type; (0.3, -1.7), exact in neither fp16 nor bf16 (nor fp32), so a kernel that rounds alpha or beta to 16 bits moves
// every element by about 2^-9 of it and fails the exact check; (1, 1), beta == 1, which a kernel may take for "C
// plus the product" and get wrong. Integer (int32 scales, as cuBLAS's int8 GEMM): (1, 0), (2, -1), (3, -2), (1, 1).
template <typename TIn>
std::vector<std::pair<double, double>> gemm_scales() {
  if constexpr (ElementTraits<TIn>::is_integer) return {{1, 0}, {2, -1}, {3, -2}, {1, 1}};
  else return {{1, 0}, {0.5, 2}, {0.3, -1.7}, {1, 1}};
}

// p with every leading dimension larger than the minimum: rounded up to a multiple of 16 bytes, then 16 bytes more
// (in_bytes and out_bytes: the element sizes of A/B and of C). Every column still starts 16-byte aligned, as TMA
// needs, and C gains padding rows m..ldc-1 that a kernel must leave alone.
inline GemmProblem with_padding(GemmProblem p, int in_bytes, int out_bytes) {
  auto pad = [](int ld, int bytes) {
    const int per16 = 16 / bytes;  // elements in 16 bytes
    return (ld + per16 - 1) / per16 * per16 + per16;
  };
  p.lda = pad(p.lda, in_bytes);
  p.ldb = pad(p.ldb, in_bytes);
  p.ldc = pad(p.ldc, out_bytes);
  return p;
}

struct GemmCheckOutcome {
  GemmVerdict verdict;
  bool padding_untouched = true;
  std::vector<std::string> padding_changes;  // the first elements of C's padding a run changed (padding_changes)
};

// Rows m..ldc-1 of `out` hold, bit for bit, what they held before the run: the input C where beta != 0, else the
// poison DeviceBuffer::poison writes (bytes 0xFF for floating types, 0x80 for integers).
// padding_changes lists them where they did not: "(row, col) = value" for each changed element, the first `most`.
template <typename T>
std::vector<std::string> padding_changes(const GemmProblem& p, const std::vector<T>& out,
                                         const std::vector<T>& c_input, std::size_t most = 8) {
  T poison;
  std::memset(static_cast<void*>(&poison), std::is_integral_v<T> ? 0x80 : 0xFF, sizeof poison);
  std::vector<std::string> changes;
  for (int j = 0; j < p.n && changes.size() < most; ++j)
    for (int i = p.m; i < p.ldc && changes.size() < most; ++i) {
      const std::size_t e = std::size_t(j) * p.ldc + i;
      const T& before = p.beta != 0.0 ? c_input[e] : poison;
      if (std::memcmp(&out[e], &before, sizeof(T)) != 0)
        changes.push_back("(" + std::to_string(i) + ", " + std::to_string(j) + ") = " + std::to_string(to_double(out[e])));
    }
  return changes;
}

template <typename T>
bool padding_untouched(const GemmProblem& p, const std::vector<T>& out, const std::vector<T>& c_input) {
  return padding_changes(p, out, c_input, 1).empty();
}

template <typename TIn, typename TOut, typename Launch>
GemmCheckOutcome check_both(const CublasHandle& cublas, const GemmProblem& p, std::uint64_t seed, Launch&& launch,
                            InputRounding rounding = InputRounding::None) {
  ExactCheck<TIn, TOut> exact(cublas, p, seed);
  RandomOperands<TIn, TOut> random(cublas, p, seed + 3, rounding);
  GemmCheckOutcome outcome;
  outcome.verdict = check_gemm(exact, random, launch);
  outcome.padding_changes = padding_changes(p, exact.last_output(), exact.c_input());
  for (const std::string& change : padding_changes(p, random.last_output(), random.c_input()))
    outcome.padding_changes.push_back(change);
  outcome.padding_untouched = outcome.padding_changes.empty();
  return outcome;
}

// How a test lays out the operands: the tightest leading dimensions, or each padded (with_padding).
enum class Ld { Tight, Padded };

// Gemm (a tc/padded_gemm.hpp kernel type) on (m, n, k, alpha, beta) through tc::launch_gemm_any_size and both checks,
// with the tightest leading dimensions, or padded ones (ld = Ld::Padded), or lda = ldb = ld_ab where ld_ab > 0 (for
// operands stored K-contiguous, as chapters 07 and 08 store them); CHECKs that both pass and that C's padding is
// untouched.
template <typename Gemm>
void check_launcher(const CublasHandle& cublas, int m, int n, int k, double alpha, double beta, std::uint64_t seed,
                    int ld_ab = 0, Ld ld = Ld::Tight) {
  using In = typename Gemm::Precision::Input;
  using Out = output_t<typename Gemm::Precision>;
  using Acc = typename Gemm::Precision::Accumulator;
  GemmProblem p = GemmProblem::tight(op_of<typename Gemm::LayoutA>(), op_of<typename Gemm::LayoutB>(), m, n, k, alpha,
                                     beta);
  if (ld == Ld::Padded) p = with_padding(p, int(sizeof(In)), int(sizeof(Out)));
  if (ld_ab > 0) p.lda = p.ldb = ld_ab;
  const GemmCheckOutcome r = check_both<In, Out>(cublas, p, seed, [&](const In* A, const In* B, Out* C) {
    launch_gemm_any_size<Gemm>(m, n, k, Acc(alpha), A, p.lda, B, p.ldb, Acc(beta), C, p.ldc, nullptr);
  });
  std::string changed;
  for (const std::string& c : r.padding_changes) changed += (changed.empty() ? "" : ", ") + c;
  INFO(Gemm::name << " " << Gemm::Precision::name << " " << m << "x" << n << "x" << k << " lda " << p.lda << " ldb "
                  << p.ldb << " ldc " << p.ldc << " alpha " << alpha << " beta " << beta
                  << "\nexact:  " << r.verdict.exact.summary() << "\nrandom: " << r.verdict.random.summary()
                  << "\npadding changed: " << (changed.empty() ? std::string("none") : changed));
  CHECK(r.verdict.passed());
  CHECK(r.padding_untouched);
}

}  // namespace tc::test
