// The mutation test the chapters' fastest steps share: at a size the chapter reports, a kernel run on inputs or scales
// changed on purpose, or with a tile of its output left unwritten, must fail the exact check, and the untouched run
// must pass it (issue "Every verdict can fail"). What changes is the kernel's inputs (a K column of A zeroed or
// doubled, A transposed), its scales (alpha, beta), or one tile of C after the run.
//
// check_mutations_fail<TIn, TOut>(cublas, s, step) runs `step` (A row-major lda = s, B column-major ldb = s, C
// column-major ldc = s, all s x s, C of TOut: fp32 by default) for (alpha, beta) = (1, 0) and (0.5, 2) under six
// mutations, each one kind of bug a kernel can have: a K column dropped (A's column zeroed), a K column counted twice
// (doubled), A read transposed, alpha 1/64 too large, beta wrong by 1, one 16 x 8 tile left unwritten.
// step(A, B, C, alpha, beta) enqueues the kernel on the default stream.
// Preconditions: s >= 4112 (the unwritten tile sits at rows 4096.., columns 2048..). Errors: those of
// tc/gemm_check.hpp, tc::CudaError. Catch2 CHECKs record each verdict.
// keep_significant_bits(x, bits, cut) is the input-precision bug the statistical check must catch: x read at fewer
// significant bits (fp16 read as bf16, tf32 truncated to 8 bits).
#pragma once

#include "tc/check.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_check.hpp"
#include "tc/padded_gemm.hpp"
#include "tc_test/catch.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

namespace tc::test {

// A's storage (row-major, lda = s, s x s) with K column l scaled by `scale`: 0 is a kernel that dropped that column, 2
// one that counted it twice. Exact on the integer operands of ExactCheck, whatever the output type.
template <typename TIn>
std::vector<TIn> scale_k_column(std::vector<TIn> a, int s, int l, double scale) {
  for (std::size_t i = 0; i < std::size_t(s); ++i) {
    TIn& x = a[i * s + l];
    x = from_double<TIn>(scale * to_double(x));
  }
  return a;
}

// How keep_significant_bits drops bits: to nearest (ties to even), as a conversion would, or toward zero.
enum class Cut { Round, Truncate };

// x with `bits` significant bits (the implicit one included: 11 for fp16, 8 for bf16, 11 for tf32) and the rest
// dropped: what a kernel that reads its inputs at that precision multiplies. Preconditions: 1 <= bits <= 23; x finite.
inline float keep_significant_bits(float x, int bits, Cut cut) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  const int drop = 24 - bits;  // of fp32's 24 significant bits
  const std::uint32_t add = cut == Cut::Truncate ? 0u : (1u << (drop - 1)) - 1u + ((u >> drop) & 1u);
  u = (u + add) >> drop << drop;  // a carry into the exponent is the correct rounding up
  std::memcpy(&x, &u, sizeof u);
  return x;
}

template <typename TIn, typename TOut = float, typename Step>
void check_mutations_fail(const CublasHandle& cublas, int s, std::uint64_t seed, Step&& step) {
  for (const auto& alpha_beta : {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}}) {
    const double alpha = alpha_beta.first, beta = alpha_beta.second;  // named, so that the lambdas can capture them
    const GemmProblem p = GemmProblem::tight(Op::T, Op::N, s, s, s, alpha, beta);
    ExactCheck<TIn, TOut> exact(cublas, p, seed);
    const std::vector<TIn> a = exact.a();
    auto run = [&](const TIn* A, const TIn* B, TOut* C, double alpha_used, double beta_used) {
      step(A, B, C, alpha_used, beta_used);
    };
    // op(A) read transposed: A's storage with rows and columns swapped (square, so the launch is the same).
    std::vector<TIn> a_t(a.size());
    for (std::size_t i = 0; i < std::size_t(s); ++i)
      for (std::size_t l = 0; l < std::size_t(s); ++l) a_t[i * s + l] = a[l * s + i];
    const DeviceBuffer<TIn> d_a_t(a_t), d_a_dropped(scale_k_column(a, s, 4000, 0.0)),
        d_a_twice(scale_k_column(a, s, 0, 2.0));
    struct Mutation {
      const char* name;
      std::function<void(const TIn*, const TIn*, TOut*)> launch;
    };
    const std::vector<Mutation> mutations = {
        {"K column 4000 dropped",
         [&](const TIn*, const TIn* B, TOut* C) { run(d_a_dropped.data(), B, C, alpha, beta); }},
        {"K column 0 counted twice",
         [&](const TIn*, const TIn* B, TOut* C) { run(d_a_twice.data(), B, C, alpha, beta); }},
        {"A transposed", [&](const TIn*, const TIn* B, TOut* C) { run(d_a_t.data(), B, C, alpha, beta); }},
        {"alpha 1/64 too large",
         [&](const TIn* A, const TIn* B, TOut* C) { run(A, B, C, alpha * (1.0 + 1.0 / 64), beta); }},
        {"beta wrong by 1", [&](const TIn* A, const TIn* B, TOut* C) { run(A, B, C, alpha, beta + 1.0); }},
        {"one 16 x 8 tile left unwritten",
         [&](const TIn* A, const TIn* B, TOut* C) {
           run(A, B, C, alpha, beta);
           // Rows 4096..4111 of columns 2048..2055 back to what C held before the run: poison, or the input C.
           TOut* tile = C + 4096 + std::size_t(2048) * p.ldc;
           if (beta == 0.0) {
             TC_CHECK(cudaMemset2D(tile, sizeof(TOut) * p.ldc, 0xFF, 16 * sizeof(TOut), 8));
           } else {
             TC_CHECK(cudaMemcpy2D(tile, sizeof(TOut) * p.ldc,
                                   exact.c_input().data() + 4096 + std::size_t(2048) * p.ldc, sizeof(TOut) * p.ldc,
                                   16 * sizeof(TOut), 8, cudaMemcpyHostToDevice));
           }
         }},
    };
    for (const Mutation& mutation : mutations) {
      const CompareResult r = exact.run(mutation.launch);
      INFO("alpha " << alpha << " beta " << beta << ", " << mutation.name << ": " << r.summary());
      CHECK_FALSE(r.passed);
    }
    const CompareResult untouched = exact.run([&](const TIn* A, const TIn* B, TOut* C) { run(A, B, C, alpha, beta); });
    INFO("alpha " << alpha << " beta " << beta << ", untouched: " << untouched.summary());
    CHECK(untouched.passed);
    // bf16 outputs resolve one term only where |C| < 256 |alpha| (tc/compare.hpp): the mutations above show they do.
    if constexpr (!std::is_same_v<TOut, __nv_bfloat16>) CHECK(resolves_one_term(untouched, alpha));
  }
}

}  // namespace tc::test
