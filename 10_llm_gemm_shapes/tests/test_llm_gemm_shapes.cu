// Chapter 10 tests. Host: the suite is the issue's 56 shapes (the layers of Llama-3-8B and -70B at seven token
// counts), the held-out suite 50 shapes of other models' layers at a fixed draw of token counts, none a suite layer,
// and each shape maps onto the GEMM y^T = W x^T with the leading dimensions PyTorch's F.linear gives cuBLAS; step
// 1's waves count its plan's tiles and the SMs its last wave leaves idle; the flush reads twice the L2; the summary's
// geomean and worst shape. GPU (SM 9.0 only): step 1 through both checks at suite shapes (one token to 2048, K = 4096
// to 14336), at a ragged shape through the padded path, and with every (alpha, beta); the suite's own checks (made on
// the GPU) pass it and fail a planted dropped K chunk at 16 and 8192 tokens; the flush makes a read of an
// L2-sized buffer slower than the same read warm, so a flushed timing does not time the L2; the copy's ceiling is
// a DRAM figure. Steps 2 to 4: their tiles and plans on the host (stream-K's ranges, owners and spans walked for many
// tile, slice and cluster counts); on the GPU, both checks at suite shapes and edge cases, the same bits on every run
// for split-K and stream-K, and their planted bugs (a dropped K chunk, a partial added twice) at 16 and 8192 tokens.
// Step 5: the model's arithmetic on every suite shape and its choice at the corners (host); on the GPU, both checks at
// a shape of each schedule it picks. Step 6 and the MoE routing: their plans on the host, the grouped kernel against
// cublasGemmEx a group, and its planted bug.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "chapter_config.hpp"  // tc::chapter::kMinSm
#include "grouped_plan.hpp"
#include "moe_routing.hpp"
#include "moe_run.cuh"
#include "schedule.hpp"
#include "schedules.cuh"
#include "step1_chapter08.cuh"
#include "step2_small_m.cuh"
#include "step3_split_k.cuh"
#include "step4_stream_k.cuh"
#include "step5_choice.cuh"
#include "step6_grouped.cuh"
#include "stream_k_plan.hpp"
#include "suite.hpp"
#include "suite_run.cuh"
#include "tools/calibrate.hpp"
#include "tools/figures.hpp"

#include "tc/flushed_timing.cuh"
#include "tc/gemm_driver.hpp"  // tc::Timing
#include "tc_test/catch.hpp"
#include "tc_test/planted_bugs.cuh"
#include "tc_test/gemm.hpp"

TEST_CASE("the full suite is the layers of Llama-3-8B and -70B at seven token counts", "[suite]") {
  const std::vector<SuiteShape> shapes = suite(true, kSuiteTokens);
  REQUIRE(shapes.size() == 56);
  std::set<std::string> layers;
  for (const SuiteShape& s : shapes) layers.insert(std::string(s.layer.model) + " " + std::to_string(s.n()) + "x" +
                                                   std::to_string(s.k()));
  const std::set<std::string> expected = {"8B 6144x4096",   "8B 4096x4096",   "8B 28672x4096",  "8B 4096x14336",
                                          "70B 10240x8192", "70B 8192x8192",  "70B 57344x8192", "70B 8192x28672"};
  CHECK(layers == expected);
  CHECK(kSuiteTokens == std::vector<int>{1, 16, 64, 128, 512, 2048, 8192});
  const std::vector<SuiteShape> small = suite(false, kShortSuiteTokens);
  CHECK(small.size() == 12);
  for (const SuiteShape& s : small) CHECK(std::string(s.layer.model) == "8B");
  CHECK_THROWS_AS(suite(false, {0}), std::invalid_argument);
}

TEST_CASE("the held-out suite is 50 shapes of 25 layers of 8 other models at drawn token counts, none a suite layer",
          "[suite]") {
  const std::vector<SuiteShape> shapes = held_out_suite();
  REQUIRE(shapes.size() == 50);  // the issue asks for at least 40, from at least 4 models
  std::set<std::string> models, layers, suite_layers;
  for (const LinearLayer& l : kLlamaLayers) suite_layers.insert(std::to_string(l.n) + "x" + std::to_string(l.k));
  int ragged_k = 0, below_16 = 0, above_2048 = 0;
  for (const SuiteShape& s : shapes) {
    models.insert(s.layer.model);
    const std::string nk = std::to_string(s.n()) + "x" + std::to_string(s.k());
    layers.insert(nk);
    CHECK(suite_layers.count(nk) == 0);  // held out: no weight the steps were tuned on
    CHECK(s.m >= 1);
    CHECK(s.m <= 8192);
    CHECK(s.k() % 8 == 0);  // a K TMA can stride over (16 bytes of bf16), so no padded copy
    if (s.k() % 64 != 0) ++ragged_k;
    below_16 += s.m < 16 ? 1 : 0;
    above_2048 += s.m > 2048 ? 1 : 0;
  }
  CHECK(models.size() == 8);
  CHECK(layers.size() == 25);
  CHECK(ragged_k == 6);  // three tensor-parallel shards, two token counts each
  CHECK(below_16 >= 5);  // log-uniform: about a quarter of the draws below 16 tokens (4 of 13 octaves)
  CHECK(above_2048 >= 5);
  // The draw is fixed (std::mt19937 is specified bit for bit): the same tokens on every platform, and a change to
  // the seed or the transform shows here first.
  CHECK(shapes[0].m == 40);
  CHECK(shapes[1].m == 7);
  CHECK(shapes[2].m == 2445);
  CHECK(shapes[49].m == 827);
  CHECK(shapes[49].name() == "GLM6B down/4 827x4096x3424");
  // --tokens replaces the draw: every layer at each count given.
  const std::vector<SuiteShape> at = held_out_suite({1, 300});
  REQUIRE(at.size() == 50);
  CHECK(at[0].m == 1);
  CHECK(at[1].m == 300);
  CHECK_THROWS_AS(held_out_suite({0}), std::invalid_argument);
}

TEST_CASE("a suite shape is y^T = W x^T: the weights as op T (lda = K), the tokens as op N (ldb = K), ldc = N",
          "[suite]") {
  const SuiteShape s{1, LinearLayer{"8B", "O", 4096, 4096}};
  const tc::GemmProblem p = s.problem();
  CHECK(p.op_a == tc::Op::T);
  CHECK(p.op_b == tc::Op::N);
  CHECK(p.m == 4096);
  CHECK(p.n == 1);
  CHECK(p.k == 4096);
  CHECK(p.lda == 4096);
  CHECK(p.ldb == 4096);
  CHECK(p.ldc == 4096);  // one token: a 4096-element column, 8 KiB, which TMA can describe
  CHECK(s.flops() == 2.0 * 4096 * 4096);
  CHECK(s.operand_bytes() == 2.0 * (4096 + 4096.0 * 4096 + 4096));
  CHECK(s.operand_bytes(true) == 2.0 * (4096 + 4096.0 * 4096 + 2 * 4096));
  CHECK(s.name() == "8B O 1x4096x4096");
}

TEST_CASE("step 1's waves: its plan's cluster tiles on the clusters, and the SMs the last wave leaves idle",
          "[waves]") {
  // One token: one column of tiles, a row per 384 or 256 weights: far fewer tiles than clusters, most SMs idle.
  const Step1Waves one = step1_waves(4096, 1, 64, 132);  // 8B O: 4096 weights
  CHECK(one.plan.tile_cols == 1);
  CHECK(one.waves.units == one.plan.count());
  CHECK(one.waves.units <= 16);  // 4096 rows in tiles of at least 256
  CHECK(one.waves.waves == 1);
  CHECK(one.idle_sms_last_wave == 132 - 2 * one.waves.units);
  // The plan covers every row of W and every token, no more than one tile row too many.
  const int rows = one.plan.tall_rows * one.plan.tall_m * 2 + one.plan.short_rows * one.plan.short_m * 2;
  CHECK(rows >= 4096);
  CHECK(rows < 4096 + 384);
  // 8192 tokens through the 70B gate+up: many waves, and the last one's idle SMs are what the division leaves.
  const Step1Waves big = step1_waves(57344, 8192, 64, 132);
  CHECK(big.plan.tile_cols == 32);
  CHECK(big.waves.waves == (big.plan.count() + 63) / 64);
  CHECK(big.idle_sms_last_wave == 132 - 2 * big.waves.last_wave_busy);
  CHECK(big.idle_sms_last_wave >= 4);  // 132 SMs, 64 clusters: 4 SMs are never in the grid
}

TEST_CASE("the committed figures are what tools/figures.hpp draws", "[figures]") {
  tc::test::check_committed_figures(chapter_figures(), TC_FIGURES_DIR,
                                    "build/<preset>/10_llm_gemm_shapes/10_figures --out docs/figures");
}

TEST_CASE("the flush reads twice the L2, in whole 16-byte vectors", "[flush]") {
  CHECK(tc::kL2FlushFactor == 2);
  CHECK(tc::l2_flush_bytes(60u << 20) == 120u << 20);
  CHECK(tc::l2_flush_bytes(50u << 20) == 100u << 20);
  CHECK(tc::l2_flush_bytes(7) == 16);
  CHECK(tc::l2_flush_bytes(0) == 16);
}

TEST_CASE("the summary's geomean is of the yardsticks' time over the kernel's, and names the worst shape",
          "[summary]") {
  std::vector<ShapeResult> rows(3);
  rows[0].shape = {1, LinearLayer{"8B", "O", 4096, 4096}};
  rows[0].ms = 1.0, rows[0].cublas_ms = 2.0, rows[0].lt_best_ms = -1.0;  // no cuBLASLt figure: left out of its mean
  rows[1].shape = {16, LinearLayer{"8B", "O", 4096, 4096}};
  rows[1].ms = 2.0, rows[1].cublas_ms = 1.0, rows[1].lt_best_ms = 2.0;
  rows[2].shape = {64, LinearLayer{"8B", "O", 4096, 4096}};
  rows[2].ms = 1.0, rows[2].cublas_ms = 2.0, rows[2].lt_best_ms = 4.0;
  const RatioSummary cublas = summarize_ratios(rows, [](const ShapeResult& r) { return r.cublas_ms; });
  CHECK(cublas.shapes == 3);
  CHECK(cublas.geomean == Approx(std::cbrt(2.0 * 0.5 * 2.0)));
  CHECK(cublas.worst == 0.5);
  CHECK(cublas.worst_shape == "8B O 16x4096x4096");
  const RatioSummary lt = summarize_ratios(rows, [](const ShapeResult& r) { return r.lt_best_ms; });
  CHECK(lt.shapes == 2);
  CHECK(lt.geomean == Approx(2.0));
  CHECK(lt.worst == 1.0);
}

