// Chapter 05 tests. Host: the committed lane figures equal what lane_figures.hpp draws; the probe's recovery finds
// the formulas in their own prediction and rejects a wrong layout; register packing; the GEMM tile's bank cost from
// the kernel's own addresses; the launchers' one-line errors. GPU: the single tile (the issue's values with the
// f16-accumulate variant, random integers with every variant and layout), the hardware probe for every variant,
// chapter 01's WMMA fragments against the formulas, and the GEMM on the issue's shapes with every (alpha, beta) of
// tc::test::gemm_scales, tight and with padded leading dimensions, each through the chapter's checks (integer operands
// exactly, random ones against fp64, C's padding untouched).
#include "chapter_config.hpp"  // tc::chapter::kMinSm
#include "tools/lane_figures.hpp"
#include "mma_gemm.cuh"
#include "mma_probe.cuh"
#include "mma_single_tile.cuh"

#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_check.hpp"
#include "tc/layout_maps.hpp"
#include "tc/layouts/smem_banks.hpp"
#include "tc/matrix.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"
#include "tc/wmma_probe.cuh"
#include "tc_test/catch.hpp"
#include "tc_test/gemm.hpp"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace {

using S = tc::MmaM16N8K16;

// The wavefronts of one warp's 32-bit load of register j of the fragment at (row0 or col0, k0), A or B.
template <typename Tile>
int register_load_wavefronts(bool a, int origin, int k0, int j) {
  std::array<std::int64_t, tc::kWarpSize> address{};
  for (int lane = 0; lane < tc::kWarpSize; ++lane) {
    const int offset = a ? Tile::a_register_offset(origin, k0, lane, j) : Tile::b_register_offset(origin, k0, lane, j);
    address[lane] = std::int64_t(offset) * sizeof(__half);
  }
  return tc::vector_access_cost(address, 4).wavefronts;
}

// One tile with random integers in [-4, 4] (exact in every input type and in an fp16 or fp32 sum of 16 products)
// stored with the given layouts and padded leading dimensions; returns the comparison with the CPU reference.
template <typename Mma, typename LayoutA, typename LayoutB, typename LayoutC>
tc::CompareResult run_tile(std::uint64_t seed, int pad) {
  using In = typename Mma::Input;
  using Out = typename Mma::Output;
  tc::HostMatrix<In, LayoutA> a(S::M, S::K, LayoutA::min_ld(S::M, S::K) + pad);
  tc::HostMatrix<In, LayoutB> b(S::K, S::N, LayoutB::min_ld(S::K, S::N) + pad);
  tc::HostMatrix<Out, LayoutC> c(S::M, S::N, LayoutC::min_ld(S::M, S::N) + pad);
  tc::fill_random(a, seed, tc::Fill::Integer);
  tc::fill_random(b, seed + 1, tc::Fill::Integer);
  tc::fill_random(c, seed + 2, tc::Fill::Integer);
  std::vector<Out> c_col(S::M * S::N);  // the CPU reference takes C column-major
  for (int r = 0; r < S::M; ++r)
    for (int col = 0; col < S::N; ++col) c_col[r + col * S::M] = c(r, col);
  const tc::GemmReference ref = tc::reference_gemm(tc::op_of<LayoutA>(), tc::op_of<LayoutB>(), S::M, S::N, S::K, 1.0,
                                                   a.storage(), a.ld(), b.storage(), b.ld(), 1.0, c_col, S::M);
  tc::DeviceBuffer<In> d_a(a.storage()), d_b(b.storage());
  tc::DeviceBuffer<Out> d_c(c.storage()), d_d(c.storage().size());
  d_d.poison();
  launch_mma_single_tile<Mma, LayoutA, LayoutB, LayoutC>(S::M, S::N, S::K, d_a.data(), a.ld(), d_b.data(), b.ld(),
                                                         d_c.data(), c.ld(), d_d.data(), c.ld());
  tc::HostMatrix<Out, LayoutC> d(S::M, S::N, c.ld());
  d.storage() = d_d.download();
  std::vector<Out> got(S::M * S::N);
  for (int r = 0; r < S::M; ++r)
    for (int col = 0; col < S::N; ++col) got[r + col * S::M] = d(r, col);
  return tc::compare(S::M, S::N, S::K, got.data(), S::M, ref, tc::Tolerance::exact());
}

