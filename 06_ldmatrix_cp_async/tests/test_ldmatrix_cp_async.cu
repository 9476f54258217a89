// Chapter 06 tests. Host: the committed figures equal what figures.hpp draws; every step's ldmatrix reads and
// cp.async writes are conflict-free by the bank calculator on the kernels' own offsets; copies and warps cover their
// tiles once; the launchers' one-line errors; the ablation kernels' K weights. GPU: every ldmatrix variant against
// tc::ldmatrix_map; every step on 128x128x32, odd shapes, several slices, the padded path, k = 0 and (in [large])
// 4096^3 and 8192^3 through the chapter's two checks (integer operands exactly, random ones against fp64), each with
// (alpha, beta) = (1, 0) and (0.5, 2), and on one tile and odd shapes with every scale of tc::test::gemm_scales, tight
// and with padded leading dimensions (C's padding untouched); at 8192^3, step 4's inputs and scales mutated on
// purpose (a K column dropped or doubled, A transposed, alpha or beta wrong) and a tile of its output left unwritten
// must fail the exact check; each ablation kernel against its K weights.
#include "chapter_config.hpp"  // tc::chapter::kMinSm
#include "tools/ablation.cuh"
#include "tools/figures.hpp"
#include "step1_ldmatrix.cuh"
#include "step2_cp_async.cuh"
#include "step3_multistage.cuh"
#include "ldmatrix_probe.cuh"

#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/layout_maps.hpp"
#include "tc/layouts/smem_banks.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"
#include "tc/gemm_check.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/gemm.hpp"
#include "tc_test/mutation.hpp"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace {

const NamedLauncher kSteps[] = {{"step 1", launch_ldmatrix_gemm},
                                {"step 2", launch_cp_async_gemm},
                                {"step 3", launch_multistage_gemm},
                                {"step 4", launch_tuned_gemm}};

// Conflicts over every ldmatrix.x4 a warp issues in one stage (all warps, all K steps, A and B), from the kernel's
// own offset functions.
template <typename Tile>
int ldmatrix_conflicts() {
  int conflicts = 0;
  for (int w = 0; w < Tile::kThreads / tc::kWarpSize; ++w) {
    const tc::Coord warp = Tile::warp_origin(w);
    for (int k0 = 0; k0 < Tile::BlockK; k0 += 16) {
      for (int i = 0; i < Tile::TilesM; ++i) {
        std::vector<std::int64_t> rows;
        for (int lane = 0; lane < tc::kWarpSize; ++lane)
          rows.push_back(2 * std::int64_t(Tile::a_ldmatrix_offset(warp.row + 16 * i, k0, lane)));
        conflicts += tc::ldmatrix_cost(rows).conflicts;
      }
      for (int j = 0; j < Tile::TilesN / 2; ++j) {
        std::vector<std::int64_t> rows;
        for (int lane = 0; lane < tc::kWarpSize; ++lane)
          rows.push_back(2 * std::int64_t(Tile::b_ldmatrix_offset(warp.col + 16 * j, k0, lane)));
        conflicts += tc::ldmatrix_cost(rows).conflicts;
      }
    }
  }
  return conflicts;
}

// Conflicts over every 16-byte copy into one stage, warp by warp (8 lanes per phase).
template <typename Tile>
int copy_conflicts() {
  int conflicts = 0;
  for (int w = 0; w < Tile::kThreads / tc::kWarpSize; ++w)
    for (int i = 0; i < Tile::kCopies; ++i) {
      std::array<std::int64_t, tc::kWarpSize> address{};
      for (int lane = 0; lane < tc::kWarpSize; ++lane) {
        const tc::Coord c = Tile::copy_chunk(w * tc::kWarpSize + lane, i);
        address[lane] = 2 * std::int64_t(Tile::Lines::offset(c.row, c.col * Tile::kChunk));
      }
      conflicts += tc::vector_access_cost(address, 16).conflicts;
    }
  return conflicts;
}

