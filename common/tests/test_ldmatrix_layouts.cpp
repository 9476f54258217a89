// Tests of the ldmatrix lane maps (tc/layouts/ldmatrix.hpp) and of the shared-memory line layouts
// (tc/layouts/smem_lines.hpp): the maps against the PTX ISA's tables, the sources against the m16n8k16 fragment
// formulas (and a wrong source caught), the swizzle a bijection, and the bank calculator's verdict on both layouts.
#include "tc/layout_maps.hpp"
#include "tc/layouts/ldmatrix.hpp"
#include "tc/layouts/smem_banks.hpp"
#include "tc/layouts/smem_lines.hpp"
#include "tc_test/catch.hpp"

#include <cuda_fp16.h>

#include <cstdint>
#include <set>
#include <vector>

namespace {

// The ldmatrix phases of 8 consecutive lines from `line0` at logical chunk `chunk`, for a tile layout L.
template <typename L>
tc::AccessCost eight_rows_cost(int line0, int chunk) {
  std::vector<std::int64_t> rows;
  for (int r = 0; r < 8; ++r) rows.push_back(std::int64_t(L::offset(line0 + r, chunk * L::kChunk)) * 2);
  return tc::ldmatrix_cost(rows);
}

// A cp.async phase: 8 consecutive 16-byte chunks of the tile in line order (line v / C, chunk v % C), from v0.
template <typename L, int LineElems>
tc::AccessCost copy_phase_cost(int v0) {
  constexpr int chunks = LineElems / L::kChunk;
  std::array<std::int64_t, tc::kWarpSize> address{};
  for (int lane = 0; lane < tc::kWarpSize; ++lane) {
    const int v = v0 + lane;
    address[lane] = std::int64_t(L::offset(v / chunks, v % chunks * L::kChunk)) * 2;
  }
  return tc::vector_access_cost(address, 16);
}

template <int LineElems>
void check_swizzle_layout() {
  using L = tc::SmemLines<__half, LineElems, tc::Swizzled>;
  constexpr int lines = 64;
  std::set<int> offsets;
  for (int line = 0; line < lines; ++line)
    for (int k = 0; k < LineElems; ++k) {
      const int o = L::offset(line, k);
      CHECK(o / LineElems == line);  // stays in its own line: no padding, nothing moves between lines
      offsets.insert(o);
    }
  CHECK(offsets.size() == std::size_t(lines) * LineElems);  // a bijection onto the unpadded tile
  for (int line0 = 0; line0 < lines; line0 += 8)
    for (int chunk = 0; chunk < LineElems / L::kChunk; ++chunk) {
      INFO("line length " << LineElems * 2 << " bytes, lines " << line0 << ".." << line0 + 7 << ", chunk " << chunk);
      CHECK(eight_rows_cost<L>(line0, chunk).conflicts == 0);
    }
  for (int v0 = 0; v0 < lines * LineElems / L::kChunk; v0 += tc::kWarpSize)
    CHECK(copy_phase_cost<L, LineElems>(v0).conflicts == 0);
}

}  // namespace

TEST_CASE("ldmatrix: lane l supplies row l % 8 of matrix l / 8", "[ldmatrix]") {
  STATIC_REQUIRE(tc::ldmatrix_address_row(0) == tc::LdmatrixRow{0, 0});
  STATIC_REQUIRE(tc::ldmatrix_address_row(7) == tc::LdmatrixRow{0, 7});
  STATIC_REQUIRE(tc::ldmatrix_address_row(8) == tc::LdmatrixRow{1, 0});
  STATIC_REQUIRE(tc::ldmatrix_address_row(31) == tc::LdmatrixRow{3, 7});
}

TEST_CASE("ldmatrix: what each lane receives, from the ISA's fragment figure, without and with .trans", "[ldmatrix]") {
  // PTX ISA 9.7.14.5.15, "ldmatrix fragment layout for one 8x8 matrix": row r of the matrix is held by lanes 4r..4r+3,
  // two consecutive columns each ("T0: a0 a1 | T1: a0 a1 | ..."). With .trans the matrix is delivered transposed.
  using E = tc::LdmatrixElement;
  STATIC_REQUIRE(tc::ldmatrix_received(0, 0, false) == E{0, 0, 0});
  STATIC_REQUIRE(tc::ldmatrix_received(0, 1, false) == E{0, 0, 1});
  STATIC_REQUIRE(tc::ldmatrix_received(5, 0, false) == E{0, 1, 2});
  STATIC_REQUIRE(tc::ldmatrix_received(31, 7, false) == E{3, 7, 7});
  STATIC_REQUIRE(tc::ldmatrix_received(5, 0, true) == E{0, 2, 1});
  STATIC_REQUIRE(tc::ldmatrix_received(5, 1, true) == E{0, 3, 1});
  STATIC_REQUIRE(tc::ldmatrix_received(31, 7, true) == E{3, 7, 7});
  for (int num : {1, 2, 4})
    for (bool trans : {false, true}) {
      const tc::LaneMap map = tc::ldmatrix_map(num, trans);
      INFO(".x" << num << (trans ? ".trans" : ""));
      CHECK(map.all_slots_in_tile());
      CHECK(map.min_copies() == 1);  // every element of the num matrices delivered exactly once
      CHECK(map.max_copies() == 1);
    }
}

