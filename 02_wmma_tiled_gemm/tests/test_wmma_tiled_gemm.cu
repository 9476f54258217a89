// Chapter 02 tests. Host: the launchers' grid arithmetic, the warp-to-tile maps, the tile contract that decides
// between a direct launch and padded copies, and argument errors. GPU: both kernels for every precision they cover,
// over the shape matrix of the chapter's issue, with alpha/beta, padded leading dimensions and poisoned output, each
// through the chapter's two checks (integer operands exactly, random ones against fp64: tc/gemm_check.hpp).
#include "chapter_config.hpp"  // tc::chapter::kMinSm, from tc_add_chapter in the top-level CMakeLists.txt
#include "wmma_tiled_gemm.cuh"

#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/padded_gemm.hpp"
#include "tc/random.hpp"
#include "tc/reference.hpp"
#include "tc/tile_contract.hpp"
#include "tc/warp_tile_grid.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/gemm.hpp"

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// ---------------------------------------------------------------------------------------------------------------
// Host tests

TEST_CASE("naive grid gives every 16x16 tile of C exactly one warp, including ragged edges", "[naive]") {
  using K = WmmaNaiveGemm<tc::WmmaF16>;
  CHECK(K::block().x == 128);
  CHECK(K::block().y == 4);
  CHECK(K::grid(4096, 4096).x == 64);  // 4096 / (4 warps * 16 rows)
  CHECK(K::grid(4096, 4096).y == 64);
  CHECK(K::grid(1, 1).x == 1);
  CHECK(K::grid(65, 16).x == 2);  // 5 tiles of rows need a second block of 4
  CHECK(K::grid(16, 65).y == 2);
  for (auto [m, n] : {std::pair{16, 16}, std::pair{17, 33}, std::pair{80, 208}}) {
    const dim3 grid = K::grid(m, n), block = K::block();
    std::multiset<std::pair<int, int>> covered;
    for (unsigned bx = 0; bx < grid.x; ++bx)
      for (unsigned by = 0; by < grid.y; ++by)
        for (unsigned ty = 0; ty < block.y; ++ty)
          for (unsigned tx = 0; tx < block.x; ++tx) {
            const tc::Coord t = tc::warp_tile_of(dim3(bx, by), block, dim3(tx, ty));
            // Same warp, same tile: lanes of one warp must agree (the kernel's early exit relies on it).
            CHECK(t == tc::warp_tile_of(dim3(bx, by), block, dim3(tx / 32 * 32, ty)));
            if (tx % 32 == 0 && t.row * 16 < m && t.col * 16 < n) covered.insert({t.row, t.col});
          }
    const int tiles_m = (m + 15) / 16, tiles_n = (n + 15) / 16;
    INFO(m << " x " << n);
    CHECK(covered.size() == std::size_t(tiles_m) * tiles_n);
    for (int i = 0; i < tiles_m; ++i)
      for (int j = 0; j < tiles_n; ++j) CHECK(covered.count({i, j}) == 1);
  }
}

TEST_CASE("block-tiled grid and warp origins cover each block tile exactly once", "[block_tiled]") {
  using F16 = WmmaBlockTiledGemm<tc::WmmaF16>;
  CHECK(F16::block().x == 256);
  CHECK(F16::grid(4096, 4096).x == 32);
  CHECK(F16::grid(4096, 4096).y == 32);
  CHECK(F16::grid(1000, 1016).x == 8);
  CHECK(F16::grid(1000, 1016).y == 8);
  using Tile = DefaultBlockTile<tc::WmmaF16>::type;
  std::multiset<std::pair<int, int>> fragments;
  for (int warp = 0; warp < Tile::kThreads / 32; ++warp) {
    const tc::Coord o = Tile::warp_origin(warp);
    for (int i = 0; i < Tile::FragsM; ++i)
      for (int j = 0; j < Tile::FragsN; ++j) fragments.insert({o.row + i * 16, o.col + j * 16});
  }
  CHECK(fragments.size() == std::size_t(Tile::BlockM / 16) * (Tile::BlockN / 16));
  for (int r = 0; r < Tile::BlockM; r += 16)
    for (int c = 0; c < Tile::BlockN; c += 16) CHECK(fragments.count({r, c}) == 1);
  using F64Tile = DefaultBlockTile<tc::WmmaF64>::type;
  CHECK(F64Tile::FragsM * F64Tile::FragsN * F64Tile::kThreads / 32 == (64 / 8) * (64 / 8));
}