TEST_CASE("step 1 passes both checks at suite shapes, through the padded path and with every scale", "[gpu][gemm]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  auto check = [&](const SuiteShape& s, double alpha, double beta) {
    INFO(s.name() << " alpha " << alpha << " beta " << beta);
    const tc::GemmProblem p = s.problem(alpha, beta);
    tc::test::check_launcher<Scheduled<Step1Chapter08>>(cublas, p.m, p.n, p.k, alpha, beta, 71);
  };
  for (auto [alpha, beta] : tc::test::gemm_scales<__nv_bfloat16>()) {
    check({1, LinearLayer{"8B", "O", 4096, 4096}}, alpha, beta);
    check({17, LinearLayer{"-", "ragged", 264, 65}}, alpha, beta);  // lda = 65: the padded path
  }
  check({16, LinearLayer{"8B", "QKV", 6144, 4096}}, 1, 0);
  check({64, LinearLayer{"8B", "gate+up", 28672, 4096}}, 1, 0);
  check({128, LinearLayer{"8B", "down", 4096, 14336}}, 1, 0);
  check({2048, LinearLayer{"8B", "O", 4096, 4096}}, 1, 0);
}

TEST_CASE("step 2's tile: wgmma's N from the tokens, the deepest ring that fits, two blocks an SM up to 128 tokens",
          "[step2]") {
  CHECK(Step2SmallM::block_n(1) == 8);
  CHECK(Step2SmallM::block_n(8) == 8);
  CHECK(Step2SmallM::block_n(9) == 16);
  CHECK(Step2SmallM::block_n(17) == 32);
  CHECK(Step2SmallM::block_n(64) == 64);
  // Past 64 tokens, multiples of 32: at most 31 empty rows a column.
  CHECK(Step2SmallM::block_n(65) == 96);
  CHECK(Step2SmallM::block_n(97) == 128);
  CHECK(Step2SmallM::block_n(150) == 160);
  CHECK(Step2SmallM::block_n(171) == 192);
  CHECK(Step2SmallM::block_n(200) == 224);
  CHECK(Step2SmallM::block_n(256) == 256);
  // Past 256 (the model's narrow tiles, up to 1024 tokens): the fewest columns of at most 256, evenly shared.
  CHECK(Step2SmallM::block_n(257) == 160);  // two columns of 129 and 128 tokens
  CHECK(Step2SmallM::block_n(308) == 160);
  CHECK(Step2SmallM::block_n(512) == 256);
  CHECK(Step2SmallM::block_n(600) == 224);  // three columns of 200
  CHECK(Step2SmallM::block_n(1024) == 256);
  for (int n = 1; n <= 1024; ++n) {
    INFO(n << " tokens");
    const int tile = Step2SmallM::block_n(n);
    REQUIRE(Step2SmallM::is_token_tile(tile));
    const int columns = (n + tile - 1) / tile;
    CHECK(columns == (n + 255) / 256);                       // no more columns than tiles of 256 would need
    CHECK(columns * tile - n < (n <= 64 ? tile : 32 * columns));  // under 32 empty rows a column past 64 tokens
  }
  CHECK(!Step2SmallM::is_token_tile(4));
  CHECK(!Step2SmallM::is_token_tile(48));
  CHECK(!Step2SmallM::is_token_tile(80));
  CHECK(!Step2SmallM::is_token_tile(288));
  // Stages: 8 KB of weights and BlockN x 128 bytes of tokens each, in half an SM (less the 1 KB a block the hardware
  // keeps) or, at 256 tokens, a whole one.
  CHECK(SmallMTile<8>::Stages == 12);
  CHECK(SmallMTile<64>::Stages == 6);
  CHECK(SmallMTile<128>::Stages == 4);
  CHECK(SmallMTile<256>::Stages == 5);
  CHECK(SmallMTile<160>::Stages == 8);  // 150 tokens: three stages more than in a tile of 256
  CHECK(SmallMTile<96>::Stages == 5);
  CHECK(SmallMTile<96, 1>::Stages == 11);
  CHECK(SmallMTile<128>::kBlocksPerSm == 2);
  // One block an SM at 128 tokens, where half an SM's ring is 4 stages, if the grid does not outnumber the SMs.
  CHECK(SmallMTile<128, 1>::Stages == 9);
  CHECK(small_m_blocks_per_sm(128, 132, 132) == 1);
  CHECK(small_m_blocks_per_sm(128, 133, 132) == 2);
  CHECK(small_m_blocks_per_sm(64, 64, 132) == 2);  // 6 stages in half an SM: deep enough
  CHECK(small_m_blocks_per_sm(8, 64, 132) == 2);
  CHECK(small_m_blocks_per_sm(256, 1000, 132) == 1);
  CHECK(SmallMTile<256>::kBlocksPerSm == 1);
  CHECK(2 * (SmallMTile<8>::kSmemBytes + 1024) <= 228 * 1024);
  CHECK(2 * (SmallMTile<128>::kSmemBytes + 1024) <= 228 * 1024);
}

TEST_CASE("step 2's plan: 64-weight tiles on every SM's two blocks, one at 128 tokens where they fit", "[step2]") {
  // One token through Llama-3-8B's O: 64 tiles, one wave of 264 block slots, 68 of 132 SMs idle (step 1: 100).
  const StepPlan one = Scheduled<Step2SmallM>::plan({1, LinearLayer{"8B", "O", 4096, 4096}}, 132);
  CHECK(one.waves.units == 64);
  CHECK(one.waves.workers == 264);
  CHECK(one.waves.waves == 1);
  CHECK(one.idle_sms_last_wave == 68);
  CHECK(one.schedule == "64 x 8 tiles, 2 a SM");
  // 8B QKV at 128 tokens: 96 tiles of 64 x 128, one block an SM.
  const StepPlan qkv = Scheduled<Step2SmallM>::plan({128, LinearLayer{"8B", "QKV", 6144, 4096}}, 132);
  CHECK(qkv.waves.workers == 132);
  CHECK(qkv.schedule == "64 x 128 tiles, 1 a SM");
  // 70B gate+up at 128 tokens: 896 tiles, 4 waves, the last of 104 blocks on 104 SMs.
  const StepPlan wide = Scheduled<Step2SmallM>::plan({128, LinearLayer{"70B", "gate+up", 57344, 8192}}, 132);
  CHECK(wide.waves.units == 896);
  CHECK(wide.waves.waves == 4);
  CHECK(wide.idle_sms_last_wave == 132 - (896 - 3 * 264));
}

TEST_CASE("step 2 passes both checks at every wgmma N, through the padded path and with every scale",
          "[gpu][gemm][step2]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  auto check = [&](const SuiteShape& s, double alpha, double beta) {
    INFO(s.name() << " alpha " << alpha << " beta " << beta);
    const tc::GemmProblem p = s.problem(alpha, beta);
    tc::test::check_launcher<Scheduled<Step2SmallM>>(cublas, p.m, p.n, p.k, alpha, beta, 73);
  };
  for (auto [alpha, beta] : tc::test::gemm_scales<__nv_bfloat16>()) {
    check({1, LinearLayer{"8B", "O", 4096, 4096}}, alpha, beta);
    check({17, LinearLayer{"-", "ragged", 264, 65}}, alpha, beta);  // lda = 65: the padded path
  }
  // Every token tile (8 to 256, each also part-filled), K of one slice and a partial one, weights past a whole tile.
  for (int m : {8, 9, 17, 40, 64, 65, 100, 150, 171, 200, 256, 300})
    check({m, LinearLayer{"-", "narrow", 1000, 200}}, 1, 0);
  check({16, LinearLayer{"8B", "QKV", 6144, 4096}}, 1, 0);
  check({128, LinearLayer{"8B", "down", 4096, 14336}}, 1, 0);  // 64 tiles of 64 x 128: one block an SM
  check({128, LinearLayer{"8B", "gate+up", 28672, 4096}}, 1, 0);  // 448 tiles of 64 x 128: two blocks an SM
  check({80, LinearLayer{"-", "many", 9000, 256}}, 1, 0);  // 141 tiles of 64 x 96: two blocks an SM, 5 stages each
}

TEST_CASE("step 3's choice: the most splits whose blocks fit one an SM, each with 8 slices of K at least", "[step3]") {
  const SplitChoice o = split_k_choice(4096, 1, 4096, 132);  // 8B O at one token: 64 tiles
  CHECK(o.block_n == 8);
  CHECK(o.tiles == 64);
  CHECK(o.splits == 2);  // 128 blocks; 4 would put two on an SM
  CHECK(split_k_choice(4096, 16, 14336, 132).splits == 2);   // 8B down
  CHECK(split_k_choice(6144, 1, 4096, 132).splits == 1);     // 8B QKV: 96 tiles, 192 blocks would not fit
  CHECK(split_k_choice(28672, 16, 4096, 132).splits == 1);   // 8B gate+up: 448 tiles already
  CHECK(split_k_choice(4096, 1, 1024, 132).splits == 2);     // 16 slices: two chunks of 8
  CHECK(split_k_choice(4096, 1, 512, 132).splits == 1);      // 8 slices: too few to split
  CHECK(split_k_choice(64, 1, 1 << 20, 132).splits == 8);    // the most a portable cluster holds
  const StepPlan p = Scheduled<Step3SplitK>::plan({1, LinearLayer{"8B", "O", 4096, 4096}}, 132);
  CHECK(p.waves.units == 128);
  CHECK(p.waves.waves == 1);
  CHECK(p.schedule == "64 x 8 tiles, 2 a SM, split-K 2");
}

