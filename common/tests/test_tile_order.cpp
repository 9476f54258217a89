// The persistent kernels' tile order (tc/layouts/tile_order.hpp): every tile visited exactly once by the blocks'
// strided walk, for many grids, groups and SM counts, ragged edges included; the first indices as the definition
// says; and grouped order's L2 footprint per wave below row-major order's on chapter 08's problem.
#include "tc/layouts/tile_order.hpp"
#include "tc_test/catch.hpp"

#include <vector>

TEST_CASE("grouped order: the first tiles walk a group's rows column by column, the last group is shorter",
          "[tile_order]") {
  const tc::TileGrid g{5, 3};  // 5 tile rows: groups of 2 rows leave one row for the last group
  CHECK(tc::grouped_tile(g, 2, 0) == tc::Coord{0, 0});
  CHECK(tc::grouped_tile(g, 2, 1) == tc::Coord{1, 0});
  CHECK(tc::grouped_tile(g, 2, 2) == tc::Coord{0, 1});
  CHECK(tc::grouped_tile(g, 2, 5) == tc::Coord{1, 2});
  CHECK(tc::grouped_tile(g, 2, 6) == tc::Coord{2, 0});  // the second group
  CHECK(tc::grouped_tile(g, 2, 12) == tc::Coord{4, 0});  // the last group: one row
  CHECK(tc::grouped_tile(g, 2, 14) == tc::Coord{4, 2});
  CHECK(tc::grouped_tile(g, 1, 4) == tc::row_major_tile(g, 4));  // groups of one row are row-major order
}

TEST_CASE("grouped order: the blocks of a persistent launch visit every tile exactly once", "[tile_order]") {
  for (int tiles_m : {1, 2, 7, 32, 33, 64})
    for (int tiles_n : {1, 3, 16, 31, 32})
      for (int group : {1, 2, 4, 8, 16})
        for (int blocks : {1, 66, 132}) {
          const tc::TileGrid g{tiles_m, tiles_n};
          std::vector<int> hits(g.count(), 0);
          for (int b = 0; b < blocks; ++b)
            for (int t = b; t < g.count(); t += blocks) {
              const tc::Coord c = tc::grouped_tile(g, group, t);
              REQUIRE((c.row >= 0 && c.row < tiles_m && c.col >= 0 && c.col < tiles_n));
              ++hits[c.row * tiles_n + c.col];
            }
          INFO(tiles_m << " x " << tiles_n << " tiles, group " << group << ", " << blocks << " blocks");
          for (int h : hits) REQUIRE(h == 1);
        }
}

TEST_CASE("grouped order: a wave of 132 tiles reads less from L2 than row-major order at 8192^3", "[tile_order]") {
  // 128 x 256 block tiles of 8192 x 8192 x 8192 in 16-bit elements: 64 x 32 tiles; a panel is 128 (or 256) rows of K.
  const tc::TileGrid g{64, 32};
  const std::int64_t a = 128LL * 8192 * 2, b = 256LL * 8192 * 2;
  const std::int64_t row_major =
      tc::wave_footprint_bytes([&](int t) { return tc::row_major_tile(g, t); }, 0, 132, g.count(), a, b);
  const std::int64_t grouped =
      tc::wave_footprint_bytes([&](int t) { return tc::grouped_tile(g, 8, t); }, 0, 132, g.count(), a, b);
  INFO("row-major " << row_major << " B, grouped(8) " << grouped << " B");
  CHECK(row_major == 5 * a + 32 * b);  // 132 tiles = 4 whole tile rows and 4 tiles of a fifth: all of B
  CHECK(grouped == 8 * a + 17 * b);    // 8 rows, 16.5 columns
  CHECK(grouped < row_major);
}
