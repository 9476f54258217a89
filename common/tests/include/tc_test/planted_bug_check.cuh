// check_planted_bug_fails: the exact check against a kernel with one of tc_test/planted_bugs.cuh's bugs switched on.
// CUDA only (the bug's switch is a __device__ variable of the including test file). Errors: those of
// tc/gemm_check.hpp, tc::CudaError.
#pragma once

#include "tc/cublas_reference.hpp"
#include "tc/gemm_check.hpp"
#include "tc/padded_gemm.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/planted_bugs.cuh"

#include <cstdint>

namespace tc::test {

// A bug planted in a kernel's own code (tc_test/planted_bugs.cuh) at s^3: the exact check must fail Kernel with `bug`
// switched on and pass it with none, a tc/padded_gemm.hpp kernel type with fp32 C, on the same integer operands (A
// row-major, B column-major, lda = ldb = ldc = s; alpha 1, beta 0). Catch2 CHECKs record both verdicts.
template <typename Kernel>
void check_planted_bug_fails(const CublasHandle& cublas, int s, std::uint64_t seed, PlantedBug bug) {
  using In = typename Kernel::Precision::Input;
  const GemmProblem p = GemmProblem::tight(Op::T, Op::N, s, s, s, 1.0, 0.0);
  ExactCheck<In, float> exact(cublas, p, seed);
  auto run = [&] {
    return exact.run([&](const In* A, const In* B, float* C) {
      launch_gemm_any_size<Kernel>(s, s, s, 1.0f, A, s, B, s, 0.0f, C, s, nullptr);
    });
  };
  CompareResult planted;
  {
    const PlantedBugScope plant(bug);
    planted = run();
  }
  const CompareResult correct = run();
  INFO("planted: " << planted.summary() << "\ncorrect: " << correct.summary());
  CHECK_FALSE(planted.passed);
  CHECK(correct.passed);
}

}  // namespace tc::test
