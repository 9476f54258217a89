// Chapter 04 tests. Host: the tile arithmetic (copies cover a stage once, warps cover the block tile), shared-memory
// sizing, the bank cost of each skew from the kernel's own addresses, the overflow bound, and the launcher's one-line
// errors. GPU: s8 and u8 x skews 0, 16, 32 x the issue's shapes and more, every (alpha, beta) of
// tc::test::gemm_scales ((1, 0), (2, -1), (3, -2), (1, 1)) with tight and padded leading dimensions (C's padding rows
// must come back untouched), exact against the CPU reference or cuBLAS DGEMM on the same integers; 1024^3 and 4096^3
// with (1, 0) and (2, -1); bit for bit against cuBLAS int8 TN; extreme inputs.
#include "chapter_config.hpp"  // tc::chapter::kMinSm
#include "imma_shared_gemm.cuh"
#include "smem_plan.hpp"

#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/padded_gemm.hpp"
#include "tc/random.hpp"
#include "tc/reference_for.cuh"
#include "tc_test/catch.hpp"
#include "tc_test/gemm.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using Tile0 = DefaultImmaTile<0>;
using Tile16 = DefaultImmaTile<16>;
using Tile32 = DefaultImmaTile<32>;

// The problem (m, n, k, alpha, beta) as the chapter stores it: A row-major (op T), B column-major (op N), C
// column-major; tight leading dimensions (lda = ldb = k, ldc = m) or padded ones (tc::test::with_padding).
tc::GemmProblem problem(int m, int n, int k, int alpha, int beta, tc::test::Ld ld) {
  const tc::GemmProblem p = tc::GemmProblem::tight(tc::Op::T, tc::Op::N, m, n, k, alpha, beta);
  return ld == tc::test::Ld::Padded ? tc::test::with_padding(p, 1, 4) : p;
}

struct Outcome {
  tc::CompareResult result;
  bool padding_untouched = true;
};

// Runs ImmaSharedGemm<P, Tile> on problem p with the given host inputs (sized for p's leading dimensions) and returns
// the comparison with the exact reference, and whether C's padding rows came back as they went in.
template <typename P, typename Tile>
Outcome run_and_compare(const tc::CublasHandle& cublas, const tc::GemmProblem& p,
                        const std::vector<typename P::Input>& a, const std::vector<typename P::Input>& b,
                        const std::vector<std::int32_t>& c) {
  const int alpha = int(p.alpha), beta = int(p.beta);
  const tc::GemmReference ref =
      tc::reference_for<P>(cublas, tc::Op::T, tc::Op::N, p.m, p.n, p.k, alpha, a, p.lda, b, p.ldb, beta, c, p.ldc);
  tc::DeviceBuffer<typename P::Input> d_a(a), d_b(b);
  tc::DeviceBuffer<std::int32_t> d_c(p.c_elements());  // c may be empty when beta == 0
  beta != 0 ? d_c.upload(c) : d_c.poison();
  tc::launch_gemm_any_size<ImmaSharedGemm<P, Tile>>(p.m, p.n, p.k, alpha, d_a.data(), p.lda, d_b.data(), p.ldb, beta,
                                                    d_c.data(), p.ldc, nullptr);
  const std::vector<std::int32_t> got = d_c.download();
  return {tc::compare(p.m, p.n, p.k, got.data(), p.ldc, ref, tc::Tolerance::exact()),
          tc::test::padding_untouched(p, got, c)};
}

// The tight problem (m, n, k, alpha, beta) on given host inputs.
template <typename P, typename Tile>
tc::CompareResult run_and_compare(const tc::CublasHandle& cublas, int m, int n, int k, int alpha, int beta,
                                  const std::vector<typename P::Input>& a, const std::vector<typename P::Input>& b,
                                  const std::vector<std::int32_t>& c) {
  return run_and_compare<P, Tile>(cublas, problem(m, n, k, alpha, beta, tc::test::Ld::Tight), a, b, c).result;
}

template <typename P, typename Tile>
void check_random(const tc::CublasHandle& cublas, int m, int n, int k, int alpha, int beta,
                  tc::test::Ld ld = tc::test::Ld::Tight) {
  const tc::GemmProblem p = problem(m, n, k, alpha, beta, ld);
  std::vector<typename P::Input> a(p.a_elements()), b(p.b_elements());
  std::vector<std::int32_t> c(p.c_elements());
  tc::fill_random(a, 11, tc::Fill::Real);  // full range
  tc::fill_random(b, 12, tc::Fill::Real);
  tc::fill_random(c, 13, tc::Fill::Real);
  INFO(P::name << " skew " << Tile::Skew << " " << m << "x" << n << "x" << k << " lda " << p.lda << " ldc " << p.ldc
               << " alpha " << alpha << " beta " << beta);
  const Outcome r = run_and_compare<P, Tile>(cublas, p, a, b, c);
  INFO(r.result.summary());
  CHECK(r.result.passed);
  CHECK(r.padding_untouched);
}

