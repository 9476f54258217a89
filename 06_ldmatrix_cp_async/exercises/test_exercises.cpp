// Chapter 06's graded exercises (README, "Workshop mode"), all host-checked with the tutorial's own tools: the bank
// calculator (tc/layouts/smem_banks.hpp) for the swizzle, and ldmatrix's lane map composed with the m16n8k16 A
// formula (tc/layouts/ldmatrix.hpp, mma_m16n8k16.hpp) for the ldmatrix sources.
#if TC_EXERCISE_SOLUTIONS
#include "exercises/solutions.hpp"
#else
#include "exercises/ex1_swizzle.hpp"
#include "exercises/ex2_ldmatrix_source.hpp"
#endif

#include "tc/layouts/ldmatrix.hpp"
#include "tc/layouts/mma_m16n8k16.hpp"
#include "tc/layouts/smem_banks.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/exercise.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace {

std::int64_t chunk_address(int line, int chunk) {
  return std::int64_t(line) * ex06_1::kLineBytes + std::int64_t(ex06_1::swizzled_chunk(line, chunk)) * 16;
}

}  // namespace

TEST_CASE("exercise 06.1: the XOR swizzle of 64-byte lines", "[exercise]") {
  tc::exercise::grade([] {
    // A permutation of the 4 chunks on every line.
    for (int line = 0; line < 64; ++line) {
      std::array<int, 4> hits{};
      for (int c = 0; c < 4; ++c) {
        const int p = ex06_1::swizzled_chunk(line, c);
        INFO("line " << line << ": logical chunk " << c << " -> " << p);
        REQUIRE((p >= 0 && p < 4));
        ++hits[p];
      }
      for (int h : hits) REQUIRE(h == 1);
    }
    // ldmatrix: one phase is 8 lanes reading the same logical chunk of 8 consecutive lines (a fragment's rows).
    for (int first = 0; first < 64; first += 8)
      for (int c = 0; c < 4; ++c) {
        std::vector<std::int64_t> rows;
        for (int r = 0; r < 8; ++r) rows.push_back(chunk_address(first + r, c));
        INFO("ldmatrix phase: lines " << first << ".." << first + 7 << ", logical chunk " << c);
        REQUIRE(tc::ldmatrix_cost(rows).conflicts == 0);
      }
    // cp.async: consecutive lanes copy consecutive chunks of a line, 4 lanes per 64-byte line, 16 bytes each.
    for (int first = 0; first < 64; first += 8) {
      std::array<std::int64_t, tc::kWarpSize> address{};
      for (int lane = 0; lane < tc::kWarpSize; ++lane) address[lane] = chunk_address(first + lane / 4, lane % 4);
      INFO("cp.async: lines " << first << ".." << first + 7);
      REQUIRE(tc::vector_access_cost(address, 16).conflicts == 0);
    }
  });
}

TEST_CASE("exercise 06.2: ldmatrix.x4 row addresses for an A fragment", "[exercise]") {
  tc::exercise::grade([] {
    // Composed with ldmatrix's lane map (element e of lane l comes from row-supplier lane 8 * (e / 2) + l / 4, at
    // column 2 * (l % 4) + e % 2 of the 8 halves it points at), every fragment element must be the one the PTX ISA's
    // A figure gives.
    for (int lane = 0; lane < tc::kWarpSize; ++lane)
      for (int e = 0; e < tc::MmaM16N8K16::kElemsA; ++e) {
        const tc::Coord got = tc::ldmatrix_element_source(ex06_2::a_source, lane, e, false);
        const tc::Coord want = tc::mma_m16n8k16_a_coord(lane, e);
        INFO("lane " << lane << " element a" << e << ": receives A(" << got.row << ", " << got.col
                     << "), the fragment needs A(" << want.row << ", " << want.col << ")");
        REQUIRE((got.row == want.row && got.col == want.col));
      }
  });
}