// The GEMM on (m, n, k) (A row-major, B column-major, C column-major; tight leading dimensions lda = ldb = k, ldc = m,
// or padded ones) through the chapter's two checks: integer operands exactly, random ones against fp64
// (tc_test/gemm.hpp), C's padding untouched.
void check_gemm(const tc::CublasHandle& cublas, int m, int n, int k, double alpha, double beta,
                tc::test::Ld ld = tc::test::Ld::Tight) {
  tc::GemmProblem p = tc::GemmProblem::tight(tc::Op::T, tc::Op::N, m, n, k, alpha, beta);
  if (ld == tc::test::Ld::Padded) p = tc::test::with_padding(p, 2, 4);
  const tc::test::GemmCheckOutcome r = tc::test::check_both<__half, float>(
      cublas, p, 31, [&](const __half* A, const __half* B, float* C) {
        launch_mma_gemm(m, n, k, float(alpha), A, p.lda, B, p.ldb, float(beta), C, p.ldc);
      });
  INFO(m << "x" << n << "x" << k << " lda " << p.lda << " ldc " << p.ldc << " alpha " << alpha << " beta " << beta
         << "\nexact:  " << r.verdict.exact.summary() << "\nrandom: " << r.verdict.random.summary());
  CHECK(r.verdict.passed());
  CHECK(r.padding_untouched);
}

struct Wmma16x16x16 {
  static constexpr int M = 16, N = 16, K = 16;
};

}  // namespace

// ---- host ------------------------------------------------------------------------------------------------------

TEST_CASE("the committed lane figures are what lane_figures.hpp draws from the formulas", "[figures]") {
  tc::test::check_committed_figures(mma_lane_figures(), TC_FIGURES_DIR,
                                    "build/<preset>/05_ptx_mma_m16n8k16/05_lane_figures --out docs/figures");
}

TEST_CASE("the probe's recovery finds the formulas in their own prediction", "[probe]") {
  MmaProbeResult r;
  r.predicted = predict_mma_probe();
  r.measured = r.predicted;
  recover_mma_maps(r);
  CHECK(r.mismatches == 0);
  CHECK(r.a == tc::mma_m16n8k16_map(tc::MmaOperand::A));
  CHECK(r.b == tc::mma_m16n8k16_map(tc::MmaOperand::B));
  CHECK(r.c_kept == 128);
}

TEST_CASE("the probe's recovery rejects hardware that places elements elsewhere", "[probe]") {
  // Simulate instructions whose lane `x` and lane `y` trade their D registers: every run's output for them swaps.
  // Lanes 0 and 1 hold the same rows of D but different columns, lanes 0 and 4 different rows.
  auto recovered_with_swap = [](int x, int y) {
    MmaProbeResult r;
    r.predicted = predict_mma_probe();
    r.measured = r.predicted;
    for (int run = 0; run < kProbeRuns; ++run)
      for (int i = 0; i < S::kElemsC; ++i)
        std::swap(r.measured[(run * tc::kWarpSize + x) * S::kElemsC + i],
                  r.measured[(run * tc::kWarpSize + y) * S::kElemsC + i]);
    recover_mma_maps(r);
    return r;
  };
  const MmaProbeResult columns = recovered_with_swap(0, 1);
  CHECK(columns.mismatches > 0);
  CHECK(columns.b != tc::mma_m16n8k16_map(tc::MmaOperand::B));  // B's columns are read off D's
  CHECK(columns.c_kept == 128 - 2 * S::kElemsC);  // lanes 0 and 1 got each other's C registers
  const MmaProbeResult rows = recovered_with_swap(0, 4);
  CHECK(rows.mismatches > 0);
  CHECK(rows.a != tc::mma_m16n8k16_map(tc::MmaOperand::A));  // A's rows are read off D's
  CHECK(rows.c_kept == 128 - 2 * S::kElemsC);
}