// Every skew; every scale of tc::test::gemm_scales with tight and padded leading dimensions, or (large sizes, where
// the small shapes have shown those) (1, 0) and (2, -1), tight.
template <typename P>
void check_all_skews(const tc::CublasHandle& cublas, int m, int n, int k, bool every_case = true) {
  const std::vector<std::pair<double, double>> scales =
      every_case ? tc::test::gemm_scales<typename P::Input>() : std::vector<std::pair<double, double>>{{1, 0}, {2, -1}};
  for (tc::test::Ld ld : {tc::test::Ld::Tight, tc::test::Ld::Padded}) {
    if (!every_case && ld == tc::test::Ld::Padded) continue;
    for (auto [alpha, beta] : scales) {
      check_random<P, Tile0>(cublas, m, n, k, int(alpha), int(beta), ld);
      check_random<P, Tile16>(cublas, m, n, k, int(alpha), int(beta), ld);
      check_random<P, Tile32>(cublas, m, n, k, int(alpha), int(beta), ld);
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Host tests

TEST_CASE("a stage's copies move every 16-byte chunk of every line exactly once", "[tile]") {
  std::set<std::pair<int, int>> seen;
  for (int t = 0; t < Tile16::kThreads; ++t)
    for (int i = 0; i < Tile16::kCopies; ++i) {
      const tc::Coord c = Tile16::copy_chunk(t, i);
      REQUIRE(c.row >= 0);
      REQUIRE(c.row < Tile16::kLines);
      REQUIRE(c.col >= 0);
      REQUIRE(c.col < Tile16::kChunksPerLine);
      seen.insert({c.row, c.col});
    }
  CHECK(seen.size() == std::size_t(Tile16::kLines) * Tile16::kChunksPerLine);
  CHECK(std::size_t(Tile16::kThreads) * Tile16::kCopies == seen.size());
}

TEST_CASE("the warps' patches tile the block tile without overlap", "[tile]") {
  std::set<std::pair<int, int>> fragments;
  for (int w = 0; w < Tile16::kThreads / tc::kWarpSize; ++w) {
    const tc::Coord o = Tile16::warp_origin(w);
    for (int i = 0; i < Tile16::FragsM; ++i)
      for (int j = 0; j < Tile16::FragsN; ++j) fragments.insert({o.row + 16 * i, o.col + 16 * j});
  }
  CHECK(fragments.size() == std::size_t(Tile16::BlockM / 16) * (Tile16::BlockN / 16));
  CHECK(fragments.begin()->first == 0);
  CHECK(fragments.rbegin()->first == Tile16::BlockM - 16);
}

TEST_CASE("shared-memory sizing: a stage is BlockM + BlockN lines of BlockK + skew bytes", "[tile]") {
  STATIC_REQUIRE(Tile16::kLd == 80);
  STATIC_REQUIRE(Tile16::kStageBytes == 256 * 80);
  STATIC_REQUIRE(Tile0::kSmemBytes == 3 * 256 * 64);
  STATIC_REQUIRE(Tile16::kSmemBytes == 61440);
  STATIC_REQUIRE(Tile32::kSmemBytes == 73728);
  // Three blocks of the chosen tile fit in an H100/H200 SM's 228 KB (227 KB usable per block), and one fits the
  // 163 KB opt-in limit of an A100 (CUDA C++ Programming Guide, "Compute Capabilities", table of technical limits).
  STATIC_REQUIRE(3 * Tile16::kSmemBytes <= 228 * 1024);
  STATIC_REQUIRE(Tile32::kSmemBytes <= 163 * 1024);
  // The last line of B ends inside the stage; the first line of B starts right after A's BlockM lines.
  STATIC_REQUIRE(Tile16::smem_offset(Tile16::kLines - 1, Tile16::BlockK) <= Tile16::kStageBytes);
  STATIC_REQUIRE(Tile16::smem_offset(Tile16::BlockM, 0) == Tile16::BlockM * Tile16::kLd);
  CHECK(smem_plan_svg<Tile16>().find("3 stages x 20480 bytes = 61440 bytes") != std::string::npos);
}

TEST_CASE("bank cost of one stage, per skew, from the kernel's own addresses", "[banks]") {
  // 4 warps x 4 K steps x (4 + 4) fragment loads = 128 LDSM of 2 phases; 4 warps x 8 copies of 4 phases.
  const StageCost s0 = stage_cost<Tile0>(), s16 = stage_cost<Tile16>(), s32 = stage_cost<Tile32>();
  CHECK(s0.fragment_loads == 128);
  CHECK(s0.copies == 32);
  // Skew 0: lines 64 bytes apart sit in banks 0-3 and 16-19 only: 4 words per bank per phase.
  CHECK(s0.load_wavefronts == 128 * 8);
  CHECK(s0.load_conflicts == 128 * 6);
  CHECK(s0.copy_conflicts == 0);  // a copy phase is 2 whole lines = 128 contiguous bytes
  // Skew 16: ld / 16 = 5 is odd, so 8 lines hit 8 different 16-byte slots: no read conflicts ...
  CHECK(s16.load_wavefronts == 128 * 2);
  CHECK(s16.load_conflicts == 0);
  // ... but a copy phase's two lines now overlap in one 16-byte slot: 1 extra wavefront per phase.
  CHECK(s16.copy_wavefronts == 32 * 8);
  CHECK(s16.copy_conflicts == 32 * 4);
  // Skew 32 (NVIDIA's sample): ld / 16 = 6 is even, 2-way on every read phase.
  CHECK(s32.load_conflicts == 128 * 2);
  CHECK(s32.copy_conflicts == 32 * 4);
  // The chosen skew is the one with the fewest wavefronts per stage in total.
  CHECK(s16.load_wavefronts + s16.copy_wavefronts < s32.load_wavefronts + s32.copy_wavefronts);
  CHECK(s16.load_wavefronts + s16.copy_wavefronts < s0.load_wavefronts + s0.copy_wavefronts);
}

TEST_CASE("int32 accumulation: the longest exact K for full-range inputs", "[overflow]") {
  STATIC_REQUIRE(max_exact_k<std::int8_t>() == 131071);
  STATIC_REQUIRE(max_exact_k<std::uint8_t>() == 33025);
  // One more product past the bound leaves the int32 range; at the bound it does not.
  CHECK(131071LL * 128 * 128 <= 2147483647LL);
  CHECK(131072LL * 128 * 128 > 2147483647LL);
  CHECK(33025LL * 255 * 255 <= 2147483647LL);
  CHECK(33026LL * 255 * 255 > 2147483647LL);
}

TEST_CASE("the launcher rejects what the kernel cannot take, in one line", "[errors]") {
  using Gemm = ImmaSharedGemm<tc::WmmaS8, Tile16>;
  CHECK(tc::test::thrown_message<std::invalid_argument>([] {
          tc::launch_whole_tiles<Gemm>(17, 16, 16, 1, nullptr, 16, nullptr, 16, 0, nullptr, 32, nullptr);
        }) == "INT8 IMMA shared-memory GEMM: m = 17 is not a multiple of the kernel's tile 16");
  CHECK(tc::test::thrown_message<std::invalid_argument>([] {
          tc::launch_whole_tiles<Gemm>(16, 16, 32, 1, nullptr, 16, nullptr, 32, 0, nullptr, 16, nullptr);
        }) == "lda = 16 is too small: it must be >= max(1, k) = 32 for op(A) = T (column-major storage)");
  CHECK(tc::test::thrown_message<std::invalid_argument>([] {
          tc::launch_whole_tiles<Gemm>(16, 16, 16, 1, nullptr, 24, nullptr, 16, 0, nullptr, 16, nullptr);
        }) == "INT8 IMMA shared-memory GEMM: ld of A is 24 elements; a 16-byte global copy needs a multiple of 16 "
              "(16 bytes)");
  // A and B come in by 16-byte cp.async, so 16-byte alignment is enough for them (WMMA would want 32) ...
  const auto* misaligned = reinterpret_cast<const std::int8_t*>(std::uintptr_t{8});
  CHECK(tc::test::thrown_message<std::invalid_argument>([&] {
          tc::launch_whole_tiles<Gemm>(16, 16, 16, 1, nullptr, 16, misaligned, 16, 0, nullptr, 16, nullptr);
        }) == "INT8 IMMA shared-memory GEMM: B must be 16-byte aligned for a 16-byte global copy");
  // ... while C goes through WMMA's accumulator stores, which want 32.
  auto* const c16 = reinterpret_cast<std::int32_t*>(std::uintptr_t{16});
  CHECK(tc::test::thrown_message<std::invalid_argument>([&] {
          tc::launch_whole_tiles<Gemm>(16, 16, 16, 1, nullptr, 16, nullptr, 16, 0, c16, 16, nullptr);
        }) == "INT8 IMMA shared-memory GEMM: C must be 32-byte aligned for load/store_matrix_sync");
  // m = 0 or n = 0: nothing to compute, nothing launched, no error.
  CHECK_NOTHROW(tc::launch_whole_tiles<Gemm>(0, 16, 16, 1, nullptr, 16, nullptr, 16, 0, nullptr, 16, nullptr));
}

// ---------------------------------------------------------------------------------------------------------------
// GPU tests

TEST_CASE("s8 and u8, every skew: small and partial-tile shapes, exact", "[gpu]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  tc::CublasHandle cublas;
  // 16x16x16 and 32x48x64: one partial block; 48x80x96 and 144x272x80: partial tiles on every edge and a partial
  // last stage (K not a multiple of 64); 17x33x65 and 1000x1016x1040 are not multiples of 16 (padded path).
  for (auto [m, n, k] : {std::tuple{16, 16, 16}, std::tuple{32, 48, 64}, std::tuple{48, 80, 96},
                         std::tuple{144, 272, 80}, std::tuple{17, 33, 65}, std::tuple{1000, 1016, 1040}}) {
    check_all_skews<tc::WmmaS8>(cublas, m, n, k);
    check_all_skews<tc::WmmaU8>(cublas, m, n, k);
  }
}

TEST_CASE("s8 and u8, every skew: 1024^3, exact", "[gpu]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  tc::CublasHandle cublas;
  check_all_skews<tc::WmmaS8>(cublas, 1024, 1024, 1024, false);
  check_all_skews<tc::WmmaU8>(cublas, 1024, 1024, 1024, false);
}

TEST_CASE("s8 and u8, every skew: 4096^3, exact against cuBLAS DGEMM on the same integers", "[gpu][large]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  tc::CublasHandle cublas;
  check_all_skews<tc::WmmaS8>(cublas, 4096, 4096, 4096, false);
  check_all_skews<tc::WmmaU8>(cublas, 4096, 4096, 4096, false);
}

TEST_CASE("s8 matches cuBLAS's own int8 TN GEMM bit for bit", "[gpu]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  tc::CublasHandle cublas;
  const int m = 512, n = 768, k = 1024;
  std::vector<std::int8_t> a(std::size_t(m) * k), b(std::size_t(k) * n);
  tc::fill_random(a, 21, tc::Fill::Real);
  tc::fill_random(b, 22, tc::Fill::Real);
  tc::DeviceBuffer<std::int8_t> d_a(a), d_b(b);
  tc::DeviceBuffer<std::int32_t> ours(std::size_t(m) * n), theirs(std::size_t(m) * n);
  ours.poison();
  theirs.poison();
  ImmaSharedGemm<tc::WmmaS8, Tile16>::launch(m, n, k, 3, d_a.data(), k, d_b.data(), k, 0, ours.data(), m, nullptr);
  tc::cublas_gemm<std::int8_t, std::int32_t>(cublas, tc::Op::T, tc::Op::N, m, n, k, 3.0, d_a.data(), k, d_b.data(),
                                             k, 0.0, theirs.data(), m, theirs.data(), m);
  CHECK(ours.download() == theirs.download());
}

TEST_CASE("extreme inputs: -128/127 for s8, 0/255 for u8, K = 4096, exact", "[gpu]") {
  tc::test::require_gpu(tc::chapter::kMinSm);
  tc::CublasHandle cublas;
  const int m = 64, n = 48, k = 4096;
  const std::vector<std::int32_t> no_c;
  auto check_s8 = [&](const char* what, auto make) {
    std::vector<std::int8_t> a(std::size_t(m) * k), b(std::size_t(k) * n);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = make(i);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = make(i * 7 + 3);
    INFO(what);
    const tc::CompareResult r = run_and_compare<tc::WmmaS8, Tile16>(cublas, m, n, k, 1, 0, a, b, no_c);
    INFO(r.summary());
    CHECK(r.passed);
  };
  check_s8("all -128: every sum is 4096 * 16384 = 2^26", [](std::size_t) { return std::int8_t(-128); });
  check_s8("all 127", [](std::size_t) { return std::int8_t(127); });
  check_s8("mixed -128/127", [](std::size_t i) { return std::int8_t((i * 2654435761u >> 7) % 2 ? -128 : 127); });
  // u8 must read as unsigned: 255 taken as s8 would be -1.
  auto check_u8 = [&](const char* what, auto make) {
    std::vector<std::uint8_t> a(std::size_t(m) * k), b(std::size_t(k) * n);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = make(i);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = make(i * 7 + 3);
    INFO(what);
    const tc::CompareResult r = run_and_compare<tc::WmmaU8, Tile16>(cublas, m, n, k, 1, 0, a, b, no_c);
    INFO(r.summary());
    CHECK(r.passed);
  };
  check_u8("all 255: every sum is 4096 * 65025", [](std::size_t) { return std::uint8_t(255); });
  check_u8("mixed 0/255", [](std::size_t i) { return std::uint8_t((i * 2654435761u >> 7) % 2 ? 0 : 255); });
  // Full-range random values with K = 4096, beta != 0, on the skews not covered above.
  check_random<tc::WmmaS8, Tile0>(cublas, m, n, k, 2, -1);
  check_random<tc::WmmaU8, Tile32>(cublas, m, n, k, 2, -1);
}
