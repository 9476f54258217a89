// Chapter 08 tests. GPU (SM 9.0 only): step 4's epilogue probe (fp32 and bf16) against tc/layouts/epilogue.hpp; every
// step, fp16 and bf16 in with fp32 C, and steps 4 and 5 with bf16 C, through the chapter's two checks (integer
// operands exactly, random ones against fp64) on one tile, several tiles and slices (more tiles than the persistent
// grid has blocks, and an odd number of M tiles, so one cluster hangs over the edge), the ragged 4095 x 4097 x 33 (TMA
// clips: with lda = ldb = 40 natively, with tight leading dimensions through the padded path), k = 0, and with
// (alpha, beta) = (1, 0) and (0.5, 2), and every scale of tc::test::gemm_scales tight and with padded leading
// dimensions (C's padding beside the TMA-store epilogue untouched); step 5 also on plans of both its tile heights (N
// and K ragged, an odd count of short rows) and of tall rows alone over the edge of M; in [large], 4096^3 and 8192^3
// (and 6144^3 for step 5), and steps 4 and 5 at 8192^3 on inputs and scales mutated on purpose, and with a tile of
// their output left unwritten, must fail the exact check (tc_test/mutation.hpp), and so must step 5 with a bug planted
// in its own producer (tc::test::PlantedBug::ABoxRepeated); the ablation's launches
// (tools/ablation.cuh) on all-ones operands. Host: the budgets and slice bases, step 5's plans at the chapter's sizes,
// and the launchers' one-line errors, the ablation's included. The building blocks (cluster roles, ring across a
// cluster, staging chunk, stmatrix map, tile order and heights) are tested in
// common/tests/test_warp_specialized_layouts.cpp and test_tile_order.cpp.
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "chapter_config.hpp"  // tc::chapter::kMinSm
#include "probes.cuh"
#include "step1_warp_specialized.cuh"
#include "step2_persistent.cuh"
#include "step3_cluster.cuh"
#include "step4_tma_store.cuh"
#include "step5_taller_tile.cuh"
#include "tc/cublas_reference.hpp"
#include "tc/padded_gemm.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/gemm.hpp"
#include "tc_test/mutation.hpp"
#include "tc_test/planted_bug_check.cuh"
#include "tools/ablation.cuh"
#include "tools/figures.hpp"

namespace {

// One step through tc::launch_gemm_any_size and the chapter's two checks (tc_test/gemm.hpp).
template <typename Gemm>
void check_gemm(const tc::CublasHandle& cublas, int m, int n, int k, double alpha, double beta, int ld_ab = 0,
                tc::test::Ld ld = tc::test::Ld::Tight) {
  tc::test::check_launcher<Gemm>(cublas, m, n, k, alpha, beta, 73, ld_ab, ld);
}

// f(WsGemm<Step, Tile, P>{}) for every step and precision.
template <typename F>
void for_each_gemm(F&& f) {
  f(WsGemm<Step1WarpSpecialized, Step1Tile, tc::F16F32>{});
  f(WsGemm<Step2Persistent, Step2Tile, tc::F16F32>{});
  f(WsGemm<Step3Cluster, Step3Tile, tc::F16F32>{});
  f(WsGemm<Step4TmaStore, Step4Tile, tc::F16F32>{});
  f(WsGemm<Step5TallerTile, Step5Tile, tc::F16F32>{});
  f(WsGemm<Step1WarpSpecialized, Step1Tile, tc::BF16F32>{});
  f(WsGemm<Step2Persistent, Step2Tile, tc::BF16F32>{});
  f(WsGemm<Step3Cluster, Step3Tile, tc::BF16F32>{});
  f(WsGemm<Step4TmaStore, Step4Tile, tc::BF16F32>{});
  f(WsGemm<Step5TallerTile, Step5Tile, tc::BF16F32>{});
  f(WsGemm<Step4TmaStore, Step4Tile, tc::BF16F32BF16>{});
  f(WsGemm<Step5TallerTile, Step5Tile, tc::BF16F32BF16>{});
}

// f(WsGemm<Step5TallerTile, Step5Tile, P>{}) for every precision: the shapes where step 5 runs its tall tile.
template <typename F>
void for_each_step5(F&& f) {
  f(WsGemm<Step5TallerTile, Step5Tile, tc::F16F32>{});
  f(WsGemm<Step5TallerTile, Step5Tile, tc::BF16F32>{});
  f(WsGemm<Step5TallerTile, Step5Tile, tc::BF16F32BF16>{});
}

template <typename Tile>
void check_slice_bases() {
  for (int stage = 0; stage < Tile::Stages; ++stage) {
    const std::uint32_t a = stage * Tile::kStageBytes, b = a + Tile::kSliceABytes;
    for (std::uint32_t base :
         {a, a + 64u * Tile::kRowBytes, b, b + std::uint32_t(Tile::kBPartRows) * Tile::kRowBytes}) {
      INFO("stage " << stage << " slice at byte " << base);
      CHECK(tc::wgmma_tile_base_problem(tc::Swizzle::B128, base) == nullptr);
      CHECK(tc::wgmma_tile_base_problem(tc::Swizzle::B128, base + 128) != nullptr);
    }
  }
}

}  // namespace