TEST_CASE("the issue's tile under the f16 bound cannot see K column 0 or 1 dropped", "[tolerance]") {
  // What docs/05 says of the single tile's own check: the K-scaled fp16 bound (Tolerance::fp16_accumulate) is wide
  // enough that a result missing all of K column 0 or 1 passes it, while one missing column 2 fails. That is why
  // the binary also checks every variant exactly on integer operands (tc/gemm_check.hpp).
  tc::HostMatrix<__half, tc::RowMajor> a(S::M, S::K), b(S::K, S::N);
  for (int r = 0; r < S::M; ++r)
    for (int c = 0; c < S::K; ++c) a(r, c) = __float2half(0.01f * (16 * r + c));
  for (int r = 0; r < S::K; ++r)
    for (int c = 0; c < S::N; ++c) b(r, c) = __float2half(0.01f * (8 * r + c));
  const tc::GemmReference ref = tc::reference_gemm(tc::Op::T, tc::Op::T, S::M, S::N, S::K, 1.0, a.storage(), a.ld(),
                                                   b.storage(), b.ld(), 0.0, std::vector<__half>{}, S::M);
  auto without_column = [&](int l) {  // the exact result with K column l left out, rounded to fp16 as D is
    std::vector<__half> d(S::M * S::N);
    for (int j = 0; j < S::N; ++j)
      for (int i = 0; i < S::M; ++i)
        d[i + j * S::M] = __double2half(ref.value[i + j * S::M] -
                                        double(__half2float(a(i, l))) * double(__half2float(b(l, j))));
    return tc::compare(S::M, S::N, S::K, d.data(), S::M, ref, tc::Tolerance::fp16_accumulate());
  };
  CHECK(without_column(0).passed);
  CHECK(without_column(1).passed);
  CHECK_FALSE(without_column(2).passed);
}

TEST_CASE("pack_f16x2 puts the even-numbered element in bits 0..15", "[packing]") {
  const std::uint32_t reg = tc::pack_f16x2(__float2half(1.0f), __float2half(-2.0f));
  CHECK((reg & 0xffffu) == 0x3c00u);  // 1.0 in fp16
  CHECK((reg >> 16) == 0xc000u);      // -2.0 in fp16
  CHECK(__half2float(tc::unpack_f16(reg, 0)) == 1.0f);
  CHECK(__half2float(tc::unpack_f16(reg, 1)) == -2.0f);
  CHECK(tc::pack_bf16x2(__float2bfloat16(1.0f), __float2bfloat16(-2.0f)) == (0xc000u << 16 | 0x3f80u));
}

TEST_CASE("every fragment register load of the GEMM tile is one wavefront, and 4 without the skew", "[tile]") {
  using T = DefaultMmaTile;
  using Flat = MmaTile<128, 128, 32, 2, 4, 0>;
  for (int k0 = 0; k0 < T::BlockK; k0 += S::K) {
    for (int j = 0; j < S::kRegsA; ++j)
      for (int row0 = 0; row0 < T::BlockM; row0 += S::M) {
        CHECK(register_load_wavefronts<T>(true, row0, k0, j) == 1);
        CHECK(register_load_wavefronts<Flat>(true, row0, k0, j) == 4);
      }
    for (int j = 0; j < S::kRegsB; ++j)
      for (int col0 = 0; col0 < T::BlockN; col0 += S::N) CHECK(register_load_wavefronts<T>(false, col0, k0, j) == 1);
  }
}

TEST_CASE("the GEMM tile's copies cover each stage once and its warps cover the block tile once", "[tile]") {
  using T = DefaultMmaTile;
  std::vector<int> chunk_hits(T::kLines * T::kChunksPerLine, 0);
  for (int thread = 0; thread < T::kThreads; ++thread)
    for (int i = 0; i < T::kCopies; ++i) {
      const tc::Coord c = T::copy_chunk(thread, i);
      ++chunk_hits[c.row * T::kChunksPerLine + c.col];
    }
  for (int hits : chunk_hits) CHECK(hits == 1);
  std::vector<int> c_hits(T::BlockM * T::BlockN, 0);
  for (int w = 0; w < T::kThreads / tc::kWarpSize; ++w) {
    const tc::Coord origin = T::warp_origin(w);
    for (int r = 0; r < T::WarpM; ++r)
      for (int col = 0; col < T::WarpN; ++col) ++c_hits[(origin.row + r) * T::BlockN + origin.col + col];
  }
  for (int hits : c_hits) CHECK(hits == 1);
}

