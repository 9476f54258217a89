// Chapter 07 tests. GPU (SM 9.0 only): the probes (TMA's swizzle in every mode, the m64nNk16 accumulator for N = 64,
// 128, 256) against tc/layouts/wgmma.hpp; every step, fp16 and bf16, through the chapter's two checks (integer
// operands exactly, random ones against fp64) on one block tile, several slices and blocks, odd shapes (the padded
// path), k = 0, and with (alpha, beta) = (1, 0) and (0.5, 2), and every scale of tc::test::gemm_scales tight and with
// padded leading dimensions (C's padding untouched); in [large], 4096^3 and 8192^3, and at 8192^3 step 3's inputs and
// scales mutated on purpose must fail the exact check (tc_test/mutation.hpp), and so must step 3 with a bug planted in
// its own producer (tc::test::PlantedBug::MiddleSliceTwice). Host: the committed figures, the tile
// plans (every stage on a swizzle atom) and the launchers' one-line errors. The building blocks (swizzle,
// descriptor, accumulator map, ring, TMA rules) are tested in common/tests/test_hopper_layouts.cpp.
#include "chapter_config.hpp"  // tc::chapter::kMinSm
#include "step1_wgmma.cuh"
#include "step2_tma.cuh"
#include "probes.cuh"
#include "step3_ring.cuh"
#include "tools/figures.hpp"

#include "tc/cublas_reference.hpp"
#include "tc/padded_gemm.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/gemm.hpp"
#include "tc_test/mutation.hpp"
#include "tc_test/planted_bug_check.cuh"

#include <string>
#include <utility>

namespace {

// One step through tc::launch_gemm_any_size and the chapter's two checks (tc_test/gemm.hpp).
template <typename Gemm>
void check_gemm(const tc::CublasHandle& cublas, int m, int n, int k, double alpha, double beta,
                tc::test::Ld ld = tc::test::Ld::Tight) {
  tc::test::check_launcher<Gemm>(cublas, m, n, k, alpha, beta, 71, 0, ld);
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

TEST_CASE("the committed figures are what tools/figures.hpp draws", "[figures]") {
  STATIC_REQUIRE(figures::kRingStages == Step3Tile::Stages);
  tc::test::check_committed_figures(chapter_figures(), TC_FIGURES_DIR,
                                    "build/<preset>/07_wgmma_tma/07_figures --out docs/figures");
}

// Every A and B slice of every stage, at its offset from the (1024-byte aligned) stage base, keeps the rule the
// descriptors rely on; the same slice moved by one 128-byte row would not.
template <typename Tile>
void check_slice_bases() {
  for (int stage = 0; stage < Tile::Stages; ++stage) {
    const std::uint32_t a = stage * Tile::kStageBytes, b = a + Tile::kSliceABytes;
    for (std::uint32_t base : {a, a + 64u * Tile::kRowBytes, b}) {  // A's two warpgroup halves (step 3), and B
      INFO("stage " << stage << " slice at byte " << base);
      CHECK(tc::wgmma_tile_base_problem(tc::Swizzle::B128, base) == nullptr);
      CHECK(tc::wgmma_tile_base_problem(tc::Swizzle::B128, base + 128) != nullptr);
    }
  }
}

TEST_CASE("the tile plans fit an H100/H200 block and start every slice on a swizzle atom", "[tile]") {
  check_slice_bases<Step1Tile>();
  check_slice_bases<Step2Tile>();
  check_slice_bases<Step3Tile>();
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

TEST_CASE("TMA stores every element where tc::swizzle_address says, in every swizzle mode", "[gpu][probe]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  for (tc::Swizzle mode : {tc::Swizzle::None, tc::Swizzle::B32, tc::Swizzle::B64, tc::Swizzle::B128}) {
    const SwizzleProbe p = probe_tma_swizzle(mode);
    INFO("mode " << int(mode) << ": " << p.differ << " elements differ, " << p.moved << " moved");
    CHECK(p.differ == 0);
    CHECK((p.moved > 0) == (mode != tc::Swizzle::None));  // the probe sees a pattern: it could see a wrong one
  }
}

template <int N>
void check_accumulator_probe() {
  const std::vector<tc::LaneMap> measured = probe_wgmma_accumulator<N>();
  for (int w = 0; w < 4; ++w) {
    INFO("m64n" << N << "k16, warp " << w << "\n" << measured[w].format_lane_list("d"));
    CHECK(measured[w].all_slots_in_tile());
    CHECK(measured[w] == tc::wgmma_d_map(N, w));
  }
}

TEST_CASE("the wgmma m64nNk16 accumulator holds what tc::wgmma_m64nNk16_d_coord says", "[gpu][probe]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  check_accumulator_probe<64>();
  check_accumulator_probe<128>();
  check_accumulator_probe<256>();
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

TEST_CASE("every step passes both checks with every scale, tight and with padded leading dimensions", "[gpu][gemm]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for_each_gemm([&](auto gemm) {
    using G = decltype(gemm);
    for (tc::test::Ld ld : {tc::test::Ld::Tight, tc::test::Ld::Padded})
      for (auto [alpha, beta] : tc::test::gemm_scales<typename G::Precision::Input>()) {
        check_gemm<G>(cublas, 256, 512, 448, alpha, beta, ld);  // TMA on 16-byte-aligned padded columns
        check_gemm<G>(cublas, 17, 33, 65, alpha, beta, ld);     // the padded path
      }
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

TEST_CASE("at 8192^3 the exact check fails step 3 on a K column dropped or doubled, A transposed, a wrong alpha or "
          "beta and a tile unwritten, and passes it untouched",
          "[gpu][gemm][large][mutation]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  auto mutate = [&](auto gemm) {
    using G = decltype(gemm);
    using In = typename G::Precision::Input;
    INFO(G::name << " " << G::Precision::name);
    tc::test::check_mutations_fail<In>(cublas, 8192, 81, [](const In* A, const In* B, float* C, double alpha,
                                                            double beta) {
      G::launch(8192, 8192, 8192, float(alpha), A, 8192, B, 8192, float(beta), C, 8192, nullptr);
    });
  };
  mutate(WgmmaGemm<Step3Ring, Step3Tile, tc::F16F32>{});
  mutate(WgmmaGemm<Step3Ring, Step3Tile, tc::BF16F32>{});
}

TEST_CASE("at 8192^3 the exact check fails step 3 with a bug planted in its producer (one B slice loaded twice)",
          "[gpu][gemm][large][mutation]") {
  // PlantedBug::MiddleSliceTwice: step 3's own load asks TMA for the middle K slice of B at the next slice's
  // coordinate. Every element then misses one K slice's products and counts another's twice; the exact check must
  // see it.
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  tc::test::check_planted_bug_fails<WgmmaGemm<Step3Ring, Step3Tile, tc::F16F32>>(
      cublas, 8192, 91, tc::test::PlantedBug::MiddleSliceTwice);
}