TEST_CASE("the committed figures are what tools/figures.hpp draws, with the kernels' constants", "[figures]") {
  STATIC_REQUIRE(figures::kStages == Step4Tile::Stages);
  STATIC_REQUIRE(figures::kStages == Step2Tile::Stages);
  STATIC_REQUIRE(figures::kGroupTiles == tc::kGroupTiles);
  STATIC_REQUIRE(figures::kClusterM == Step4Tile::ClusterM);
  // 66 resident clusters on an H200's 132 SMs, rounded down to whole groups of 8 cluster rows: the figure's waves.
  CHECK(tc::persistent_blocks<Step4Tile>(132, 1 << 30) == 2 * figures::kWaveClusters);
  tc::test::check_committed_figures(chapter_figures(), TC_FIGURES_DIR,
                                    "build/<preset>/08_warp_specialized_gemm/08_figures --out docs/figures");
}

TEST_CASE("the tile plans keep the register and shared-memory budgets and start every slice on a swizzle atom",
          "[tile]") {
  check_slice_bases<Step1Tile>();
  check_slice_bases<Step3Tile>();
  check_slice_bases<Step4Tile>();
  check_slice_bases<Step5Tile>();
  // Step 5's tall tile: each consumer all 192 rows (three 64-row accumulators, 8 KB of A apart) and 128 columns.
  STATIC_REQUIRE(Step5Tile::kSplitN && Step5Tile::kRowBlocks == 3 && Step5Tile::kConsumerCols == 128);
  STATIC_REQUIRE(Step5Tile::kAccumulators == 192 && Step5Tile::kConsumerRegisters == 240);
  STATIC_REQUIRE((Step5Tile::kProducerRegisters + 2 * Step5Tile::kConsumerRegisters) * 128 <= 65536);
  STATIC_REQUIRE(Step5Tile::kSmemBytes <= 227 * 1024 && Step5Tile::kEpilogueBytes == 0);  // staged in a stage
  STATIC_REQUIRE(!Step4Tile::kSplitN && Step4Tile::kRowBlocks == 1 && Step4Tile::kAccumulators == 128);
  for (int r = 0; r < Step5Tile::kRowBlocks; ++r)
    CHECK(tc::wgmma_tile_base_problem(tc::Swizzle::B128, r * 64u * Step5Tile::kRowBytes) == nullptr);
  // Step 5's short tile: two accumulators a consumer; A comes in 64-row boxes, whole ones at either height.
  STATIC_REQUIRE(Step5Tile::kTwoHeights && Step5Tile::ShortM == 128 && Step5Tile::kShortRowBlocks == 2);
  STATIC_REQUIRE(Step5Tile::kABoxRows == 64 && Step4Tile::kABoxRows == Step4Tile::BlockM && !Step4Tile::kTwoHeights);
  // Step 5's rows on an H200's 64 clusters (tile_plan; tc::plan_tile_heights is tested in common/tests): at 4096
  // and 8192 both heights (each cluster 2 tall + 1 short, and 10 tall + 1 short), at 6144 and 12288 tall alone.
  const int clusters = tc::persistent_blocks<Step5Tile>(132, 1 << 30) / Step5Tile::ClusterM;
  CHECK(clusters == 64);
  auto rows = [&](int s) {
    const tc::HeightPlan p = tc::tile_plan<Step5Tile>(s, s, clusters);
    return std::pair{p.tall_rows, p.short_rows};
  };
  CHECK(rows(4096) == std::pair{8, 4});
  CHECK(rows(6144) == std::pair{16, 0});
  CHECK(rows(8192) == std::pair{20, 2});
  CHECK(rows(12288) == std::pair{32, 0});
  STATIC_REQUIRE(Step4Tile::kThreads == 384);
  STATIC_REQUIRE((Step4Tile::kProducerRegisters + 2 * Step4Tile::kConsumerRegisters) * 128 <= 65536);
  STATIC_REQUIRE(Step4Tile::kSmemBytes <= 227 * 1024);
  STATIC_REQUIRE(Step4Tile::kEpilogueBytes == 2 * 2 * 8192);  // two 8 KB buffers per consumer
  // The epilogue staging starts on a swizzle atom after the stages.
  CHECK(tc::wgmma_tile_base_problem(tc::Swizzle::B128, Step4Tile::Stages * Step4Tile::kStageBytes) == nullptr);
}

