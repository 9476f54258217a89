// Chapter 02's graded exercises (README, "Workshop mode"), both on the GPU: the learner's naive GEMM against the CPU
// reference, exactly, on integer-valued inputs, with several K slices and with (alpha, beta) = (1, 0) and (0.5, 2).
#if TC_EXERCISE_SOLUTIONS
#include "exercises/solutions.cuh"
#else
#include "exercises/ex1_k_loop.cuh"
#include "exercises/ex2_epilogue.cuh"
#endif

#include "chapter_config.hpp"  // tc::chapter::kMinSm

#include "tc/compare.hpp"
#include "tc/device_buffer.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"
#include "tc/reference_for.cuh"  // tc::tolerance_for
#include "tc/wmma.cuh"
#include "tc_test/catch.hpp"
#include "tc_test/exercise.hpp"

#include <string>
#include <vector>

namespace {

using Launcher = void (*)(int, int, int, float, const __half*, int, const __half*, int, float, float*, int);

void check_gemm(Launcher launch, const std::string& id, const std::string& file, int m, int n, int k, float alpha,
                float beta) {
  const int lda = m, ldb = k, ldc = m;
  std::vector<__half> a(std::size_t(lda) * k), b(std::size_t(ldb) * n);
  std::vector<float> c(std::size_t(ldc) * n);
  tc::fill_random(a, 21, tc::Fill::Integer);
  tc::fill_random(b, 22, tc::Fill::Integer);
  tc::fill_random(c, 23, tc::Fill::Integer);
  const tc::GemmReference ref =
      tc::reference_gemm(tc::Op::N, tc::Op::N, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  tc::DeviceBuffer<__half> d_a(a), d_b(b);
  tc::DeviceBuffer<float> d_c(c.size());
  beta != 0.0f ? d_c.upload(c) : d_c.poison();  // with beta = 0 an unwritten C reads as NaN and fails
  launch(m, n, k, alpha, d_a.data(), lda, d_b.data(), ldb, beta, d_c.data(), ldc);
  const std::vector<float> got = d_c.download();
  const tc::CompareResult r =
      tc::compare(m, n, k, got.data(), ldc, ref, tc::tolerance_for<tc::WmmaF16>(tc::Fill::Integer));
  INFO(m << "x" << n << "x" << k << " alpha " << alpha << " beta " << beta << ": " << r.summary() << "\n"
         << tc::exercise::where(id, file, "02_wmma_tiled_gemm"));
  REQUIRE(r.passed);
}

}  // namespace

TEST_CASE("exercise 02.1: the K loop", "[exercise][gpu]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  const std::string file = "02_wmma_tiled_gemm/exercises/ex1_k_loop.cuh";
  check_gemm(ex02_1::launch_naive_gemm, "02.1", file, 64, 48, 80, 1.0f, 0.0f);  // 5 slices of K
  check_gemm(ex02_1::launch_naive_gemm, "02.1", file, 16, 16, 16, 1.0f, 0.0f);  // one
  check_gemm(ex02_1::launch_naive_gemm, "02.1", file, 96, 32, 48, 0.5f, 2.0f);
}

TEST_CASE("exercise 02.2: the alpha/beta epilogue", "[exercise][gpu]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  const std::string file = "02_wmma_tiled_gemm/exercises/ex2_epilogue.cuh";
  check_gemm(ex02_2::launch_naive_gemm, "02.2", file, 64, 48, 80, 1.0f, 0.0f);
  check_gemm(ex02_2::launch_naive_gemm, "02.2", file, 64, 48, 80, 0.5f, 2.0f);
  check_gemm(ex02_2::launch_naive_gemm, "02.2", file, 32, 96, 16, -1.0f, 1.0f);
}