// Copies cover every chunk of a stage once, and warps every element of the block tile once.
template <typename Tile>
bool covers_once() {
  std::vector<int> chunk_hits(Tile::kLines * Tile::kChunksPerLine, 0), c_hits(Tile::BlockM * Tile::BlockN, 0);
  for (int thread = 0; thread < Tile::kThreads; ++thread)
    for (int i = 0; i < Tile::kCopies; ++i) {
      const tc::Coord c = Tile::copy_chunk(thread, i);
      ++chunk_hits[c.row * Tile::kChunksPerLine + c.col];
    }
  for (int w = 0; w < Tile::kThreads / tc::kWarpSize; ++w) {
    const tc::Coord origin = Tile::warp_origin(w);
    for (int r = 0; r < Tile::WarpM; ++r)
      for (int col = 0; col < Tile::WarpN; ++col) ++c_hits[(origin.row + r) * Tile::BlockN + origin.col + col];
  }
  for (int h : chunk_hits)
    if (h != 1) return false;
  for (int h : c_hits)
    if (h != 1) return false;
  return true;
}

// One step on (m, n, k) (A row-major, B column-major, C column-major; tight leading dimensions lda = ldb = k, ldc = m,
// or padded ones) through the chapter's two checks: integer operands exactly, random ones against fp64
// (tc_test/gemm.hpp), C's padding untouched.
void check_gemm(const tc::CublasHandle& cublas, const NamedLauncher& step, int m, int n, int k, double alpha,
                double beta, tc::test::Ld ld = tc::test::Ld::Tight) {
  tc::GemmProblem p = tc::GemmProblem::tight(tc::Op::T, tc::Op::N, m, n, k, alpha, beta);
  if (ld == tc::test::Ld::Padded) p = tc::test::with_padding(p, 2, 4);
  const tc::test::GemmCheckOutcome r = tc::test::check_both<__half, float>(
      cublas, p, 61, [&](const __half* A, const __half* B, float* C) {
        step.launch(m, n, k, float(alpha), A, p.lda, B, p.ldb, float(beta), C, p.ldc, nullptr);
      });
  INFO(step.name << " " << m << "x" << n << "x" << k << " lda " << p.lda << " ldc " << p.ldc << " alpha " << alpha
                 << " beta " << beta
                 << "\nexact:  " << r.verdict.exact.summary() << "\nrandom: " << r.verdict.random.summary());
  CHECK(r.verdict.passed());
  CHECK(r.padding_untouched);
}

// An ablation kernel on (m, n, k) with integer-valued operands against the CPU reference of the product
// ablation_k_weight describes: C = alpha * A' * B' + beta * C, where row r of A' is weight(kk) times the A row it reads
// and column c of B' the B column it reads: the block tile's own (PlusCopies) or block tile (0, 0)'s (the others).
// The weighted operands stay small integers, so the reference is exact, and so must the kernel's fp32 result be.
template <Ablation Part>
void check_ablation(int m, int n, int k, double alpha, double beta) {
  using T = Step4Tile;
  std::vector<__half> a(std::size_t(m) * k), b(std::size_t(n) * k);
  std::vector<float> c(std::size_t(m) * n);
  tc::fill_random(a, 71, tc::Fill::Integer);
  tc::fill_random(b, 72, tc::Fill::Integer);
  tc::fill_random(c, 73, tc::Fill::Integer);
  const bool own = Part == Ablation::PlusCopies;
  std::vector<float> a_read(a.size()), b_read(b.size());  // A' row-major (lda = k), B' column-major (ldb = k)
  for (int row = 0; row < m; ++row)
    for (int kk = 0; kk < k; ++kk)
      a_read[std::size_t(row) * k + kk] = float(ablation_k_weight<T>(Part, kk, k)) *
                                          __half2float(a[std::size_t(own ? row : row % T::BlockM) * k + kk]);
  for (int col = 0; col < n; ++col)
    for (int kk = 0; kk < k; ++kk)
      b_read[std::size_t(col) * k + kk] = __half2float(b[std::size_t(own ? col : col % T::BlockN) * k + kk]);
  const tc::GemmReference ref =
      tc::reference_gemm(tc::Op::T, tc::Op::N, m, n, k, alpha, a_read, k, b_read, k, beta, c, m);
  tc::DeviceBuffer<__half> d_a(a), d_b(b);
  tc::DeviceBuffer<float> d_c(c);
  launch_ablation<T, Part>(m, n, k, float(alpha), d_a.data(), k, d_b.data(), k, float(beta), d_c.data(), m);
  const std::vector<float> got = d_c.download();
  // Exact, not compare()'s rounding bound: a K column counted once too often or too rarely changes a result by an
  // integer that the bound, at these magnitudes, could let through.
  std::size_t differ = 0;
  for (std::size_t i = 0; i < got.size(); ++i) differ += double(got[i]) != ref.value[i];
  INFO("ablation part " << int(Part) << " on " << m << "x" << n << "x" << k << ": " << differ << " of "
                        << got.size() << " elements differ from the exact reference");
  CHECK(differ == 0);
}