TEST_CASE("the launchers reject bad arguments with one-line errors", "[errors]") {
  CHECK(tc::test::thrown_message<std::invalid_argument>([] {
          launch_mma_single_tile<tc::MmaF32F16F16F32>(16, 16, 16, nullptr, 16, nullptr, 8, nullptr, 8, nullptr, 8);
        }) == "launch_mma_single_tile: m x n x k = 16x16x16 is not the instruction's 16x8x16");
  CHECK(tc::test::thrown_message<std::invalid_argument>([] {
          launch_mma_single_tile<tc::MmaF32F16F16F32>(16, 8, 16, nullptr, 15, nullptr, 8, nullptr, 8, nullptr, 8);
        }) == "launch_mma_single_tile: lda = 15 is below the matrix's line length 16");
  const std::string lda = tc::test::thrown_message<std::invalid_argument>(
      [] { launch_mma_gemm(64, 64, 64, 1.0f, nullptr, 32, nullptr, 64, 0.0f, nullptr, 64); });
  CHECK(lda.find("lda") != std::string::npos);
  CHECK(lda.find('\n') == std::string::npos);
  const std::string negative = tc::test::thrown_message<std::invalid_argument>(
      [] { launch_mma_gemm(-1, 64, 64, 1.0f, nullptr, 64, nullptr, 64, 0.0f, nullptr, 64); });
  CHECK(negative.find("m") != std::string::npos);
}

// ---- GPU -------------------------------------------------------------------------------------------------------

TEST_CASE("the single tile with the issue's values gives the expected D with fp16 accumulation", "[gpu][tile]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  tc::HostMatrix<__half, tc::RowMajor> a(S::M, S::K), b(S::K, S::N);
  for (int r = 0; r < S::M; ++r)
    for (int c = 0; c < S::K; ++c) a(r, c) = __float2half(float(0.01 * (16 * r + c)));
  for (int r = 0; r < S::K; ++r)
    for (int c = 0; c < S::N; ++c) b(r, c) = __float2half(float(0.01 * (8 * r + c)));
  tc::DeviceBuffer<__half> d_a(a.storage()), d_b(b.storage());
  tc::DeviceBuffer<__half> d_c(std::vector<__half>(S::M * S::N, __float2half(0.0f))), d_d(S::M * S::N);
  d_d.poison();
  launch_mma_single_tile<tc::MmaF16F16F16F16>(S::M, S::N, S::K, d_a.data(), S::K, d_b.data(), S::N, d_c.data(), S::N,
                                              d_d.data(), S::N);
  const std::vector<__half> d = d_d.download();
  // The issue's first row, about 0.992 1.004 ... 1.076 (0.012 apart), and last row, about 24.03 ... 26.80.
  for (int c = 0; c < S::N; ++c) CHECK(__half2float(d[c]) == Approx(0.992 + 0.012 * c).margin(0.002));
  CHECK(__half2float(d[15 * S::N + 0]) == Approx(24.03).margin(0.02));
  CHECK(__half2float(d[15 * S::N + 7]) == Approx(26.80).margin(0.02));
}

TEMPLATE_TEST_CASE("the single tile matches the CPU exactly on integers, any layout and padded ld", "[gpu][tile]",
                   tc::MmaF32F16F16F32, tc::MmaF16F16F16F16, tc::MmaF32BF16BF16F32) {
  tc::test::require_gpu(tc::chapter::kMinSm);
  using R = tc::RowMajor;
  using C = tc::ColMajor;
  const tc::CompareResult rrr = run_tile<TestType, R, R, R>(1, 0);
  const tc::CompareResult rcc = run_tile<TestType, R, C, C>(2, 3);
  const tc::CompareResult ccr = run_tile<TestType, C, C, R>(3, 5);
  INFO(TestType::name << "\n" << rrr.summary() << "\n" << rcc.summary() << "\n" << ccr.summary());
  CHECK(rrr.passed);
  CHECK(rcc.passed);
  CHECK(ccr.passed);
}

