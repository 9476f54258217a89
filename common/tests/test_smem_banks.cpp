// The bank calculator (tc/layouts/smem_banks.hpp) on accesses whose cost is known by hand.
#include "tc/layouts/smem_banks.hpp"
#include "tc_test/catch.hpp"

#include <array>
#include <cstdint>
#include <vector>

TEST_CASE("bank of a byte address: 32 banks of 4 bytes", "[banks]") {
  STATIC_REQUIRE(tc::smem_bank(0) == 0);
  STATIC_REQUIRE(tc::smem_bank(3) == 0);
  STATIC_REQUIRE(tc::smem_bank(4) == 1);
  STATIC_REQUIRE(tc::smem_bank(124) == 31);
  STATIC_REQUIRE(tc::smem_bank(128) == 0);
  STATIC_REQUIRE(tc::smem_bank(16 * 80) == 0);
}

TEST_CASE("one phase: distinct words per bank decide the wavefronts, one word shared is a broadcast", "[banks]") {
  std::vector<tc::SmemAccess> contiguous, same_word, stride_128;
  for (int lane = 0; lane < 8; ++lane) {
    contiguous.push_back({lane, 16 * lane, 16});  // 128 bytes side by side: every bank once
    same_word.push_back({lane, 64, 4});           // all read word 16: one wavefront
    stride_128.push_back({lane, 128 * lane, 16}); // every lane in banks 0..3: 8 words each
  }
  const tc::PhaseCost c = tc::phase_cost(contiguous);
  CHECK(c.wavefronts == 1);
  CHECK(c.conflicts() == 0);
  for (int b = 0; b < tc::kSmemBanks; ++b) CHECK(c.words_per_bank[b] == 1);
  CHECK(tc::phase_cost(same_word).wavefronts == 1);
  CHECK(tc::phase_cost(same_word).conflicts() == 0);
  const tc::PhaseCost s = tc::phase_cost(stride_128);
  CHECK(s.wavefronts == 8);
  CHECK(s.min_wavefronts == 1);
  CHECK(s.conflicts() == 7);
  CHECK(s.words_per_bank[0] == 8);
  CHECK(s.words_per_bank[4] == 0);
}

TEST_CASE("ldmatrix: one phase per 8x8 matrix, a line stride that is an odd multiple of 16 bytes is conflict-free",
          "[banks]") {
  // 16 lines of 16 bytes (an 8-bit WMMA fragment's LDSM.16.M88.2) at line strides of 64 + skew bytes.
  const tc::AccessCost none = tc::ldmatrix_cost(tc::wmma_8bit_fragment_rows(0, 64));
  REQUIRE(none.phases.size() == 2);
  CHECK(none.phases[0].accesses[3].address == 3 * 64);
  CHECK(none.phases[1].accesses[0].lane == 8);
  CHECK(none.wavefronts == 8);  // lines alternate between banks 0-3 and 16-19: 4 words each, per phase
  CHECK(none.conflicts == 6);
  const tc::AccessCost skew16 = tc::ldmatrix_cost(tc::wmma_8bit_fragment_rows(0, 80));  // 80 / 16 = 5, odd
  CHECK(skew16.wavefronts == 2);
  CHECK(skew16.conflicts == 0);
  const tc::AccessCost skew32 = tc::ldmatrix_cost(tc::wmma_8bit_fragment_rows(0, 96));  // 96 / 16 = 6, even
  CHECK(skew32.wavefronts == 4);
  CHECK(skew32.conflicts == 2);
  // Every 32-byte multiple leaves 8 lines in at most 4 of the 8 16-byte slots of a 128-byte row: at least 2-way.
  for (int ld = 32; ld <= 512; ld += 32) {
    INFO("ld " << ld);
    CHECK(tc::ldmatrix_cost(tc::wmma_8bit_fragment_rows(0, ld)).conflicts >= 2);
  }
  for (int ld = 16; ld <= 512; ld += 32) {
    INFO("ld " << ld);
    CHECK(tc::ldmatrix_cost(tc::wmma_8bit_fragment_rows(0, ld)).conflicts == 0);
  }
  // A .x4 is four phases.
  CHECK(tc::ldmatrix_cost(std::vector<std::int64_t>(32, 0)).phases.size() == 4);
}

TEST_CASE("vector accesses: 16-byte accesses go 8 lanes per phase, 4-byte ones all 32 at once", "[banks]") {
  std::array<std::int64_t, tc::kWarpSize> address{};
  for (int lane = 0; lane < tc::kWarpSize; ++lane) address[lane] = 16 * lane;
  const tc::AccessCost v4 = tc::vector_access_cost(address, 16);
  CHECK(v4.phases.size() == 4);
  CHECK(v4.wavefronts == 4);
  CHECK(v4.conflicts == 0);
  for (int lane = 0; lane < tc::kWarpSize; ++lane) address[lane] = 4 * lane;
  const tc::AccessCost v1 = tc::vector_access_cost(address, 4);
  CHECK(v1.phases.size() == 1);
  CHECK(v1.wavefronts == 1);
  for (int lane = 0; lane < tc::kWarpSize; ++lane) address[lane] = 8 * lane;  // two lanes per bank, distinct words
  const tc::AccessCost strided = tc::vector_access_cost(address, 4);
  CHECK(strided.wavefronts == 2);
  CHECK(strided.conflicts == 1);
}

TEST_CASE("the bank figure names its cost and marks conflicting banks", "[banks]") {
  const std::string svg = tc::bank_svg("test", tc::ldmatrix_cost(tc::wmma_8bit_fragment_rows(0, 64)));
  CHECK(svg.find("8 wavefronts, 6 conflicts") != std::string::npos);
  CHECK(svg.find("phase 1: 4 wavefronts (3 extra)") != std::string::npos);
  CHECK(svg.find(">0x4</text>") != std::string::npos);  // bank 0 asked for 4 words
  CHECK(svg.rfind("</svg>") != std::string::npos);
}
