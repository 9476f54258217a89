// Chapter 07 tests. GPU (SM 9.0 only): every step, fp16 and bf16, through the chapter's two checks (integer operands
// exactly, random ones against fp64) on one block tile, several slices and blocks, odd shapes (the padded path),
// k = 0, and with (alpha, beta) = (1, 0) and (0.5, 2); in [large], 4096^3 and 8192^3. Host: the tile plans and the
// launchers' one-line errors. The building blocks (swizzle, descriptor, accumulator map, ring, TMA rules) are tested in
// common/tests/test_hopper_layouts.cpp.
#include "chapter_config.hpp"  // tc::chapter::kMinSm
#include "step1_wgmma.cuh"
#include "step2_tma.cuh"
#include "step3_ring.cuh"

#include "tc/cublas_reference.hpp"
#include "tc/padded_gemm.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/gemm.hpp"

#include <string>
#include <utility>

namespace {

// One step (Gemm, a WgmmaGemm) on (m, n, k) through tc::launch_gemm_any_size and the chapter's two checks, C's
// padding untouched.
template <typename Gemm>
void check_gemm(const tc::CublasHandle& cublas, int m, int n, int k, double alpha, double beta) {
  using In = typename Gemm::Precision::Input;
  const tc::GemmProblem p = tc::GemmProblem::tight(tc::Op::T, tc::Op::N, m, n, k, alpha, beta);
  const tc::test::GemmCheckOutcome r =
      tc::test::check_both<In, float>(cublas, p, 71, [&](const In* A, const In* B, float* C) {
        tc::launch_gemm_any_size<Gemm>(m, n, k, float(alpha), A, p.lda, B, p.ldb, float(beta), C, p.ldc, nullptr);
      });
  INFO(Gemm::name << " " << Gemm::Precision::name << " " << m << "x" << n << "x" << k << " alpha " << alpha
                  << " beta " << beta << "\nexact:  " << r.verdict.exact.summary()
                  << "\nrandom: " << r.verdict.random.summary());
  CHECK(r.verdict.passed());
  CHECK(r.padding_untouched);
}

// f(WgmmaGemm<Step, Tile, P>{}) for every step and both precisions.
template <typename F>
void for_each_gemm(F&& f) {
  f(WgmmaGemm<Step1WgmmaCopy, Step1Tile, tc::F16F32>{});
  f(WgmmaGemm<Step2Tma, Step2Tile, tc::F16F32>{});
  f(WgmmaGemm<Step3Ring, Step3Tile, tc::F16F32>{});
  f(WgmmaGemm<Step1WgmmaCopy, Step1Tile, tc::BF16F32>{});
  f(WgmmaGemm<Step2Tma, Step2Tile, tc::BF16F32>{});
  f(WgmmaGemm<Step3Ring, Step3Tile, tc::BF16F32>{});
}

}  // namespace

TEST_CASE("the tile plans fit an H100/H200 block and start every slice on a swizzle atom", "[tile]") {
  STATIC_REQUIRE(Step1Tile::kThreads == 128);
  STATIC_REQUIRE(Step3Tile::kThreads == 256);
  STATIC_REQUIRE(Step3Tile::kStageBytes == 48 * 1024);  // 128 and 256 rows of 128 bytes
  STATIC_REQUIRE(Step3Tile::kSmemBytes <= 227 * 1024);
  STATIC_REQUIRE(Step3Tile::kAccumulators == 128);
}

TEST_CASE("the launchers reject bad arguments with one-line errors", "[errors]") {
  for_each_gemm([](auto gemm) {
    using G = decltype(gemm);
    using In = typename G::Precision::Input;
    const std::string lda = tc::test::thrown_message<std::invalid_argument>([] {
      tc::launch_gemm_any_size<G>(64, 64, 64, 1.0f, static_cast<const In*>(nullptr), 32,
                                  static_cast<const In*>(nullptr), 64, 0.0f, nullptr, 64, nullptr);
    });
    CHECK(lda.find("lda") != std::string::npos);
    CHECK(lda.find('\n') == std::string::npos);
  });
}

TEST_CASE("every step passes both checks on one tile, several slices, odd shapes and k = 0", "[gpu][gemm]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for_each_gemm([&](auto gemm) {
    using G = decltype(gemm);
    for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}}) {
      check_gemm<G>(cublas, G::Tile::BlockM, G::Tile::BlockN, 64, alpha, beta);  // one tile, one slice
      check_gemm<G>(cublas, 256, 512, 448, alpha, beta);  // several blocks; 7 slices, more than the ring's 4 stages
      check_gemm<G>(cublas, 17, 33, 65, alpha, beta);     // the padded path
    }
    check_gemm<G>(cublas, 1000, 1016, 1040, 1.0, 0.0);
    check_gemm<G>(cublas, 256, 256, 0, 1.0, 2.0);  // k = 0: C = beta * C
  });
}

TEST_CASE("every step passes both checks at 4096^3 and 8192^3", "[gpu][gemm][large]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for (int s : {4096, 8192})
    for_each_gemm([&](auto gemm) {
      for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}})
        check_gemm<decltype(gemm)>(cublas, s, s, s, alpha, beta);
    });
}