TEST_CASE("the tile contract sends aligned tile multiples straight to the kernel and everything else to padding",
          "[padding]") {
  alignas(256) static __half h[64];
  alignas(256) static float f[64];
  const tc::TileContract tile{{128, 128, 32}, tc::kWmmaOperandRule, tc::kWmmaOperandRule};
  CHECK_FALSE(tc::tile_contract_problem(tile, 256, 128, 64, h, 256, h, 64, f, 256));
  CHECK(*tc::tile_contract_problem(tile, 1000, 128, 64, h, 1000, h, 64, f, 1000) ==
        "m = 1000 is not a multiple of the kernel's tile 128");
  CHECK(*tc::tile_contract_problem(tile, 128, 128, 65, h, 128, h, 65, f, 128) ==
        "k = 65 is not a multiple of the kernel's tile 32");
  CHECK(*tc::tile_contract_problem(tile, 128, 128, 32, h, 132, h, 32, f, 128) ==
        "ld of A is 132 elements; load/store_matrix_sync needs a multiple of 8 (16 bytes)");
  CHECK(*tc::tile_contract_problem(tile, 128, 128, 32, h + 8, 128, h, 32, f, 128) ==
        "A must be 32-byte aligned for load/store_matrix_sync");
  CHECK(*tc::tile_contract_problem(tile, 128, 128, 32, h, 128, h, 32, f, 130) ==
        "ld of C is 130 elements; load/store_matrix_sync needs a multiple of 4 (16 bytes)");
  CHECK(tc::round_up(1, 128) == 128);
  CHECK(tc::round_up(128, 128) == 128);
  CHECK(tc::round_up(1040, 32) == 1056);
  CHECK(tc::round_up(0, 16) == 0);
}

TEST_CASE("launchers reject impossible sizes and leading dimensions with one line", "[padding]") {
  CHECK(tc::test::thrown_message<std::invalid_argument>([] {
          launch_wmma_naive_gemm<tc::WmmaF16>(16, 16, 16, 1.0f, nullptr, 8, nullptr, 16, 0.0f, nullptr, 16);
        }) == "lda = 8 is too small: it must be >= max(1, m) = 16 for op(A) = N (column-major storage)");
  CHECK(tc::test::thrown_message<std::invalid_argument>([] {
          launch_wmma_block_tiled_gemm<tc::WmmaS8>(16, 16, 16, 1, nullptr, 16, nullptr, 16, 0, nullptr, 15);
        }) == "ldc = 15 is too small: it must be >= max(1, m) = 16 for C (column-major storage)");
  CHECK(tc::test::thrown_message<std::invalid_argument>([] {
          launch_wmma_block_tiled_gemm<tc::WmmaF64>(-1, 16, 16, 1.0, nullptr, 16, nullptr, 16, 0.0, nullptr, 16);
        }) == "GEMM sizes must be >= 0, got m = -1, n = 16, k = 16");
  // A whole-tile launch refuses what the padding path exists to fix: the contract is checked once, on the way in.
  alignas(256) static __half h[16];
  alignas(256) static float f[16];
  CHECK(tc::test::thrown_message<std::invalid_argument>([] {
          tc::launch_whole_tiles<WmmaNaiveGemm<tc::WmmaF16>>(17, 16, 16, 1.0f, h, 24, h, 16, 0.0f, f, 24, nullptr);
        }) == "naive: m = 17 is not a multiple of the kernel's tile 16");
}

// ---------------------------------------------------------------------------------------------------------------
// GPU tests