template <int Num, bool Trans>
void check_probe() {
  const tc::LaneMap measured = probe_ldmatrix<Num, Trans>();
  INFO(".x" << Num << (Trans ? ".trans" : "") << "\n" << measured.format_lane_list("e"));
  CHECK(measured.all_slots_in_tile());
  CHECK(measured == tc::ldmatrix_map(Num, Trans));
}

}  // namespace

// ---- host ------------------------------------------------------------------------------------------------------

TEST_CASE("the committed figures are what figures.hpp draws", "[figures]") {
  tc::test::check_committed_figures(chapter_figures(), TC_FIGURES_DIR,
                                    "build/<preset>/06_ldmatrix_cp_async/06_figures --out docs/figures");
}

TEST_CASE("every step's ldmatrix reads are conflict-free, and the same tile unpadded is not", "[banks]") {
  CHECK(ldmatrix_conflicts<Step1Tile>() == 0);
  CHECK(ldmatrix_conflicts<Step2Tile>() == 0);
  CHECK(ldmatrix_conflicts<Step3Tile>() == 0);
  CHECK(ldmatrix_conflicts<Step4Tile>() == 0);
  CHECK(ldmatrix_conflicts<GemmTile<128, 128, 32, 2, 4, 2, tc::Padded<0>>>() > 0);
  CHECK(ldmatrix_conflicts<GemmTile<128, 256, 64, 2, 4, 3, tc::Swizzled>>() == 0);  // 128-byte lines (the sweep's)
}

TEST_CASE("the swizzled steps' cp.async writes are conflict-free, and the padded tile's cost a second wavefront",
          "[banks]") {
  // 80-byte lines: the 8 lanes of a phase write 64 bytes of line L and 64 of line L + 1, which starts 80 bytes on, so
  // bytes 128..143 fall on the banks of bytes 0..15 again: every phase of every copy takes 2 wavefronts.
  using T = Step2Tile;
  CHECK(copy_conflicts<T>() == T::kThreads / tc::kWarpSize * T::kCopies * (tc::kWarpSize / 8));
  CHECK(copy_conflicts<Step3Tile>() == 0);
  CHECK(copy_conflicts<Step4Tile>() == 0);
  CHECK(copy_conflicts<GemmTile<256, 128, 64, 4, 2, 3, tc::Swizzled>>() == 0);
}

TEST_CASE("every step's copies cover a stage once and its warps cover the block tile once", "[tile]") {
  CHECK(covers_once<Step1Tile>());
  CHECK(covers_once<Step3Tile>());
  CHECK(covers_once<Step4Tile>());
  CHECK(Step3Tile::kSmemBytes == 4 * (128 + 128) * 32 * 2);  // swizzled: no padding
  CHECK(Step2Tile::kSmemBytes == 2 * (128 + 128) * 40 * 2);  // padded: 8 halves per line
}

TEST_CASE("each thread's copies are its first one shifted by whole passes of lines", "[tile]") {
  // copy_slice_async relies on it: one pointer per operand and one shared offset per thread, plus constants.
  auto holds = [](auto tile) {
    using T = decltype(tile);
    for (int thread = 0; thread < T::kThreads; ++thread) {
      const tc::Coord first = T::copy_chunk(thread, 0);
      for (int i = 0; i < T::kCopies; ++i) {
        const tc::Coord c = T::copy_chunk(thread, i);
        const int line = i * T::kLinesPerCopy;
        if (c.row != first.row + line || c.col != first.col) return false;
        if (T::Lines::offset(c.row, c.col * T::kChunk) !=
            T::Lines::offset(first.row, first.col * T::kChunk) + line * T::Lines::kLineStride)
          return false;
      }
    }
    return true;
  };
  CHECK(holds(Step2Tile{}));
  CHECK(holds(Step3Tile{}));
  CHECK(holds(Step4Tile{}));
  CHECK(holds(GemmTile<128, 128, 64, 2, 2, 4, tc::Swizzled>{}));
}