TEST_CASE("the launchers reject bad arguments with one-line errors", "[errors]") {
  for_each_gemm([](auto gemm) {
    using G = decltype(gemm);
    using In = typename G::Precision::Input;
    const std::string lda = tc::test::thrown_message<std::invalid_argument>([] {
      tc::launch_gemm_any_size<G>(64, 64, 64, 1.0f, static_cast<const In*>(nullptr), 32,
                                  static_cast<const In*>(nullptr), 64, 0.0f, static_cast<typename G::Out*>(nullptr), 64,
                                  nullptr);
    });
    CHECK(lda.find("lda") != std::string::npos);
    CHECK(lda.find('\n') == std::string::npos);
  });
}

TEST_CASE("the ablation's loads-once launch rejects sizes it cannot fill its ring from, in one line", "[errors]") {
  const std::string k = tc::test::thrown_message<std::invalid_argument>([] {
    launch_ablation<Ablation::LoadsOnce, __half>(256, 256, 192, 1.0f, nullptr, 192, nullptr, 192, 0.0f, nullptr, 256);
  });
  CHECK(k.find("k >= 256") != std::string::npos);
  CHECK(k.find('\n') == std::string::npos);
  const std::string m = tc::test::thrown_message<std::invalid_argument>([] {
    launch_ablation<Ablation::LoadsOnce, __half>(128, 256, 256, 1.0f, nullptr, 256, nullptr, 256, 0.0f, nullptr, 128);
  });
  CHECK(m.find("m % 256") != std::string::npos);
}

TEST_CASE("each ablation launch multiplies every slice of every tile: on all-ones operands it writes k", "[gpu]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  // 256 tiles, more than the persistent grid's blocks, and 5 slices, so the loads-once ring wraps part-way.
  for (const AblationWrites& w : {check_ablation_on_ones<Ablation::LoadsOnce, __half>(4096, 2048, 320),
                                  check_ablation_on_ones<Ablation::PlusLoads, __half>(4096, 2048, 320),
                                  check_ablation_on_ones<Ablation::LoadsOnce, __nv_bfloat16>(512, 256, 256)}) {
    INFO(w.written << " of " << w.expected << " elements written as k, " << w.wrong << " wrong");
    CHECK(w.ok());
  }
}

TEST_CASE("step 4's epilogue puts every register at its own (row, col) of C, fp32 and bf16", "[gpu][probe]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const EpilogueProbe f = probe_epilogue<float>(), b = probe_epilogue<__nv_bfloat16>();
  CHECK(f.checked == 2 * 64 * 256);
  CHECK(f.differ == 0);
  CHECK(b.checked == 2 * 64 * 256);
  CHECK(b.differ == 0);
}

TEST_CASE("every step passes both checks on one tile, many tiles, ragged shapes and k = 0", "[gpu][gemm]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for_each_gemm([&](auto gemm) {
    using G = decltype(gemm);
    for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}}) {
      check_gemm<G>(cublas, 128, 256, 64, alpha, beta);        // one tile, one slice
      check_gemm<G>(cublas, 384, 512, 448, alpha, beta);       // 3 M tiles (a cluster over the edge), 7 slices
      check_gemm<G>(cublas, 17, 33, 65, alpha, beta);          // the padded path (lda = 65)
      check_gemm<G>(cublas, 4095, 4097, 33, alpha, beta, 40);  // TMA clips M, N, K (4, 5: C padded)
    }
    check_gemm<G>(cublas, 4095, 4097, 33, 1.0, 0.0);   // tight ld: the padded path
    check_gemm<G>(cublas, 2560, 4352, 320, 1.0, 0.0);  // 340 tiles: every persistent block takes several
    check_gemm<G>(cublas, 256, 256, 0, 1.0, 2.0);      // k = 0: C = beta * C
  });
  // Step 5's plans (the rows of tall and short cluster tiles on 64 clusters, tile_plan): both heights with N and K
  // ragged; both heights, the short rows an odd count; tall rows alone, the last over the edge of M.
  for_each_step5([&](auto gemm) {
    using G = decltype(gemm);
    for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}}) {
      check_gemm<G>(cublas, 3072, 4097, 200, alpha, beta, 208);  // 3 tall rows, 8 short, 17 columns
      check_gemm<G>(cublas, 5120, 5120, 64, alpha, beta);        // 9 tall rows, 7 short, one slice
      check_gemm<G>(cublas, 2500, 4352, 72, alpha, beta);        // 7 tall rows, the last 188 rows over the edge
    }
  });
}