TEST_CASE("the schedule table: each step's choice names a schedule, and no step launches another's", "[schedule]") {
  // Step 1 runs chapter 08's tiles everywhere; steps 2 and 3 the narrow tile to 256 tokens and chapter 08's past
  // them; step 4 step 3's choice to 256 tokens and stream-K past them.
  for (int n : {1, 16, 256, 257, 8192}) {
    INFO(n << " tokens");
    CHECK(Step1Chapter08::choose(4096, n, 4096, 132).kind == ScheduleKind::Chapter08);
    const Schedule two = Step2SmallM::choose(4096, n, 4096, 132), three = Step3SplitK::choose(4096, n, 4096, 132);
    const Schedule four = Step4StreamK::choose(4096, n, 4096, 132);
    const ScheduleKind narrow_or_ch08 = n <= 256 ? ScheduleKind::Narrow : ScheduleKind::Chapter08;
    CHECK(two.kind == narrow_or_ch08);
    CHECK(three.kind == narrow_or_ch08);
    CHECK(four.kind == (n <= 256 ? ScheduleKind::Narrow : ScheduleKind::StreamK));
    if (n <= 256) {
      CHECK(two.block_n == Step2SmallM::block_n(n));
      CHECK(two.splits == 1);
      CHECK(three.splits == split_k_choice(4096, n, 4096, 132).splits);
      CHECK(four.label() == three.label());
    }
  }
  CHECK(Step3SplitK::choose(4096, 1, 4096, 132).label() == "BN s2");  // 64 tiles: two splits
  // The table: one row a kind, in the kinds' order, with the token ranges step 5 weighs them at.
  REQUIRE(std::size(kSchedules) == 5);
  for (const ScheduleRow& r : kSchedules) CHECK(schedule_row(r.kind).label == r.label);
  CHECK(weighed_at(ScheduleKind::Chapter08, 1));
  CHECK(weighed_at(ScheduleKind::Chapter08, 1 << 20));
  CHECK_FALSE(weighed_at(ScheduleKind::StreamK, Step2SmallM::kMaxTokens));
  CHECK(weighed_at(ScheduleKind::StreamK, Step2SmallM::kMaxTokens + 1));
  CHECK(weighed_at(ScheduleKind::Narrow, kNarrowMaxTokens));
  CHECK_FALSE(weighed_at(ScheduleKind::Narrow, kNarrowMaxTokens + 1));
  CHECK_FALSE(weighed_at(ScheduleKind::Wide, kWideMinTokens - 1));
  CHECK(weighed_at(ScheduleKind::Wide, kWideMaxTokens));
  CHECK_FALSE(weighed_at(ScheduleKind::Pair, kNarrowMaxTokens + 1));
  // The labels the sweep's columns use.
  Schedule half{ScheduleKind::Narrow};
  half.block_n = 8, half.splits = 4, half.half_n = true;
  CHECK(half.label() == "BN/2 s4");
  CHECK(Schedule{ScheduleKind::Pair}.label() == "pair");
  // What the suite's tables print for each kind, from the waves schedule_waves counts.
  Schedule wide{ScheduleKind::Wide};
  wide.width = 80;
  const ScheduleWaves w = schedule_waves(wide, 10240, 128, 132, 64);
  CHECK(w.waves.units == 128);  // 10240 / 80 weights by one 128-token tile
  CHECK(w.busy_sms == 128);
  CHECK(w.idle_sms_last_wave == 4);
  CHECK(describe(wide, w, 128) == "wide 128 x 80 tiles");
  const ScheduleWaves sk = schedule_waves(Schedule{ScheduleKind::StreamK}, 4096, 512, 132, 64);
  CHECK(sk.busy_sms == 128);
  CHECK(sk.idle_sms_last_wave == 4);
}

// Step 3's kernel with a fixed tile and split count, as a launcher type.
template <int BlockN, int Splits>
struct FixedSplit : SuiteStep {
  static constexpr const char* name = "3 split-K, fixed";
  static void launch(int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B,
                     int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
    launch_split_k<BlockN, Splits>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  }
};

TEST_CASE("step 3 passes both checks at every split count, with chunks of K left empty, and with every scale",
          "[gpu][gemm][step3]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for (auto [alpha, beta] : tc::test::gemm_scales<__nv_bfloat16>()) {
    INFO("alpha " << alpha << " beta " << beta);
    // 8B O at one token: 2 splits
    tc::test::check_launcher<Scheduled<Step3SplitK>>(cublas, 4096, 1, 4096, alpha, beta, 75);
    tc::test::check_launcher<Scheduled<Step3SplitK>>(cublas, 264, 17, 65, alpha, beta, 75);     // the padded path
  }
  tc::test::check_launcher<FixedSplit<8, 2>>(cublas, 1000, 3, 200, 1, 0, 77);    // K = 200: chunks of 2 and 2 slices
  tc::test::check_launcher<FixedSplit<16, 4>>(cublas, 1000, 16, 1000, 1, 0, 77);
  tc::test::check_launcher<FixedSplit<32, 8>>(cublas, 1000, 20, 200, 1, 0, 77);  // 4 slices: blocks 4-7 get none
  tc::test::check_launcher<FixedSplit<128, 2>>(cublas, 8192, 100, 28672, 1, 0, 77);
  tc::test::check_launcher<FixedSplit<256, 4>>(cublas, 520, 300, 1024, 1, 0, 77);  // two column tiles
  // The token tiles between the powers of two, each part-filled.
  tc::test::check_launcher<FixedSplit<96, 2>>(cublas, 1000, 70, 1000, 1, 0, 77);
  tc::test::check_launcher<FixedSplit<160, 4>>(cublas, 1000, 150, 2000, 1, 0, 77);
  tc::test::check_launcher<FixedSplit<192, 2>>(cublas, 520, 171, 1000, 1, 0, 77);
  tc::test::check_launcher<FixedSplit<224, 8>>(cublas, 200, 400, 1100, 1, 0, 77);  // two column tiles
}

// Runs Launcher four times on the same random operands, and checks that C is the same bit for bit every time.
template <typename Launcher>
void check_same_bits_every_run(const tc::CublasHandle& cublas, const tc::GemmProblem& p) {
  tc::DeviceRandomOperands<__nv_bfloat16, __nv_bfloat16> random(cublas, p, 9);
  auto run = [&] {
    random.reset_c();
    tc::launch_gemm_any_size<Launcher>(p.m, p.n, p.k, 1.0f, random.a(), p.lda, random.b(), p.ldb, 0.0f, random.c(),
                                       p.ldc, nullptr);
    TC_CHECK(cudaDeviceSynchronize());
    std::vector<__nv_bfloat16> c(p.c_elements());
    TC_CHECK(cudaMemcpy(c.data(), random.c(), c.size() * sizeof c[0], cudaMemcpyDeviceToHost));
    return c;
  };
  const std::vector<__nv_bfloat16> first = run();
  for (int i = 0; i < 3; ++i) {
    const std::vector<__nv_bfloat16> again = run();
    CHECK(std::memcmp(first.data(), again.data(), first.size() * sizeof first[0]) == 0);
  }
}

TEST_CASE("step 3's sums are the same bit for bit on every run", "[gpu][step3]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  const SuiteShape s{16, LinearLayer{"8B", "down", 4096, 14336}};  // 64 tiles: 2 splits
  const tc::GemmProblem p = s.problem();
  REQUIRE(split_k_choice(p.m, p.n, p.k, tc::current_device_sms()).splits > 1);
  check_same_bits_every_run<Scheduled<Step3SplitK>>(cublas, p);
}