namespace {

struct Case {
  int m, n, k;
  double alpha, beta;
  int pad;  // extra rows of storage in A and C: lda = m + pad, ldc = m + pad (and ldb = k + pad)
};

// Runs Kernel on one case through the chapter's two checks (tc_test/gemm.hpp): integer operands checked exactly and
// random ones against fp64, at every size; and whether the padding rows of C (rows m..ldc-1) came back as they went in.
template <typename Kernel>
tc::test::GemmCheckOutcome run_case(const Case& cs, std::uint64_t seed) {
  using P = typename Kernel::Precision;
  using In = typename P::Input;
  using Acc = typename P::Accumulator;
  const tc::GemmProblem p{tc::Op::N, tc::Op::N, cs.m, cs.n, cs.k, cs.m + cs.pad, cs.k + cs.pad, cs.m + cs.pad,
                          cs.alpha, cs.beta};
  const tc::CublasHandle cublas;
  return tc::test::check_both<In, Acc>(
      cublas, p, seed,
      [&](const In* A, const In* B, Acc* C) {
        tc::launch_gemm_any_size<Kernel>(p.m, p.n, p.k, Acc(p.alpha), A, p.lda, B, p.ldb, Acc(p.beta), C, p.ldc,
                                         nullptr);
      },
      std::is_same_v<P, tc::WmmaTF32> ? tc::InputRounding::Tf32 : tc::InputRounding::None);
}

template <typename P>
std::vector<std::pair<double, double>> alpha_betas() {
  if constexpr (std::is_same_v<P, tc::WmmaS8>) return {{1, 0}, {2, -1}};
  else return {{1, 0}, {0.5, 2}};
}

template <typename Kernel>
void check_shapes(const std::vector<std::vector<int>>& shapes) {
  using P = typename Kernel::Precision;
  std::uint64_t seed = 100;
  for (const auto& s : shapes) {
    for (auto [alpha, beta] : tc::test::gemm_scales<typename P::Input>()) {
      for (int pad : {0, 8}) {
        const Case cs{s[0], s[1], s[2], alpha, beta, pad};
        const tc::test::GemmCheckOutcome r = run_case<Kernel>(cs, seed++);
        INFO(Kernel::name << " " << P::name << " " << cs.m << "x" << cs.n << "x" << cs.k << " alpha " << alpha
                          << " beta " << beta << " pad " << pad << "\nexact:  " << r.verdict.exact.summary()
                          << "\nrandom: " << r.verdict.random.summary());
        CHECK(r.verdict.passed());
        CHECK(r.padding_untouched);
      }
    }
  }
}

const std::vector<std::vector<int>> kShapes = {{16, 16, 16}, {1, 1, 1}, {17, 33, 65}, {1000, 1016, 1040},
                                               {64, 64, 4096}};

}  // namespace

TEMPLATE_TEST_CASE("naive WMMA GEMM matches the reference for every shape, alpha-beta and padding", "[gpu][naive]",
                   tc::WmmaF16, tc::WmmaBF16, tc::WmmaTF32, tc::WmmaF64, tc::WmmaS8) {
  tc::test::require_gpu(tc::chapter::kMinSm);
  check_shapes<WmmaNaiveGemm<TestType>>(kShapes);
}

TEMPLATE_TEST_CASE("block-tiled WMMA GEMM matches the reference for every shape, alpha-beta and padding",
                   "[gpu][block_tiled]", tc::WmmaF16, tc::WmmaBF16, tc::WmmaTF32, tc::WmmaF64, tc::WmmaS8) {
  tc::test::require_gpu(tc::chapter::kMinSm);
  check_shapes<WmmaBlockTiledGemm<TestType>>(kShapes);
}

TEMPLATE_TEST_CASE("both WMMA GEMMs pass both checks at 4096 cubed", "[gpu][large]", tc::WmmaF16, tc::WmmaBF16,
                   tc::WmmaTF32, tc::WmmaF64, tc::WmmaS8) {
  tc::test::require_gpu(tc::chapter::kMinSm);
  for (auto [alpha, beta] : alpha_betas<TestType>()) {
    const Case cs{4096, 4096, 4096, alpha, beta, 0};
    const tc::GemmVerdict naive = run_case<WmmaNaiveGemm<TestType>>(cs, 7).verdict;
    const tc::GemmVerdict tiled = run_case<WmmaBlockTiledGemm<TestType>>(cs, 8).verdict;
    INFO("alpha " << alpha << " beta " << beta << "\nnaive exact: " << naive.exact.summary() << "\nnaive random: "
                  << naive.random.summary() << "\nblock-tiled exact: " << tiled.exact.summary()
                  << "\nblock-tiled random: " << tiled.random.summary());
    CHECK(naive.passed());
    CHECK(tiled.passed());
  }
}