TEST_CASE("the serpentine mma order multiplies every n8 tile once per row and reuses B at each turn", "[tile]") {
  auto holds = [](auto tile) {
    using T = decltype(tile);
    for (int i = 0; i < T::TilesM; ++i) {
      std::vector<int> hits(T::TilesN, 0);
      for (int jj = 0; jj < T::TilesN; ++jj) ++hits[T::mma_column(i, jj)];
      for (int h : hits)
        if (h != 1) return false;
      if (i > 0 && T::mma_column(i, 0) != T::mma_column(i - 1, T::TilesN - 1)) return false;  // the turn
    }
    return true;
  };
  CHECK(holds(Step1Tile{}));
  CHECK(holds(Step3Tile{}));
  CHECK(holds(Step4Tile{}));
}

TEST_CASE("the block order visits every block tile once, for any group width", "[tile]") {
  for (const auto& shape : {std::pair{64, 32}, std::pair{5, 7}, std::pair{1, 1}, std::pair{3, 20}}) {
    const int tiles_m = shape.first, tiles_n = shape.second;
    auto visits_once = [&](auto tile) {
      using T = decltype(tile);
      std::vector<int> hits(tiles_m * tiles_n, 0);
      for (int b = 0; b < tiles_m * tiles_n; ++b) {
        const tc::Coord t = T::block_tile(b, tiles_m, tiles_n);
        if (t.row < 0 || t.row >= tiles_m || t.col < 0 || t.col >= tiles_n) return false;
        ++hits[t.row * tiles_n + t.col];
      }
      for (int h : hits)
        if (h != 1) return false;
      return true;
    };
    INFO(tiles_m << " x " << tiles_n << " tiles");
    CHECK(visits_once(Step3Tile{}));
    CHECK(visits_once(GemmTile<128, 256, 32, 2, 4, 3, tc::Swizzled, 8>{}));
    CHECK(visits_once(GemmTile<128, 256, 32, 2, 4, 3, tc::Swizzled, 16>{}));
  }
  STATIC_REQUIRE(Step3Tile::block_tile(1, 64, 32) == tc::Coord{1, 0});  // GroupN 1: down M first
  using Grouped = GemmTile<128, 256, 32, 2, 4, 3, tc::Swizzled, 8>;
  STATIC_REQUIRE(Grouped::block_tile(1, 64, 32) == tc::Coord{0, 1});   // along N inside a group of 8 columns
  STATIC_REQUIRE(Grouped::block_tile(8, 64, 32) == tc::Coord{1, 0});   // then the next block row
}

TEST_CASE("the launchers reject bad arguments with one-line errors", "[errors]") {
  for (const NamedLauncher& step : kSteps) {
    const std::string lda = tc::test::thrown_message<std::invalid_argument>(
        [&] { step.launch(64, 64, 64, 1.0f, nullptr, 32, nullptr, 64, 0.0f, nullptr, 64, nullptr); });
    CHECK(lda.find("lda") != std::string::npos);
    CHECK(lda.find('\n') == std::string::npos);
    const std::string negative = tc::test::thrown_message<std::invalid_argument>(
        [&] { step.launch(-1, 64, 64, 1.0f, nullptr, 64, nullptr, 64, 0.0f, nullptr, 64, nullptr); });
    CHECK(negative.find('m') != std::string::npos);
  }
}

TEST_CASE("the ablation kernels' K weights: each part multiplies what its comment says", "[ablation]") {
  using T = Step4Tile;  // 64-deep slices, 4 K steps, 3 stages filled by the prologue
  const int k = 7 * T::BlockK;
  CHECK(ablation_k_weight<T>(Ablation::MmaOnly, 0, k) == 14);  // K steps 0 and 1, twice in each of 7 slices
  CHECK(ablation_k_weight<T>(Ablation::MmaOnly, 31, k) == 14);
  CHECK(ablation_k_weight<T>(Ablation::MmaOnly, 32, k) == 0);
  CHECK(ablation_k_weight<T>(Ablation::PlusLdmatrix, 0, k) == 3);  // slices 0, 3 and 6 read stage 0
  CHECK(ablation_k_weight<T>(Ablation::PlusBarrier, 64, k) == 2);  // slices 1 and 4 read stage 1
  CHECK(ablation_k_weight<T>(Ablation::PlusBarrier, 191, k) == 2);
  CHECK(ablation_k_weight<T>(Ablation::PlusBarrier, 192, k) == 0);  // never copied
  int total = 0;
  for (int kk = 0; kk < k; ++kk) total += ablation_k_weight<T>(Ablation::PlusLdmatrix, kk, k);
  CHECK(total == k);  // every slice reads a full stage: the same work as step 4
  CHECK(ablation_k_weight<T>(Ablation::PlusCopies, 0, k) == 1);  // 7 slices: fewer than kL2Slices, each once
  CHECK(ablation_k_weight<T>(Ablation::PlusCopies, k - 1, k) == 1);
  CHECK(ablation_k_weight<T>(Ablation::PlusCopies, 0, 20 * T::BlockK) == 3);  // slices 0, 8 and 16
  CHECK(ablation_k_weight<T>(Ablation::PlusCopies, 4 * T::BlockK, 20 * T::BlockK) == 2);  // slices 4 and 12
  CHECK(ablation_k_weight<T>(Ablation::PlusCopies, 8 * T::BlockK, 20 * T::BlockK) == 0);  // never copied
  const std::string too_short = tc::test::thrown_message<std::invalid_argument>(
      [] { launch_ablation<T, Ablation::PlusCopies>(128, 256, 128, 1, nullptr, 128, nullptr, 128, 0, nullptr, 128); });
  CHECK(too_short == "ablation: k must be >= 192, got 128");
}