TEST_CASE("every step passes both checks with every scale, tight and with padded leading dimensions", "[gpu][gemm]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  constexpr tc::test::Ld kPadded = tc::test::Ld::Padded;
  for_each_gemm([&](auto gemm) {
    using G = decltype(gemm);
    for (tc::test::Ld ld : {tc::test::Ld::Tight, kPadded})
      for (auto [alpha, beta] : tc::test::gemm_scales<typename G::Precision::Input>()) {
        check_gemm<G>(cublas, 384, 512, 448, alpha, beta, 0, ld);  // TMA loads and stores on padded columns
        check_gemm<G>(cublas, 17, 33, 65, alpha, beta, 0, ld);     // the padded path
      }
  });
  for_each_step5([&](auto gemm) {  // both tile heights, N and K ragged, C's padding beside the TMA-store epilogue
    check_gemm<decltype(gemm)>(cublas, 3072, 4097, 200, 0.3, -1.7, 0, kPadded);
  });
}

namespace {

// Every step of for_each_gemm of the precisions named (all of them where none is), at s^3, with (alpha, beta) =
// (1, 0) and (0.5, 2). The large sizes are split into test cases by size and precision: each check is mostly host work
// (operands, references, comparison), so ctest -j runs them side by side. The filter is a compile-time one, so that
// no branch of it is unreachable code (nvcc's warning #128-D).
template <typename... Precisions>
void check_every_step_at(int s) {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for_each_gemm([&](auto gemm) {
    using G = decltype(gemm);
    using P = typename G::Precision;
    if constexpr (sizeof...(Precisions) == 0 || (std::is_same_v<P, Precisions> || ...)) {
      for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}})
        check_gemm<G>(cublas, s, s, s, alpha, beta);
    }
  });
}

}  // namespace

TEST_CASE("every step passes both checks at 4096^3", "[gpu][gemm][large]") { check_every_step_at(4096); }

TEST_CASE("every step passes both checks at 8192^3, fp16 in and fp32 C", "[gpu][gemm][large]") {
  check_every_step_at<tc::F16F32>(8192);
}

TEST_CASE("every step passes both checks at 8192^3, bf16 in and fp32 C", "[gpu][gemm][large]") {
  check_every_step_at<tc::BF16F32>(8192);
}

TEST_CASE("every step passes both checks at 8192^3, bf16 in and bf16 C", "[gpu][gemm][large]") {
  check_every_step_at<tc::BF16F32BF16>(8192);
}

TEST_CASE("step 5 passes both checks at 6144^3, where its plan is tall rows alone", "[gpu][gemm][large]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for_each_step5([&](auto gemm) {  // 4096^3 and 8192^3 plan both heights
    for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}})
      check_gemm<decltype(gemm)>(cublas, 6144, 6144, 6144, alpha, beta);
  });
}

namespace {

// Gemm at 8192^3 on mutated inputs and scales, and with a tile of its output unwritten (tc_test/mutation.hpp), must
// fail the exact check, and pass it untouched.
template <typename Gemm>
void check_mutations_at_8192(const tc::CublasHandle& cublas, std::uint64_t seed) {
  using In = typename Gemm::Precision::Input;
  using Out = typename Gemm::Out;
  INFO(Gemm::name << " " << Gemm::Precision::name);
  tc::test::check_mutations_fail<In, Out>(
      cublas, 8192, seed, [](const In* A, const In* B, Out* C, double alpha, double beta) {
        Gemm::launch(8192, 8192, 8192, float(alpha), A, 8192, B, 8192, float(beta), C, 8192, nullptr);
      });
}

}  // namespace

TEST_CASE("at 8192^3 the exact check fails step 4 on a K column dropped or doubled, A transposed, a wrong alpha or "
          "beta and a tile unwritten, and passes it untouched",
          "[gpu][gemm][large][mutation]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  check_mutations_at_8192<WsGemm<Step4TmaStore, Step4Tile, tc::F16F32>>(cublas, 83);
  check_mutations_at_8192<WsGemm<Step4TmaStore, Step4Tile, tc::BF16F32>>(cublas, 83);
  check_mutations_at_8192<WsGemm<Step4TmaStore, Step4Tile, tc::BF16F32BF16>>(cublas, 83);
}

TEST_CASE("at 8192^3 the exact check fails step 5 on a K column dropped or doubled, A transposed, a wrong alpha or "
          "beta and a tile unwritten, and passes it untouched",
          "[gpu][gemm][large][mutation]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for_each_step5([&](auto gemm) { check_mutations_at_8192<decltype(gemm)>(cublas, 89); });
}

TEST_CASE("at 8192^3 the exact check fails step 5 with a bug planted in its producer (one box of A loaded twice)",
          "[gpu][gemm][large][mutation]") {
  // PlantedBug::ABoxRepeated: step 5's own producer asks TMA for the second 64-row box of A at the first box's row, so
  // rows 64..127 of every tall and short tile get rows 0..63's products; the exact check must see it.
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  tc::test::check_planted_bug_fails<WsGemm<Step5TallerTile, Step5Tile, tc::F16F32>>(
      cublas, 8192, 97, tc::test::PlantedBug::ABoxRepeated);
}