TEST_CASE("ldmatrix.x4 from the three sources delivers exactly the m16n8k16 A and B fragments", "[ldmatrix]") {
  STATIC_REQUIRE(tc::ldmatrix_x4_gives_mma_a());
  STATIC_REQUIRE(tc::ldmatrix_x4_gives_mma_b(false));
  STATIC_REQUIRE(tc::ldmatrix_x4_gives_mma_b(true));
  // Lane 0's a0..a7 are rows 0, 0, 8, 8, 0, 0, 8, 8 at k 0, 1, 0, 1, 8, 9, 8, 9 (the A figure of 9.7.14.5.8).
  STATIC_REQUIRE(tc::ldmatrix_element_source(tc::ldmatrix_x4_a_source, 0, 2, false) == tc::Coord{8, 0});
  STATIC_REQUIRE(tc::ldmatrix_element_source(tc::ldmatrix_x4_a_source, 0, 5, false) == tc::Coord{0, 9});
}

TEST_CASE("a wrong ldmatrix source is caught: the natural-looking lane-to-row order gives the wrong A", "[ldmatrix]") {
  // Lanes 0..7 rows 0-7 at k 0, lanes 8..15 rows 0-7 at k 8, ...: matrix 1 becomes (rows 0-7, k 8-15), so a2a3 and
  // a4a5 trade places. This is the mistake the composition check exists for.
  auto wrong = [](int lane) { return tc::Coord{lane / 16 * 8 + lane % 8, lane / 8 % 2 * 8}; };
  int differing = 0;
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    for (int e = 0; e < tc::MmaM16N8K16::kElemsA; ++e)
      differing += tc::ldmatrix_element_source(wrong, lane, e, false) != tc::mma_m16n8k16_a_coord(lane, e);
  CHECK(differing == 32 * 4);  // a2..a5 of every lane
}

TEST_CASE("padded lines: 16 bytes of skew make the 8 rows of an ldmatrix conflict-free, none makes them 8-way",
          "[ldmatrix][banks]") {
  using Flat = tc::SmemLines<__half, 64, tc::Padded<0>>;    // 128-byte lines: every row in the same 4 banks
  using Skewed = tc::SmemLines<__half, 64, tc::Padded<8>>;  // 144-byte lines
  using Flat32 = tc::SmemLines<__half, 32, tc::Padded<0>>;  // 64-byte lines: two rows per bank row
  using Skewed32 = tc::SmemLines<__half, 32, tc::Padded<8>>;
  CHECK(eight_rows_cost<Flat>(0, 0).wavefronts == 8);
  CHECK(eight_rows_cost<Flat32>(0, 0).wavefronts == 4);
  for (int chunk = 0; chunk < 8; ++chunk) CHECK(eight_rows_cost<Skewed>(0, chunk).conflicts == 0);
  for (int chunk = 0; chunk < 4; ++chunk) CHECK(eight_rows_cost<Skewed32>(8, chunk).conflicts == 0);
}

TEST_CASE("the XOR swizzle is a bijection, and ldmatrix rows and cp.async chunks hit 32 distinct banks",
          "[swizzle][banks]") {
  check_swizzle_layout<16>();   // 32-byte lines (BlockK 16)
  check_swizzle_layout<32>();   // 64-byte lines (BlockK 32)
  check_swizzle_layout<64>();   // 128-byte lines (BlockK 64)
  check_swizzle_layout<128>();  // 256-byte lines (BlockK 128)
  using S = tc::SmemLines<__half, 64, tc::Swizzled>;
  STATIC_REQUIRE(S::chunk(0, 3) == 3);  // line 0 is not permuted
  STATIC_REQUIRE(S::chunk(5, 3) == 6);  // 3 ^ 5
  STATIC_REQUIRE(S::offset(5, 3 * 8 + 2) == 5 * 64 + 6 * 8 + 2);
}