// The wide tile at one width, as a launcher type for check_launcher (k = 0 goes to step 1, as step 5 sends it).
template <int Width>
struct WideAt : SuiteStep {
  static constexpr const char* name = "5 wide tile";
  static void launch(int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B,
                     int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
    if (k == 0) return launch_chapter08(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    launch_wide(Width, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  }
};

// The pair tile at one token tile, as a launcher type for check_launcher (k = 0 goes to step 1, as step 5 sends it).
template <int BlockN>
struct PairAt : SuiteStep {
  static constexpr const char* name = "5 pair tile";
  static constexpr int kBlockN = BlockN;
  static void launch(int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B,
                     int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
    if (k == 0) return launch_chapter08(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    launch_pair(BlockN, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  }
};

// Stream-K at any token count, for the checks below: a step that always chooses it.
struct StreamKAlways : Scheduled<StreamKAlways> {
  static constexpr const char* name = "4 stream-K at any tokens";
  static Schedule choose(int, int, int, int) { return {ScheduleKind::StreamK}; }
};

TEST_CASE("the exact check fails a split that drops a K chunk, a split or a stream-K fixup that adds a partial "
          "twice, and step 2, the wide tile or the pair tile loading a K slice twice, at 16 and 8192 tokens",
          "[gpu][step2][step3][step4][step5]") {
  using tc::test::PlantedBug;
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for (int tokens : {16, 8192}) {
    const SuiteShape s{tokens, LinearLayer{"8B", "O", 4096, 4096}};
    const tc::GemmProblem p = s.problem();
    tc::DeviceExactCheck<__nv_bfloat16, __nv_bfloat16> exact(cublas, p, 21);
    // The exact check's verdict on `launcher` with `bug` switched on (tc_test/planted_bugs.cuh), or none.
    auto verdict = [&](auto launcher, PlantedBug bug = PlantedBug::None) {
      using L = decltype(launcher);
      const tc::test::PlantedBugScope plant(bug);
      return exact.run([&](const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C) {
        tc::launch_gemm_any_size<L>(p.m, p.n, p.k, 1.0f, A, p.lda, B, p.ldb, 0.0f, C, p.ldc, nullptr);
      });
    };
    INFO(s.name());
    // 16 tokens: the tile step 3 runs there; 8192: the widest tile, 32 of them across the tokens.
    if (tokens == 16) {
      CHECK(verdict(FixedSplit<16, 4>{}).passed);
      CHECK_FALSE(verdict(FixedSplit<16, 4>{}, PlantedBug::SplitDropsLastChunk).passed);
      CHECK_FALSE(verdict(FixedSplit<16, 4>{}, PlantedBug::SplitAddsPartialTwice).passed);
      // Step 2's own kernel at 16 tokens (its narrow tile; past 256 tokens it runs step 1).
      CHECK(verdict(Scheduled<Step2SmallM>{}).passed);
      CHECK_FALSE(verdict(Scheduled<Step2SmallM>{}, PlantedBug::MiddleSliceTwice).passed);
    } else {
      CHECK(verdict(FixedSplit<256, 2>{}).passed);
      CHECK_FALSE(verdict(FixedSplit<256, 2>{}, PlantedBug::SplitDropsLastChunk).passed);
      CHECK_FALSE(verdict(FixedSplit<256, 2>{}, PlantedBug::SplitAddsPartialTwice).passed);
    }
    // Stream-K at either count: 11 or 352 tiles of 64 slices on the persistent grid, some shared by clusters (the
    // host test above).
    CHECK(verdict(StreamKAlways{}).passed);
    CHECK_FALSE(verdict(StreamKAlways{}, PlantedBug::FixupAddsPartialTwice).passed);
    // The wide tile (step 5's, width 80) at either count.
    CHECK(verdict(WideAt<80>{}).passed);
    CHECK_FALSE(verdict(WideAt<80>{}, PlantedBug::MiddleSliceTwice).passed);
    // The pair tile (step 5's, 136 tokens a tile): both consumers read the doubled slice.
    CHECK(verdict(PairAt<136>{}).passed);
    CHECK_FALSE(verdict(PairAt<136>{}, PlantedBug::MiddleSliceTwice).passed);
  }
}

// A planted bug: step 1 launched with the last 8 of K left out, a dropped K chunk (lda and ldb stay K, so every
// element misses 8 products, and the operands stay ones TMA can address).
struct Step1DropsLastKChunk : Scheduled<Step1Chapter08> {
  static constexpr const char* name = "1 dropping K's last 8";
  static void launch(int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B,
                     int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
    launch_chapter08(m, n, k - 8, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  }
};

TEST_CASE("the suite's checks (made on the GPU) pass steps 1 to 3 and fail a dropped K chunk, at 16 and 8192 tokens",
          "[gpu][gemm]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  const tc::CublasLtHandle lt;
  const tc::L2Flush flush;
  const tc::FlushedTiming once{&flush, 0, 1, 0};  // run_shape times too; one launch each is enough here
  for (int m : {16, 8192}) {
    const SuiteShape s{m, LinearLayer{"8B", "O", 4096, 4096}};
    INFO(s.name());
    const std::vector<ShapeResult> rows =
        run_shape<Scheduled<Step1Chapter08>, Scheduled<Step2SmallM>, Scheduled<Step3SplitK>, Step1DropsLastKChunk>(
            cublas, lt, s, 1.0, 0.0, 5, once, 132);
    REQUIRE(rows.size() == 4);
    for (int i : {0, 1, 2}) {
      const ShapeResult& good = rows[i];
      INFO(good.kernel << ": " << good.verdict.exact.summary() << "\n" << good.verdict.random.summary());
      CHECK(good.verdict.passed());
      CHECK(good.verdict.exact.checked == std::int64_t(m) * 4096);
      // No launch can beat the GPU's datasheet peaks (989 TFLOP/s dense bf16, 4.8 TB/s): a time under the floor
      // they give (with 25% to spare) has timed something other than the kernel, such as an empty stream.
      const double floor_ms = 1e3 * std::max(tc::gemm_flops(m, 4096, 4096) / 1.25 / 989e12,
                                             2.0 * 4096 * 4096 / 1.25 / 4.8e12);
      INFO(good.kernel << ": " << good.ms << " ms, cublasGemmEx " << good.cublas_ms << " ms, floor " << floor_ms);
      CHECK(good.ms > floor_ms);
      CHECK(good.cublas_ms > floor_ms);
    }
    // Past 256 tokens steps 2 and 3 are step 1.
    CHECK((rows[1].plan.schedule == rows[0].plan.schedule) == (m > Step2SmallM::kMaxTokens));
    CHECK((rows[2].plan.schedule == rows[0].plan.schedule) == (m > Step2SmallM::kMaxTokens));
    const ShapeResult& bad = rows[3];
    INFO(bad.verdict.exact.summary());
    CHECK_FALSE(bad.verdict.exact.passed);
    // Most elements' 8 missing products do not cancel.
    CHECK(bad.verdict.exact.failures > bad.verdict.exact.checked / 2);
  }
}

TEST_CASE("a flushed timing reads from DRAM: the flush makes an L2-sized read slower than the same read warm",
          "[gpu][flush]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::L2Flush flush;
  // Three quarters of the L2: warm, every repeat finds it in the L2; flushed, none of it. Large, so that the read
  // takes several times a launch's fixed cost, which both timings share (a quarter measured 1.4 to 1.8 times slower
  // flushed on an H100, too close to a threshold).
  const std::size_t vectors = flush.l2_bytes() * 3 / 4 / 16;
  tc::DeviceBuffer<uint4> data(vectors);
  tc::DeviceBuffer<unsigned> sink(1);
  TC_CHECK(cudaMemset(data.data(), 0, data.bytes()));
  auto read = [&] { tc::l2_flush_read_kernel<<<264, 512>>>(data.data(), vectors, sink.data()); };
  const double warm = tc::Timing{5, 30, 0}.median_ms(read);
  const double cold = tc::FlushedTiming{&flush, 5, 30, 0}.median_ms(read);
  INFO("warm " << warm << " ms, flushed " << cold << " ms for " << data.bytes() / (1 << 20) << " MiB");
  CHECK(cold > 1.3 * warm);  // DRAM against the L2: about 2x on an H100 or H200
}

TEST_CASE("the copy's ceiling is a DRAM figure, bytes read plus written", "[gpu][flush]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const double copy_gbps = tc::measure_copy_gbps(std::size_t(1) << 30, 5);
  // The same DRAM read alone: the flush kernel over 1 GiB, 16 times the L2, counting the bytes it reads. HBM moves
  // bytes at about one rate whichever way they go, so a copy counted as read plus written runs near the read's rate;
  // a copy that counted only its reads (or its bytes twice) would be near half (or twice) of it.
  const std::size_t vectors = (std::size_t(1) << 30) / 16;
  tc::DeviceBuffer<uint4> data(vectors);
  tc::DeviceBuffer<unsigned> sink(1);
  TC_CHECK(cudaMemset(data.data(), 0, data.bytes()));
  int sms = 0;
  TC_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double read_ms = tc::Timing{2, 20, 0}.median_ms(
      [&] { tc::l2_flush_read_kernel<<<4 * sms, 512>>>(data.data(), vectors, sink.data()); });
  const double read_gbps = double(data.bytes()) / (read_ms * 1e-3) / 1e9;
  INFO("copy " << copy_gbps << " GB/s (read + written), read alone " << read_gbps << " GB/s");
  CHECK(copy_gbps > 0.7 * read_gbps);
  CHECK(copy_gbps < 1.3 * read_gbps);
  CHECK_THROWS_AS(tc::measure_copy_gbps(0, 5), std::invalid_argument);
}

TEST_CASE("stream-K streams only the tiles past whole waves, covers every iteration once in equal shares, and names "
          "each tile's owner",
          "[step4]") {
  for (int tiles : {1, 5, 32, 33, 64, 100, 128, 352, 4800})
    for (int slices : {1, 3, 64, 448})
      for (int clusters : {1, 7, 64, 66}) {
        const stream_k::Plan p{tiles, slices, clusters};
        INFO(tiles << " tiles of " << slices << " slices on " << clusters << " clusters");
        REQUIRE(p.fits());
        // Streamed: none where the waves are whole, all where the tiles are fewer than the clusters, else one full
        // wave and the rest, so that every cluster streams one to two tiles' worth.
        if (tiles % clusters == 0) REQUIRE(p.sk_tiles() == 0);
        else if (tiles < clusters) REQUIRE(p.sk_tiles() == tiles);
        else REQUIRE((p.sk_tiles() > clusters && p.sk_tiles() < 2 * clusters));
        REQUIRE(p.sk_tiles() + p.dp_waves() * clusters == tiles);
        std::vector<int> covered(tiles, 0), owners(tiles, -1);
        int streamed = 0, shortest = p.sk_total() + p.dp_waves() * slices, longest = 0;
        for (int c = 0; c < clusters; ++c) {
          REQUIRE(p.begin(c) == streamed);  // contiguous, in cluster order
          streamed = p.end(c);
          shortest = std::min(shortest, p.finish(c) - p.begin(c));
          longest = std::max(longest, p.finish(c) - p.begin(c));
          // Every span but a range's first starts its tile: a cluster writes one partial at most.
          int partials = 0;
          for (int at = p.begin(c); at < p.finish(c);) {
            const stream_k::Span span = stream_k::span_at(p, c, at);
            REQUIRE((span.tile >= 0 && span.tile < tiles));
            REQUIRE((0 <= span.first && span.first < span.last && span.last <= slices));
            REQUIRE((span.starts_tile() || at == p.begin(c)));
            REQUIRE(((span.tile < p.sk_tiles()) == (at < p.end(c))));  // streamed tiles first, then whole ones
            partials += span.starts_tile() ? 0 : 1;
            covered[span.tile] += span.last - span.first;
            if (span.starts_tile()) {
              REQUIRE(owners[span.tile] == -1);
              owners[span.tile] = c;
            }
            at += span.last - span.first;
          }
          REQUIRE(partials <= 1);
        }
        REQUIRE(streamed == p.sk_total());
        REQUIRE(longest - shortest <= 1);  // equal shares of all the work, whole tiles included
        for (int t = 0; t < tiles; ++t) {
          REQUIRE(covered[t] == slices);  // with the checks above: each slice of each tile once
          REQUIRE(owners[t] == p.owner(t));
          if (t >= p.sk_tiles()) {
            REQUIRE(p.last(t) == p.owner(t));  // a whole tile: no partials to wait for
            continue;
          }
          REQUIRE(p.begin(p.owner(t)) <= t * slices);
          REQUIRE(p.end(p.last(t)) >= (t + 1) * slices);
          // Every working cluster past the owner, up to the last, runs the start of its range in this tile.
          for (int c = p.owner(t) + 1; c <= p.last(t); ++c)
            if (p.works(c)) REQUIRE(p.begin(c) / slices == t);
        }
        if (p.sk_total() > 2000) continue;  // the rest walks every streamed iteration
        for (int i = 0; i < p.sk_total(); ++i) {
          const int c = p.cluster_of(i);
          REQUIRE((p.begin(c) <= i && i < p.end(c)));
        }
      }
}

TEST_CASE("stream-K shares tiles between clusters at the shapes its tests plant a fixup bug in", "[step4]") {
  using Tile = Step1Chapter08::Tile;
  // The H200's and H100's persistent grid: 64 clusters; 8B O at 512 tokens is the case stream-K is for.
  for (int tokens : {16, 512, 8192}) {
    const tc::HeightPlan plan = tc::uniform_plan<Tile>(4096, tokens);  // 11 rows of 384-row cluster tiles
    const stream_k::Plan p{plan.count(), 4096 / tc::kSliceK, 64};
    INFO(tokens << " tokens: " << plan.count() << " tiles");
    int shared = 0;
    for (int t = 0; t < p.tiles; ++t) shared += p.last(t) > p.owner(t) ? 1 : 0;
    CHECK(shared > 0);  // so a fixup that adds a partial twice changes C
  }
}

TEST_CASE("step 4 (stream-K) passes both checks at suite shapes, through the padded path and with every scale",
          "[gpu][gemm][step4]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for (auto [alpha, beta] : tc::test::gemm_scales<__nv_bfloat16>()) {
    INFO("alpha " << alpha << " beta " << beta);
    // 8B O: 22 tiles, all shared
    tc::test::check_launcher<Scheduled<Step4StreamK>>(cublas, 4096, 512, 4096, alpha, beta, 79);
    tc::test::check_launcher<Scheduled<Step4StreamK>>(cublas, 264, 300, 65, alpha, beta, 79);     // the padded path
  }
  tc::test::check_launcher<Scheduled<Step4StreamK>>(cublas, 4096, 512, 14336, 1, 0, 81);   // 8B down
  tc::test::check_launcher<Scheduled<Step4StreamK>>(cublas, 6144, 2048, 4096, 1, 0, 81);   // 8B QKV
  // one slice a tile: fewer than clusters
  tc::test::check_launcher<Scheduled<Step4StreamK>>(cublas, 1000, 300, 64, 1, 0, 81);
  tc::test::check_launcher<Scheduled<Step4StreamK>>(cublas, 4096, 8192, 4096, 1, 0, 81);   // 8B O at 8192 tokens
  // k = 0: beta C, through step 1
  tc::test::check_launcher<Scheduled<Step4StreamK>>(cublas, 4096, 512, 0, 1, 0.5, 81);
}


TEST_CASE("step 4's fixups are the same bit for bit on every run", "[gpu][step4]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  const SuiteShape s{512, LinearLayer{"8B", "down", 4096, 14336}};
  const tc::GemmProblem p = s.problem();
  check_same_bits_every_run<Scheduled<Step4StreamK>>(cublas, p);
}

// An H100's or H200's counts, with the fitted constants as they are: what the model sees on either GPU but for the
// DRAM's bandwidth (the H100's here).
MachineModel h100_model() {
  MachineModel g;
  g.sms = 132;
  g.clusters = 64;
  g.dram_bytes_per_s = 3.0e12;
  return g;
}

TEST_CASE("step 5's model: each schedule's time is the launch plus the longer of its compute and its DRAM time, over "
          "the waves the steps print",
          "[step5]") {
  const MachineModel g = h100_model();
  for (const SuiteShape& s : suite(true, kSuiteTokens)) {
    INFO(s.name());
    const std::vector<ScheduleEstimate> all = estimate_schedules(s.n(), s.m, s.k(), g);
    std::vector<std::string> labels;
    for (const ScheduleEstimate& e : all) {
      labels.push_back(e.label());
      CHECK(e.seconds == g.launch_s + std::max(e.compute_s, e.dram_s));
      // The DRAM term: the operands' bytes at the DRAM's bandwidth, or at what the busy SMs pull, if less.
      CHECK(e.busy_sms >= 1);
      CHECK(e.busy_sms <= g.sms);
      CHECK(e.dram_s == Approx(s.operand_bytes() / std::min(g.dram_bytes_per_s, e.busy_sms * g.sm_dram_bytes_per_s)));
      CHECK(e.compute_s > 0.0);
    }
    // Chapter 08 everywhere, with step 1's waves; stream-K only where step 4 runs it; the narrow tiles up to 1024
    // tokens (the wide tile to 2048), in the sweep's column order, each split keeping 8 slices (8B's K of 4096 is 64
    // slices: 1, 2 and 4).
    REQUIRE(labels.front() == "ch08");
    CHECK(all.front().waves.waves == step1_waves(s.n(), s.m, g.clusters, g.sms).waves.waves);
    // Chapter 08's multiplies: the busiest cluster's rows of C, in tall cluster tiles (384 rows) of slices, so that
    // a short tile (256 rows) costs two thirds of a tall one.
    using Tile = Step1Chapter08::Tile;
    const tc::HeightPlan plan = tc::tile_plan<Tile>(s.n(), s.m, g.clusters);
    const double tall_slice_s = 2.0 * Tile::BlockM * Tile::BlockN * tc::kSliceK / g.sm_flops_per_s;
    CHECK(all.front().compute_s == Approx(tc::busiest_cluster_rows(plan, g.clusters) / 384.0 *
                                          tc::ceil_div(s.k(), tc::kSliceK) * tall_slice_s));
    if (s.n() == 4096 && s.m == 1) CHECK(tc::busiest_cluster_rows(plan, g.clusters) == 256);  // 16 short tiles
    CHECK((std::find(labels.begin(), labels.end(), "stream-K") != labels.end()) == (s.m > 256));
    if (s.m == 1) CHECK(labels == std::vector<std::string>{"ch08", "BN", "BN s2", "BN s4"});
    if (s.m == 16)
      CHECK(labels == std::vector<std::string>{"ch08", "BN", "BN s2", "BN s4", "BN/2", "BN/2 s2", "BN/2 s4"});
    if (s.m > kNarrowMaxTokens && s.m <= kWideMaxTokens)
      CHECK(labels == std::vector<std::string>{"ch08", "stream-K", "wide"});
    if (s.m > kWideMaxTokens) CHECK(labels == std::vector<std::string>{"ch08", "stream-K"});
    // The choice is the smallest estimate.
    const ScheduleEstimate chosen = choose_schedule(s.n(), s.m, s.k(), g);
    for (const ScheduleEstimate& e : all) CHECK(chosen.seconds <= e.seconds);
    // More K is never faster.
    const std::vector<ScheduleEstimate> deeper = estimate_schedules(s.n(), s.m, 2 * s.k(), g);
    for (std::size_t i = 0; i < std::min(all.size(), deeper.size()); ++i)
      if (deeper[i].label() == all[i].label()) CHECK(deeper[i].seconds >= all[i].seconds);
  }
}

TEST_CASE("step 5's model charges stream-K its fixup: each owner reads its tile's partials in turn, so with fewer "
          "tiles than clusters the narrow tiles in splits win",
          "[step5][step4]") {
  using Tile = Step1Chapter08::Tile;
  const MachineModel g = h100_model();
  const double partial_s = 4.0 * Tile::BlockM * Tile::BlockN / g.sm_l2_bytes_per_s;  // one block's fp32 tile
  const auto stream_k_of = [&](int m, int n, int k) {
    for (const ScheduleEstimate& e : estimate_schedules(m, n, k, g))
      if (e.kind == ScheduleKind::StreamK) return e;
    FAIL("no stream-K estimate");
    return ScheduleEstimate{};
  };
  // 768 weights, 512 tokens: 4 cluster tiles on 64 clusters, so 16 clusters share each tile, and its owner reads the
  // partials of the other 15 after writing its own for the tile before: 16 partials' time on top of the slices.
  const int m = 768, n = 512, k = 8192, slices = k / tc::kSliceK;
  const stream_k::Plan p{tc::uniform_plan<Tile>(m, n).count(), slices, g.clusters};
  REQUIRE(p.tiles == 4);
  CHECK(p.last(0) - p.owner(0) == 15);
  const double tall_slice_s = 2.0 * Tile::BlockM * Tile::BlockN * tc::kSliceK / g.sm_flops_per_s;
  const ScheduleEstimate sk = stream_k_of(m, n, k);
  CHECK(sk.compute_s == Approx(g.streamed_slice * p.sk_total() / g.clusters * tall_slice_s + 16 * partial_s));
  const ScheduleEstimate chosen = choose_schedule(m, n, k, g);
  CHECK(chosen.kind == ScheduleKind::Narrow);
  CHECK(chosen.splits > 1);
  // Whole waves of tiles stream nothing and share no tile: no fixup (768 weights, 8192 tokens: 64 tiles).
  const stream_k::Plan whole{tc::uniform_plan<Tile>(768, 8192).count(), 64, g.clusters};
  REQUIRE(whole.sk_tiles() == 0);
  CHECK(stream_k_of(768, 8192, 4096).compute_s == Approx(double(whole.dp_waves()) * 64 * tall_slice_s));
}

TEST_CASE("step 5's choice: the narrow tiles at one token, chapter 08 at 8192, and the narrow tiles where chapter 08 "
          "idles half the GPU",
          "[step5]") {
  const MachineModel g = h100_model();
  for (const LinearLayer& layer : kLlamaLayers) {
    INFO(layer.model << " " << layer.name);
    // One token: the 64 x 8 tile, bound by the weights' read (the DRAM term is the longer).
    const ScheduleEstimate one = choose_schedule(layer.n, 1, layer.k, g);
    CHECK(one.kind == ScheduleKind::Narrow);
    CHECK(one.block_n == 8);
    CHECK(one.dram_s >= one.compute_s);
    // 8192 tokens: whole waves of chapter 08's tiles, bound by the multiplies.
    const ScheduleEstimate many = choose_schedule(layer.n, 8192, layer.k, g);
    CHECK(many.kind == ScheduleKind::Chapter08);
    CHECK(many.compute_s > many.dram_s);
  }
  // 8B O and down at one token: 64 tiles of 64 x 8, fewer than the SMs, one block on each of 64 SMs; two splits busy
  // 128 SMs. Every narrow schedule waits on the DRAM there, so their estimates tie, and the choice takes the one with
  // the least to compute: two splits, each SM half the slices (the sweep's fastest at both shapes).
  for (const LinearLayer& layer : kLlamaLayers) {
    if (layer.n != 4096) continue;  // Llama-3-8B's O and down
    const std::vector<ScheduleEstimate> all = estimate_schedules(4096, 1, layer.k, g);
    REQUIRE(all.size() >= 3);
    CHECK(all[1].label() == "BN");
    CHECK(all[1].busy_sms == 64);
    CHECK(all[1].waves.workers == 264);  // two slots an SM, the second left empty
    CHECK(all[2].label() == "BN s2");
    CHECK(all[2].busy_sms == 128);
    CHECK(all[1].seconds == all[2].seconds);
    CHECK(all[2].compute_s < all[1].compute_s);
    CHECK(choose_schedule(4096, 1, layer.k, g).label() == "BN s2");
  }
  // 8B O and down at 512 tokens: chapter 08's 32 tiles busy half the 64 clusters; the narrow tiles, two columns of
  // 256 tokens, busy every SM (the sweep's fastest there).
  for (int k : {4096, 14336}) {
    const ScheduleEstimate e = choose_schedule(4096, 512, k, g);
    CHECK(e.label() == "BN");
    CHECK(e.block_n == 256);
    CHECK(e.waves.units == 64 * 2);
  }
}

// A sweep's table as tools/schedule_sweep.cu prints it, from per-row times in kSweepColumns' order (-1: "-").
std::string sweep_text(const std::vector<std::pair<SuiteShape, std::vector<double>>>& rows) {
  std::string out = "[8B O 1x4096x4096] done\n\n== every schedule on a GPU ==\nmodel  layer  M  N  K  BN  W read ms";
  for (const std::string& column : calibration::kSweepColumns) out += "  " + column;
  out += "  fastest  model  fastest / model\n";
  for (const auto& [s, ms] : rows) {
    out += std::string(s.layer.model) + " " + s.layer.name + " " + std::to_string(s.m) + " " +
           std::to_string(s.n()) + " " + std::to_string(s.k()) + " 8 0.0100";
    for (double t : ms) out += t < 0.0 ? std::string(" -") : " " + std::to_string(t);
    out += " ch08 ch08 1.000\n";
  }
  return out + "BN: wgmma's N for the tokens\n";
}

TEST_CASE("the calibration reads the sweep's table, replays step 5's choice on it, and finds constants that pick "
          "as the measurements do",
          "[step5][calibration]") {
  // Measurements made by a model itself (every schedule it estimates timed at its estimate): from constants off by
  // up to 2x, the calibration must find a model that picks the fastest at every shape.
  MachineModel truth;
  truth.dram_bytes_per_s = 4.3e12;
  std::vector<std::pair<SuiteShape, std::vector<double>>> made;
  for (const SuiteShape& s : suite(true, kSuiteTokens)) {
    std::vector<double> ms(calibration::kSweepColumns.size(), -1.0);
    for (const ScheduleEstimate& e : estimate_schedules(s.n(), s.m, s.k(), truth)) {
      const auto at = std::find(calibration::kSweepColumns.begin(), calibration::kSweepColumns.end(), e.label());
      REQUIRE(at != calibration::kSweepColumns.end());
      ms[std::size_t(at - calibration::kSweepColumns.begin())] = e.seconds * 1e3;
    }
    made.push_back({s, ms});
  }
  std::istringstream text(sweep_text(made));
  const std::vector<calibration::SweepRow> rows = calibration::read_sweep(text);
  REQUIRE(rows.size() == made.size());
  CHECK(rows[0].name == made[0].first.name());
  CHECK(rows[0].tokens == made[0].first.m);
  CHECK(rows[0].weights == made[0].first.n());
  CHECK(calibration::model_error(rows, truth).geomean == Approx(1.0));
  CHECK(calibration::model_error(rows, truth).fit_rms < 1e-4);  // the printed times' six decimals
  MachineModel off = truth;
  off.launch_s *= 2.0, off.narrow_wave_s *= 0.5, off.sm_dram_bytes_per_s *= 0.5, off.wide_l2_bytes_per_s *= 2.0;
  off.pair_l2_bytes_per_s *= 0.5;
  const calibration::ModelError before = calibration::model_error(rows, off);
  CHECK(before.geomean < 1.0);  // the perturbed constants pick worse, or the test proves nothing
  const calibration::ModelError after = calibration::model_error(rows, calibration::calibrate(rows, off));
  CHECK(after.geomean == Approx(1.0));
  CHECK(after.worst == Approx(1.0));
  CHECK(after.fit_rms < before.fit_rms);

  // A sweep made before the pair tile (no "pair" in its header) reads its nine columns, and no pair time.
  std::string nine = "== every schedule ==\nmodel layer M N K BN W read ms ch08 stream-K BN BN s2 BN s4 BN/2 BN/2 s2 "
                     "BN/2 s4 wide fastest model fastest / model\n8B O 64 4096 4096 64 0.0120 0.0448 0.0457 0.0183 "
                     "0.0171 0.0233 0.0183 0.0173 0.0262 0.0170 wide BN/2 0.929\n";
  std::istringstream before_pair(nine);
  const std::vector<calibration::SweepRow> old = calibration::read_sweep(before_pair);
  REQUIRE(old.size() == 1);
  CHECK(old[0].ms_of("wide") == 0.0170);
  CHECK(old[0].ms_of("pair") < 0.0);

  // What the calibration cannot read is an error, not an empty fit.
  std::istringstream none("RESULT: every check passed\n");
  CHECK_THROWS_AS(calibration::read_sweep(none), std::runtime_error);
  std::string broken = sweep_text({made[0]});
  broken.replace(broken.find(" 8 0.0100"), 9, " 8 0.0100 x");
  std::istringstream bad(broken);
  CHECK_THROWS_AS(calibration::read_sweep(bad), std::runtime_error);
}

TEST_CASE("step 5's model on the committed suite sweep: its pick within 5% of the fastest schedule measured at the "
          "geomean, and within 15% at every shape",
          "[step5][calibration]") {
  // The issue's targets for the model, held on every build against the measurements docs/results records, so that a
  // change to the model that picks worse on them fails here, on any machine. The held-out suite's sweep is reported,
  // not held here: a test on it would invite fitting to it.
  std::ifstream in(std::string(TC_FIGURES_DIR) + "/../results/10_schedule_sweep_h200.txt");
  REQUIRE(in);
  const std::vector<calibration::SweepRow> rows = calibration::read_sweep(in);
  CHECK(rows.size() == 56);
  CHECK(rows[0].name == "8B QKV 1x6144x4096");
  CHECK(rows[0].ms_of("BN") == 0.0177);
  MachineModel h200;  // as current_machine has it on an H200, with the code's fitted constants
  h200.dram_bytes_per_s = 0.9 * 4.8e12;
  const calibration::ModelError e = calibration::model_error(rows, h200);
  INFO("worst: " << e.worst_row);
  CHECK(e.unmeasured == 0);
  CHECK(e.geomean >= 0.95);
  CHECK(e.worst >= 0.85);
  // The code's fitted constants are what the calibration finds from this sweep: it moves none of them.
  const MachineModel refit = calibration::calibrate(rows, h200);
  for (const calibration::Constant& c : calibration::kFitted) {
    INFO(c.name);
    CHECK(refit.*c.field == h200.*c.field);
  }
}

TEST_CASE("step 5 passes both checks at shapes where the model picks each kind of schedule, with every scale",
          "[gpu][gemm][step5]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for (auto [alpha, beta] : tc::test::gemm_scales<__nv_bfloat16>()) {
    INFO("alpha " << alpha << " beta " << beta);
    // 64 x 256 tiles, 2 columns
    tc::test::check_launcher<Scheduled<Step5Choice>>(cublas, 4096, 512, 4096, alpha, beta, 83);
    tc::test::check_launcher<Scheduled<Step5Choice>>(cublas, 264, 300, 65, alpha, beta, 83);     // the padded path
  }
  tc::test::check_launcher<Scheduled<Step5Choice>>(cublas, 4096, 64, 14336, 1, 0, 85);  // split-K
  tc::test::check_launcher<Scheduled<Step5Choice>>(cublas, 4096, 96, 4096, 1, 0, 85);   // 64 x 96 tiles, split-K 2
  tc::test::check_launcher<Scheduled<Step5Choice>>(cublas, 6144, 2048, 4096, 1, 0, 85); // chapter 08
  tc::test::check_launcher<Scheduled<Step5Choice>>(cublas, 4096, 512, 0, 1, 0.5, 85);   // k = 0: beta C
}

TEST_CASE("step 5's wide tile: the width that makes about one tile an SM, 64 or 128 tokens a tile", "[step5]") {
  // 128 tokens: one token tile of 128; the width puts the weight in about 128 tiles, one wave on 132 SMs.
  CHECK(wide_width(10240, 128, 132) == 80);   // 128 tiles (64 would make 160, two waves; 128 would leave 52 idle)
  CHECK(wide_width(6144, 128, 132) == 48);    // 128 tiles
  CHECK(wide_width(28672, 128, 132) == 224);  // 128 tiles
  CHECK(wide_width(57344, 128, 132) == 224);  // 256 tiles: two full waves, the widest width
  // 64 tokens or fewer: one warpgroup; 512 tokens: four token tiles, so the width is four times the 128-token one's.
  CHECK(wide_consumers(64) == 1);
  CHECK(wide_consumers(65) == 2);
  CHECK(wide_width(10240, 64, 132) == 80);
  CHECK(wide_width(6144, 512, 132) == 192);  // 4 x 32 = 128 tiles
  for (int m : {4096, 6144, 8192, 10240, 14336, 28672, 57344})
    for (int n : {33, 64, 128, 256, 512, 1024}) {
      INFO(m << " weights, " << n << " tokens");
      const int w = wide_width(m, n, 132);
      CHECK(std::find(std::begin(kWideWidths), std::end(kWideWidths), w) != std::end(kWideWidths));
      // No other compiled width takes fewer waves at the same width or less.
      const int tiles = tc::ceil_div(m, w) * tc::ceil_div(n, 64 * wide_consumers(n));
      for (int other : kWideWidths)
        if (other < w) CHECK(tc::ceil_div(tc::ceil_div(m, other) * tc::ceil_div(n, 64 * wide_consumers(n)), 132) >
                             tc::ceil_div(tiles, 132));
    }
}

TEST_CASE("step 5's model weighs the wide tile from 33 tokens, and picks it where the narrow tiles give SMs a second "
          "tile",
          "[step5]") {
  MachineModel g;
  g.dram_bytes_per_s = 0.9 * 4.8e12;  // an H200, the GPU the constants were fit on
  for (const SuiteShape& s : suite(true, kSuiteTokens)) {
    INFO(s.name());
    const std::vector<ScheduleEstimate> all = estimate_schedules(s.n(), s.m, s.k(), g);
    const bool weighed =
        std::any_of(all.begin(), all.end(), [](const ScheduleEstimate& e) { return e.label() == "wide"; });
    CHECK(weighed == (s.m >= kWideMinTokens && s.m <= kWideMaxTokens));
    // The sweep's last two columns, wide then pair, the pair tile only up to kNarrowMaxTokens.
    if (weighed && s.m <= kNarrowMaxTokens) CHECK(all[all.size() - 2].label() == "wide");
    if (weighed && s.m <= kNarrowMaxTokens) CHECK(all.back().label() == "pair");
    if (weighed && s.m > kNarrowMaxTokens) CHECK(all.back().label() == "wide");
  }
  // 70B QKV and 8B gate+up at 128 tokens: 64-weight tiles make 160 and 448 (two blocks on some SMs, not on others);
  // the wide tile makes 128 of 80 and of 224, one an SM.
  for (int m : {10240, 28672}) {
    const ScheduleEstimate e = choose_schedule(m, 128, m == 10240 ? 8192 : 4096, g);
    CHECK(e.kind == ScheduleKind::Wide);
    CHECK(e.waves.units == 128);
    CHECK(e.waves.waves == 1);
  }
}


TEST_CASE("step 5's wide tile passes both checks at every width, 64 and 128 tokens a tile, ragged edges, every scale",
          "[gpu][gemm][step5]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  // Every width with one warpgroup (40 tokens) and two (200: a second, part-filled token tile), on weights that end
  // part-way through a tile (1000) and an odd count (999: the last weight of a pair stored alone), K of a partial
  // slice.
  auto each_width = [&](auto check) {
    check(WideAt<32>{}), check(WideAt<48>{}), check(WideAt<64>{}), check(WideAt<80>{}), check(WideAt<128>{});
    check(WideAt<160>{}), check(WideAt<192>{}), check(WideAt<224>{}), check(WideAt<256>{});
  };
  each_width([&](auto tile) {
    using Gemm = decltype(tile);
    for (int n : {40, 200}) tc::test::check_launcher<Gemm>(cublas, 1000, n, 200, 1, 0, 91);
    tc::test::check_launcher<Gemm>(cublas, 999, 64, 100, 1, 0, 91);
  });
  for (auto [alpha, beta] : tc::test::gemm_scales<__nv_bfloat16>()) {
    INFO("alpha " << alpha << " beta " << beta);
    tc::test::check_launcher<WideAt<80>>(cublas, 10240, 128, 8192, alpha, beta, 93);  // 70B QKV, 128 tiles
    tc::test::check_launcher<WideAt<48>>(cublas, 264, 65, 65, alpha, beta, 93);       // the padded path
  }
  // Through step 5, where its model picks the wide tile.
  tc::test::check_launcher<Scheduled<Step5Choice>>(cublas, 28672, 128, 4096, 1, 0, 95);
}

TEST_CASE("step 5's pair tile: 128 weights by the token tile that makes the fewest SM-widths of work, a whole SM's "
          "ring",
          "[step5]") {
  CHECK(PairTile<160>::BlockM == 128);
  CHECK(PairTile<160>::kThreads == 288);
  CHECK(PairTile<160>::kBlocksPerSm == 1);
  // (128 + BlockN) rows of 128 bytes a stage in a whole SM: 9 stages at 64 tokens, 6 at 160, 4 at 256.
  CHECK(PairTile<64>::Stages == 9);
  CHECK(PairTile<160>::Stages == 6);
  CHECK(PairTile<256>::Stages == 4);
  // Every wgmma N from 64 to 256 in steps of 8, each compiled: with_pair_tile finds it, and no other N.
  CHECK(kPairTokenTiles == 25);
  CHECK(pair_token_tile(0) == 64);
  CHECK(pair_token_tile(kPairTokenTiles - 1) == 256);
  for (int block_n = 0; block_n <= 264; ++block_n) {
    int found = 0;
    const bool any = with_pair_tile(block_n, [&](auto tile) { found = decltype(tile)::BlockN; });
    CHECK(any == (block_n >= 64 && block_n % 8 == 0 && block_n <= 256));
    if (any) CHECK(found == block_n);
  }
  // Qwen2.5-72B's down split eight ways at 261 tokens: two columns of 136, 64 x 2 = 128 tiles, one wave.
  CHECK(pair_block_n(8192, 261, 132) == 136);
  // Mistral-Nemo's down at 308 tokens: three columns of 104 (40 x 3 = 120 tiles); two of 160 would leave 52 SMs idle.
  CHECK(pair_block_n(5120, 308, 132) == 104);
  for (int m : {576, 4096, 5120, 8192, 28672})
    for (int n : {33, 100, 261, 512, 1024}) {
      INFO(m << " weights, " << n << " tokens");
      const int bn = pair_block_n(m, n, 132);
      const int waves = tc::ceil_div(small_m_tiles(m, n, bn, 128), 132);
      // No other compiled token tile takes fewer waves at the same width or less.
      for (int i = 0; i < kPairTokenTiles; ++i) {
        const int other = pair_token_tile(i);
        if (other < bn) CHECK(tc::ceil_div(small_m_tiles(m, n, other, 128), 132) > waves);
      }
    }
}

TEST_CASE("step 5's pair tile passes both checks at every token tile, ragged edges, every scale",
          "[gpu][gemm][step5]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  // Every token tile on weights that end part-way through a tile, and past the first consumer's 64 (1000 = 7 x 128 +
  // 104, so the last tile's second consumer has 40 rows), tokens that end part-way through a column, K of a partial
  // slice; and 70 weights, where the second consumer of the one tile has 6 rows.
  for (int i = 0; i < kPairTokenTiles; ++i)
    with_pair_tile(pair_token_tile(i), [&](auto tile) {
      using Gemm = PairAt<decltype(tile)::BlockN>;
      INFO("token tile " << Gemm::kBlockN);
      tc::test::check_launcher<Gemm>(cublas, 1000, 300, 200, 1, 0, 97);
      tc::test::check_launcher<Gemm>(cublas, 70, 40, 100, 1, 0, 97);
    });
  for (auto [alpha, beta] : tc::test::gemm_scales<__nv_bfloat16>()) {
    INFO("alpha " << alpha << " beta " << beta);
    tc::test::check_launcher<PairAt<136>>(cublas, 8192, 261, 3696, alpha, beta, 99);  // K not a multiple of 64
    tc::test::check_launcher<PairAt<104>>(cublas, 264, 65, 65, alpha, beta, 99);      // the padded path
  }
  // Through step 5, where its model picks the pair tile.
  MachineModel g = current_machine();
  CHECK(choose_schedule(8192, 261, 3696, g).kind == ScheduleKind::Pair);
  tc::test::check_launcher<Scheduled<Step5Choice>>(cublas, 8192, 261, 3696, 1, 0, 101);
}

TEST_CASE("the MoE routing: top-k distinct experts a token, Zipf over the ranks, one expert never picked", "[moe]") {
  for (int experts : {8, 64}) {
    INFO(experts << " experts");
    const std::vector<int> rows = moe::zipf_routing(4096, 2, experts, 1.2, 2026);
    REQUIRE(int(rows.size()) == experts);
    long long sum = 0;
    int empty = 0, largest = 0;
    for (int r : rows) sum += r, empty += r == 0 ? 1 : 0, largest = std::max(largest, r);
    CHECK(sum == 8192);
    CHECK(empty >= 1);
    CHECK(largest <= 4096);  // distinct experts: an expert takes a token once at most
    CHECK(moe::zipf_routing(4096, 2, experts, 1.2, 2026) == rows);  // the same seed, the same groups
    CHECK(moe::zipf_routing(4096, 2, experts, 1.2, 2027) != rows);
  }
  // The law: with one pick a token, rank r's share is r^-1.2 over the sum, so ranks 1 and 2 differ by 2^1.2. The
  // ranks are the sorted counts (the permutation only moves them), 200,000 draws: within 3%.
  std::vector<int> rows = moe::zipf_routing(200000, 1, 5, 1.2, 7);
  std::sort(rows.rbegin(), rows.rend());
  CHECK(rows[4] == 0);
  CHECK(double(rows[0]) / rows[1] == Approx(std::pow(2.0, 1.2)).epsilon(0.03));
  CHECK(double(rows[0]) / rows[3] == Approx(std::pow(4.0, 1.2)).epsilon(0.03));
  CHECK_THROWS_AS(moe::zipf_routing(0, 2, 8, 1.2, 1), std::invalid_argument);
  CHECK_THROWS_AS(moe::zipf_routing(16, 8, 8, 1.2, 1), std::invalid_argument);  // no 8 distinct experts to pick
  CHECK_THROWS_AS(moe::zipf_routing(16, 1, 2, 1.2, 1), std::invalid_argument);
}

TEST_CASE("step 6's tile width: the widest that an average non-empty group's rows fill, 64 at least", "[step6]") {
  for (const MoeConfig& c : kMoeConfigs) {
    const std::vector<int> sizes = moe::zipf_routing(kMoeTokens, kMoeTopK, c.experts, kMoeZipf, kMoeSeed);
    CHECK(step6_block_n(sizes) == (c.experts == 8 ? 256 : 128));  // 1170 and 130 rows a group on average
  }
  CHECK(step6_block_n({3, 5, 0}) == 64);
  CHECK(step6_block_n({0, 0}) == 64);
  CHECK(step6_block_n({127, 129}) == 128);
}

TEST_CASE("a --groups list: sizes that sum to the routed rows, no more groups than the scheduler takes, else exit 2",
          "[moe]") {
  CHECK(moe::parse_group_sizes("5,0,3", 8, 4) == std::vector<int>{5, 0, 3});
  CHECK_THROWS_AS(moe::parse_group_sizes("5,0,2", 8, 4), tc::UsageError);    // sums to 7
  CHECK_THROWS_AS(moe::parse_group_sizes("1,1,1,1,4", 8, 4), tc::UsageError);  // 5 groups
  CHECK_THROWS_AS(moe::parse_group_sizes("5,-1,4", 8, 4), tc::UsageError);
  CHECK_THROWS_AS(moe::parse_group_sizes("5,x,3", 8, 4), tc::UsageError);
  CHECK_THROWS_AS(moe::parse_group_sizes("5,,3", 8, 4), tc::UsageError);
  CHECK_THROWS_AS(moe::parse_group_sizes("", 0, 4), tc::UsageError);
}

TEST_CASE("the grouped plan numbers every group's tiles once, skips empty groups, and clips each group's columns",
          "[moe]") {
  for (int experts : {8, 64}) {
    const std::vector<int> sizes = moe::zipf_routing(4096, 2, experts, 1.2, 2026);
    for (int block_n : {64, 128, 256}) {
      INFO(experts << " experts, block_n " << block_n);
      const grouped::Plan p = grouped::make_plan(sizes, 4096, 64, block_n);
      int expected = 0;
      for (int m : sizes) expected += 64 * ((m + block_n - 1) / block_n);
      REQUIRE(p.tiles() == expected);
      // Every (group, row, column) once; every column inside its group; every tile of a group before the next's.
      std::set<std::tuple<int, int, int>> seen;
      std::vector<int> covered(sizes.size(), 0);
      int previous_group = 0;
      for (int t = 0; t < p.tiles(); ++t) {
        const grouped::GroupTile tile = grouped::group_tile(p, t);
        REQUIRE(sizes[tile.group] > 0);
        REQUIRE(tile.group >= previous_group);
        previous_group = tile.group;
        REQUIRE(seen.insert({tile.group, tile.row, tile.col}).second);
        REQUIRE(tile.cols >= 1);
        REQUIRE(tile.cols <= block_n);
        REQUIRE(tile.col >= p.first_row[tile.group]);
        REQUIRE(tile.col + tile.cols <= p.first_row[tile.group + 1]);
        covered[tile.group] += tile.cols;
      }
      for (std::size_t g = 0; g < sizes.size(); ++g) CHECK(covered[g] == 64 * sizes[g]);  // 64 row tiles each
    }
  }
  // The edges: an empty group first, in the middle and last; one group; more groups than the table holds.
  const grouped::Plan edges = grouped::make_plan({0, 70, 0, 1, 0}, 100, 64, 64);
  CHECK(edges.tiles() == 2 * 2 + 2 * 1);
  CHECK(grouped::group_tile(edges, 0).group == 1);
  CHECK(grouped::group_tile(edges, 1).cols == 6);  // 70 tokens: a full column tile, then 6
  CHECK(grouped::group_tile(edges, 4).group == 3);
  CHECK(grouped::group_tile(edges, 5).row == 64);
  CHECK(grouped::make_plan({8192}, 4096, 64, 256).tiles() == 64 * 32);
  CHECK_THROWS_AS(grouped::make_plan(std::vector<int>(grouped::kMaxGroups + 1, 1), 64, 64, 64), std::invalid_argument);
  CHECK_THROWS_AS(grouped::make_plan({4, -1}, 64, 64, 64), std::invalid_argument);
}

// Step 6 on integer operands in [-1, 1] (every sum exact in fp32, so any order rounds to the same bf16): whether every
// group's columns of C are bit for bit what cublasGemmEx gives that group alone.
template <int BlockN>
bool grouped_matches_cublas(const tc::CublasHandle& cublas, const std::vector<int>& sizes, int weights, int k,
                            float beta, tc::test::PlantedBug bug = tc::test::PlantedBug::None) {
  using T = __nv_bfloat16;
  int tokens = 0;
  for (int m : sizes) tokens += m;
  tc::DeviceBuffer<T> w(sizes.size() * std::size_t(weights) * k), x(std::size_t(tokens) * k + 1),
      c(std::size_t(tokens) * weights + 1), want(std::size_t(tokens) * weights + 1);
  tc::fill_hashed(w.data(), w.size(), 31, 1);
  tc::fill_hashed(x.data(), x.size(), 37, 1);
  tc::fill_hashed(c.data(), c.size(), 41, 1);
  TC_CHECK(cudaMemcpy(want.data(), c.data(), c.size() * sizeof(T), cudaMemcpyDeviceToDevice));
  int row0 = 0;
  for (std::size_t g = 0; g < sizes.size(); ++g) {
    if (sizes[g] > 0)
      tc::cublas_gemm<T, T>(cublas, tc::Op::T, tc::Op::N, weights, sizes[g], k, 1.0, w.data() + g * weights * k,
                            std::max(k, 1), x.data() + std::size_t(row0) * k, std::max(k, 1), beta,
                            want.data() + std::size_t(row0) * weights, weights,
                            want.data() + std::size_t(row0) * weights, weights);
    row0 += sizes[g];
  }
  {
    const tc::test::PlantedBugScope plant(bug);
    launch_grouped<BlockN>(sizes, weights, k, 1.0f, w.data(), std::max(k, 8), x.data(), std::max(k, 8), beta,
                           c.data(), weights, nullptr);
    TC_CHECK(cudaDeviceSynchronize());
  }
  const std::vector<T> got = c.download(), expected = want.download();
  return std::memcmp(got.data(), expected.data(), got.size() * sizeof(T)) == 0;
}

TEST_CASE("step 6 gives every group what cublasGemmEx gives it alone, empty groups, ragged columns and k = 0 included",
          "[gpu][gemm][step6]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  const std::vector<int> routed = moe::zipf_routing(64, 2, 8, 1.2, 2026);  // 128 rows over 8 experts, one empty
  CHECK(grouped_matches_cublas<64>(cublas, routed, 192, 256, 0.0f));
  CHECK(grouped_matches_cublas<64>(cublas, routed, 192, 256, 0.5f));
  CHECK(grouped_matches_cublas<64>(cublas, {0, 70, 0, 1, 0}, 128, 128, 0.0f));  // empty first, between and last
  CHECK(grouped_matches_cublas<256>(cublas, {300, 5, 0, 700}, 128, 192, 0.0f));  // three column tiles of 256
  CHECK(grouped_matches_cublas<8>(cublas, {1, 2, 3}, 64, 64, 0.0f));
  CHECK(grouped_matches_cublas<64>(cublas, {3, 5}, 128, 0, 0.5f));  // k = 0: beta C
}

TEST_CASE("the check fails a grouped GEMM whose weights are off by one group, at 16 and 8192 routed rows",
          "[gpu][step6]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for (int tokens : {8, 4096}) {  // top-2: 16 and 8192 routed rows
    const std::vector<int> sizes = moe::zipf_routing(tokens, 2, 8, 1.2, 2026);
    INFO(2 * tokens << " routed rows");
    CHECK(grouped_matches_cublas<128>(cublas, sizes, 128, 128, 0.0f));
    CHECK_FALSE(grouped_matches_cublas<128>(cublas, sizes, 128, 128, 0.0f, tc::test::PlantedBug::GroupOffByOne));
  }
}

TEST_CASE("the MoE table's checks pass step 6 and fail weights off by one group, on 8192 routed rows",
          "[gpu][step6]") {
  tc::test::require_exact_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  const std::vector<int> sizes = moe::zipf_routing(kMoeTokens, kMoeTopK, 8, kMoeZipf, kMoeSeed);  // one group empty
  auto step6 = [](tc::test::PlantedBug bug) {
    return [bug](MoeOperands& o) {
      const tc::test::PlantedBugScope plant(bug);
      launch_grouped<128>(o.sizes, o.n, o.k, 1.0f, o.w.data(), o.k, o.x.data(), o.k, 0.0f, o.y.data(), o.n, nullptr);
      TC_CHECK(cudaDeviceSynchronize());  // the launch ran with the bug switched on
    };
  };
  for (bool exact : {true, false}) {  // the table's two sets: integers in [-1, 1] exactly, reals within bounds
    INFO((exact ? "integer operands" : "random operands"));
    MoeOperands good(sizes, 128, 256, 5, exact ? 1 : 0), bad(sizes, 128, 256, 5, exact ? 1 : 0);
    CHECK(check_moe_groups(cublas, good, exact, step6(tc::test::PlantedBug::None)).passed);
    const MoeCheck planted = check_moe_groups(cublas, bad, exact, step6(tc::test::PlantedBug::GroupOffByOne));
    CHECK_FALSE(planted.passed);
    CHECK(planted.worst_group >= 0);
  }
}