TEMPLATE_TEST_CASE("the hardware places every A and B element where the formulas say and keeps C's registers",
                   "[gpu][probe]",
                   tc::MmaF32F16F16F32, tc::MmaF16F16F16F16, tc::MmaF32BF16BF16F32) {
  tc::test::require_gpu(tc::chapter::kMinSm);
  const MmaProbeResult r = probe_mma_m16n8k16<TestType>();
  INFO(TestType::name);
  CHECK(r.mismatches == 0);
  CHECK(r.a == tc::mma_m16n8k16_map(tc::MmaOperand::A));
  CHECK(r.b == tc::mma_m16n8k16_map(tc::MmaOperand::B));
  CHECK(r.c_kept == 128);
}

TEST_CASE("WMMA 16x16x16 fragments are two m16n8k16 fragments side by side along N", "[gpu][probe][wmma]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  using namespace nvcuda;
  const tc::LaneMap a = tc::probe_wmma_fragment<wmma::matrix_a, Wmma16x16x16, tc::RowMajor>();
  const tc::LaneMap b = tc::probe_wmma_fragment<wmma::matrix_b, Wmma16x16x16, tc::ColMajor>();
  const tc::LaneMap c = tc::probe_wmma_fragment<wmma::accumulator, Wmma16x16x16, tc::RowMajor>();
  // matrix_a: x[0..7] is the m16n8k16 A fragment (lane 0: (0,0) (0,1) (8,0) (8,1) (0,8) (0,9) (8,8) (8,9)), shared
  // by both halves of N; the H200 also keeps a second copy in x[8..15].
  CHECK(count_wmma_matches(a, 0, 8, tc::MmaOperand::A, 0) == 256);
  CHECK(count_wmma_matches(a, 8, 8, tc::MmaOperand::A, 0) == 256);
  // matrix_b and the accumulator: elements 0..3 are the fragment of columns 0..7, elements 4..7 that of 8..15.
  CHECK(count_wmma_matches(b, 0, 4, tc::MmaOperand::B, 0) == 128);
  CHECK(count_wmma_matches(b, 4, 4, tc::MmaOperand::B, 8) == 128);
  CHECK(count_wmma_matches(c, 0, 4, tc::MmaOperand::C, 0) == 128);
  CHECK(count_wmma_matches(c, 4, 4, tc::MmaOperand::C, 8) == 128);
}

TEST_CASE("the mma.sync GEMM passes both checks on the issue's shapes, every scale, tight and padded",
          "[gpu][gemm]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for (tc::test::Ld ld : {tc::test::Ld::Tight, tc::test::Ld::Padded})
    for (auto [alpha, beta] : tc::test::gemm_scales<__half>()) {
      check_gemm(cublas, 16, 8, 16, alpha, beta, ld);
      check_gemm(cublas, 17, 33, 65, alpha, beta, ld);
      check_gemm(cublas, 1000, 1016, 1040, alpha, beta, ld);
    }
}

TEST_CASE("the mma.sync GEMM passes both checks on tile multiples, the padded path and k = 0", "[gpu][gemm]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  check_gemm(cublas, 128, 128, 32, 1.0, 0.0);   // one block, one stage
  check_gemm(cublas, 256, 384, 96, 1.0, 0.0);   // several blocks and stages, tile multiples
  check_gemm(cublas, 256, 384, 96, 0.5, 2.0);   // the epilogue reading C
  check_gemm(cublas, 130, 250, 40, 1.0, 0.0);   // the padded path
  check_gemm(cublas, 128, 128, 0, 1.0, 2.0);    // k = 0: C = beta * C
}

TEST_CASE("the mma.sync GEMM passes both checks at 4096^3", "[gpu][gemm][large]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  const tc::CublasHandle cublas;
  for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{0.5, 2.0}})
    check_gemm(cublas, 4096, 4096, 4096, alpha, beta);
}
