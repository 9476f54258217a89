// The mutation test the chapters' fastest steps share: at a size the chapter reports, a kernel's output changed on
// purpose must fail the exact check, and the untouched output must pass it (issue "Every verdict can fail").
//
// check_mutations_fail<TIn>(cublas, s, step) runs `step` (A row-major lda = s, B column-major ldb = s, C column-major
// ldc = s, all s x s, fp32 C) for (alpha, beta) = (1, 0) and (0.5, 2) under six mutations, each one kind of bug a
// kernel can have: a K column dropped, a K column counted twice, A read transposed, alpha 1/64 too large, beta wrong by
// 1, one 16 x 8 tile left unwritten. step(A, B, C, alpha, beta) enqueues the kernel on the default stream.
// Preconditions: s >= 4112 (the unwritten tile sits at rows 4096.., columns 2048..). Errors: those of
// tc/gemm_check.hpp, tc::CudaError. Catch2 CHECKs record each verdict.
#pragma once

#include "tc/check.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_check.hpp"
#include "tc_test/catch.hpp"

#include <cublas_v2.h>

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

namespace tc::test {

// C += scale * (column l of op(A)) (row l of op(B)): the output of a kernel that counted K column l once too often
// (scale = alpha) or left it out (scale = -alpha). A row-major m x k (lda), B column-major k x n (ldb). The rank-1
// update is cublasSger in fp32, exact on the integer operands of ExactCheck.
template <typename TIn>
void add_k_column(const CublasHandle& cublas, const GemmProblem& p, const std::vector<TIn>& a,
                  const std::vector<TIn>& b, int l, float scale, float* C) {
  std::vector<float> x(p.m), y(p.n);
  for (int i = 0; i < p.m; ++i) x[i] = static_cast<float>(a[std::size_t(i) * p.lda + l]);
  for (int j = 0; j < p.n; ++j) y[j] = static_cast<float>(b[std::size_t(j) * p.ldb + l]);
  const DeviceBuffer<float> d_x(x), d_y(y);
  TC_CHECK(cublasSger(cublas.get(), p.m, p.n, &scale, d_x.data(), 1, d_y.data(), 1, C, p.ldc));
}

template <typename TIn, typename Step>
void check_mutations_fail(const CublasHandle& cublas, int s, std::uint64_t seed, Step&& step) {
  for (const auto& alpha_beta : {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}}) {
    const double alpha = alpha_beta.first, beta = alpha_beta.second;  // named, so that the lambdas can capture them
    const GemmProblem p = GemmProblem::tight(Op::T, Op::N, s, s, s, alpha, beta);
    ExactCheck<TIn, float> exact(cublas, p, seed);
    const std::vector<TIn> a = exact.a(), b = exact.b();
    auto run = [&](const TIn* A, const TIn* B, float* C, double alpha_used, double beta_used) {
      step(A, B, C, alpha_used, beta_used);
    };
    // op(A) read transposed: A's storage with rows and columns swapped (square, so the launch is the same).
    std::vector<TIn> a_t(a.size());
    for (std::size_t i = 0; i < std::size_t(s); ++i)
      for (std::size_t l = 0; l < std::size_t(s); ++l) a_t[i * s + l] = a[l * s + i];
    const DeviceBuffer<TIn> d_a_t(a_t);
    struct Mutation {
      const char* name;
      std::function<void(const TIn*, const TIn*, float*)> launch;
    };
    const std::vector<Mutation> mutations = {
        {"K column 4000 dropped",
         [&](const TIn* A, const TIn* B, float* C) {
           run(A, B, C, alpha, beta);
           add_k_column(cublas, p, a, b, 4000, float(-alpha), C);
         }},
        {"K column 0 counted twice",
         [&](const TIn* A, const TIn* B, float* C) {
           run(A, B, C, alpha, beta);
           add_k_column(cublas, p, a, b, 0, float(alpha), C);
         }},
        {"A transposed", [&](const TIn*, const TIn* B, float* C) { run(d_a_t.data(), B, C, alpha, beta); }},
        {"alpha 1/64 too large",
         [&](const TIn* A, const TIn* B, float* C) { run(A, B, C, alpha * (1.0 + 1.0 / 64), beta); }},
        {"beta wrong by 1", [&](const TIn* A, const TIn* B, float* C) { run(A, B, C, alpha, beta + 1.0); }},
        {"one 16 x 8 tile left unwritten",
         [&](const TIn* A, const TIn* B, float* C) {
           run(A, B, C, alpha, beta);
           // Rows 4096..4111 of columns 2048..2055 back to what C held before the run: poison, or the input C.
           float* tile = C + 4096 + std::size_t(2048) * p.ldc;
           if (beta == 0.0) {
             TC_CHECK(cudaMemset2D(tile, sizeof(float) * p.ldc, 0xFF, 16 * sizeof(float), 8));
           } else {
             TC_CHECK(cudaMemcpy2D(tile, sizeof(float) * p.ldc,
                                   exact.c_input().data() + 4096 + std::size_t(2048) * p.ldc, sizeof(float) * p.ldc,
                                   16 * sizeof(float), 8, cudaMemcpyHostToDevice));
           }
         }},
    };
    for (const Mutation& mutation : mutations) {
      const CompareResult r = exact.run(mutation.launch);
      INFO("alpha " << alpha << " beta " << beta << ", " << mutation.name << ": " << r.summary());
      CHECK_FALSE(r.passed);
    }
    const CompareResult untouched = exact.run([&](const TIn* A, const TIn* B, float* C) { run(A, B, C, alpha, beta); });
    INFO("alpha " << alpha << " beta " << beta << ", untouched: " << untouched.summary());
    CHECK(untouched.passed);
    CHECK(resolves_one_term(untouched, alpha));
  }
}

}  // namespace tc::test