// ---- GPU -------------------------------------------------------------------------------------------------------

TEST_CASE("every ldmatrix variant delivers what tc::ldmatrix_map says", "[gpu][probe]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  check_probe<1, false>();
  check_probe<2, false>();
  check_probe<4, false>();
  check_probe<1, true>();
  check_probe<2, true>();
  check_probe<4, true>();
}

TEST_CASE("every step passes both checks on one tile and odd shapes, every scale, tight and padded", "[gpu][gemm]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for (const NamedLauncher& step : kSteps)
    for (tc::test::Ld ld : {tc::test::Ld::Tight, tc::test::Ld::Padded})
      for (auto [alpha, beta] : tc::test::gemm_scales<__half>()) {
        check_gemm(cublas, step, 128, 128, 32, alpha, beta, ld);
        check_gemm(cublas, step, 17, 33, 65, alpha, beta, ld);
        check_gemm(cublas, step, 1000, 1016, 1040, alpha, beta, ld);
      }
}

TEST_CASE("every step passes both checks over several slices, the padded path and k = 0", "[gpu][gemm]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for (const NamedLauncher& step : kSteps) {
    check_gemm(cublas, step, 256, 512, 160, 1.0, 0.0);  // several blocks and slices; 5 > Stages
    check_gemm(cublas, step, 256, 512, 160, 0.5, 2.0);  // the epilogue reading C
    check_gemm(cublas, step, 256, 256, 32, 1.0, 0.0);   // one slice: fewer than Stages - 1
    check_gemm(cublas, step, 130, 250, 40, 1.0, 0.0);   // the padded path
    check_gemm(cublas, step, 256, 256, 0, 1.0, 2.0);    // k = 0: C = beta * C
  }
}

TEST_CASE("every step passes both checks at 4096^3 and 8192^3", "[gpu][gemm][large]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for (int s : {4096, 8192})
    for (const NamedLauncher& step : kSteps)
      for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}})
        check_gemm(cublas, step, s, s, s, alpha, beta);
}

TEST_CASE("at 8192^3 the exact check fails step 4 on a K column dropped or doubled, A transposed, a wrong alpha or "
          "beta and a tile unwritten, and passes it untouched",
          "[gpu][gemm][large][mutation]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  tc::test::check_mutations_fail<__half>(cublas, 8192, 81,
                                         [](const __half* A, const __half* B, float* C, double alpha, double beta) {
                                           launch_tuned_gemm(8192, 8192, 8192, float(alpha), A, 8192, B, 8192,
                                                             float(beta), C, 8192);
                                         });
}

TEST_CASE("each ablation kernel computes the product its K weights describe", "[gpu][ablation]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  // 2 x 2 block tiles; 7 slices, so the stages' reuse does not divide evenly; (alpha, beta) = (0.5, 2) reads C.
  for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}}) {
    check_ablation<Ablation::MmaOnly>(256, 512, 448, alpha, beta);
    check_ablation<Ablation::PlusLdmatrix>(256, 512, 448, alpha, beta);
    check_ablation<Ablation::PlusBarrier>(256, 512, 448, alpha, beta);
    check_ablation<Ablation::PlusCopies>(256, 512, 448, alpha, beta);
  }
  check_ablation<Ablation::PlusCopies>(256, 512, 20 * 64, 1.0, 0.0);  // past kL2Slices: K slices 0..3 taken 3 times
  check_ablation<Ablation::PlusCopies>(128, 256, 192, 1.0, 0.0);      // the fewest slices allowed: the prologue's 3
}
