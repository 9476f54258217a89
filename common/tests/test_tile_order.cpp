// The persistent kernels' tile order (tc/layouts/tile_order.hpp): every tile visited exactly once by the blocks'
// strided walk, for many grids, groups and SM counts, ragged edges included; the first indices as the definition
// says; and grouped order's L2 footprint per wave below row-major order's on chapter 08's problem.
#include "tc/layouts/tile_order.hpp"
#include "tc/layouts/waves.hpp"
#include "tc_test/catch.hpp"

#include <utility>
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

TEST_CASE("two tile heights: the blocks of a persistent launch cover every row and column of C exactly once",
          "[tile_order]") {
  // Step 5's heights (192 and 128 rows, clusters of 2) and others, over M ragged and whole, and SM counts.
  for (auto [tall_m, short_m] : {std::pair{192, 128}, std::pair{128, 64}, std::pair{256, 128}})
    for (int m : {1, 100, 384, 1000, 2500, 3072, 4095, 4096, 6144})
      for (int n : {1, 256, 4097})
        for (int clusters : {1, 7, 64}) {
          const tc::HeightPlan p = tc::plan_tile_heights(m, n, tall_m, short_m, 256, 2, clusters);
          INFO(m << " x " << n << ", heights " << tall_m << " and " << short_m << ", " << clusters << " clusters: "
                 << p.tall_rows << " tall rows, " << p.short_rows << " short");
          const int rows = p.short_row0() + p.short_rows * 2 * short_m;  // rows of C the plan's tiles span
          REQUIRE(rows >= m);
          REQUIRE(rows - m < 2 * (p.short_rows > 0 ? short_m : tall_m));  // only the last row over the edge
          std::vector<int> hits(std::size_t(rows) * p.tile_cols, 0);
          for (int c = 0; c < clusters; ++c)
            for (int t = c; t < p.count(); t += clusters)
              for (int rank = 0; rank < 2; ++rank) {
                const tc::PlannedTile tile = tc::planned_tile(p, 8, rank, t);
                REQUIRE(tile.height == (t < p.tall_count() ? tall_m : short_m));
                REQUIRE(tile.col % 256 == 0);
                for (int r = tile.row; r < tile.row + tile.height; ++r)
                  ++hits[std::size_t(r) * p.tile_cols + tile.col / 256];
              }
          for (int h : hits) REQUIRE(h == 1);
        }
}

TEST_CASE("two tile heights: the plan balances the clusters first, then takes the most tall rows", "[tile_order]") {
  // An H200's 64 clusters of two 192 x 256 (tall) or 128 x 256 (short) tiles, square C.
  auto plan = [](int s) { return tc::plan_tile_heights(s, s, 192, 128, 256, 2, 64); };
  // 4096: 8 tall rows (3072 of C) and 4 short (1024): 128 tall and 64 short cluster tiles, each cluster two of one
  // and one of the other, as busy as with short tiles alone (4 each), whose rows cost more.
  const tc::HeightPlan p4096 = plan(4096);
  CHECK(p4096.tall_rows == 8);
  CHECK(p4096.short_rows == 4);
  CHECK(p4096.tile_cols == 16);
  CHECK(tc::busiest_cluster_rows(p4096, 64) == 2 * 384 + 256);
  CHECK(tc::busiest_cluster_rows(tc::uniform_height_plan(4096, 4096, 128, 256, 2), 64) == 4 * 256);
  // 4096 in tall rows alone: 11 rows, the last a third full, and 176 tiles on 64 clusters: some take three.
  tc::HeightPlan tall_only = p4096;
  tall_only.tall_rows = 11;
  tall_only.short_rows = 0;
  CHECK(tc::busiest_cluster_rows(tall_only, 64) == 3 * 384);
  // 6144 and 12288: tall rows alone divide M and balance; 8192: 20 tall rows and 2 short.
  CHECK((plan(6144).tall_rows == 16 && plan(6144).short_rows == 0));
  CHECK((plan(12288).tall_rows == 32 && plan(12288).short_rows == 0));
  CHECK((plan(8192).tall_rows == 20 && plan(8192).short_rows == 2));
  // Fewer tiles than clusters: short tiles spread wider than tall ones.
  CHECK((plan(384).tall_rows == 0 && plan(384).short_rows == 2));
  // The order: the tall region first, grouped, then the short one from row short_row0().
  CHECK(tc::planned_tile(p4096, 8, 0, 0) == tc::PlannedTile{0, 0, 192});
  CHECK(tc::planned_tile(p4096, 8, 1, 1) == tc::PlannedTile{384 + 192, 0, 192});
  CHECK(tc::planned_tile(p4096, 8, 0, 8) == tc::PlannedTile{0, 256, 192});
  CHECK(tc::planned_tile(p4096, 8, 1, 128) == tc::PlannedTile{3072 + 128, 0, 128});
  CHECK(tc::planned_tile(p4096, 8, 0, 191) == tc::PlannedTile{3072 + 3 * 256, 15 * 256, 128});
}

TEST_CASE("one tile height: the uniform plan is grouped order over the cluster tiles", "[tile_order]") {
  const tc::HeightPlan p = tc::uniform_height_plan(4095, 4097, 128, 256, 2);
  CHECK(p.tall_rows == 16);  // 32 M tiles of 128 rows, in clusters of 2
  CHECK(p.short_rows == 0);
  CHECK(p.tile_cols == 17);
  const tc::TileGrid g{16, 17};
  for (int t = 0; t < p.count(); ++t) {
    const tc::Coord c = tc::grouped_tile(g, 8, t);
    CHECK(tc::planned_tile(p, 8, 1, t) == tc::PlannedTile{(2 * c.row + 1) * 128, c.col * 256, 128});
  }
}

TEST_CASE("waves: work units on workers take ceil(units / workers) waves, and the last one idles the rest",
          "[tile_order][waves]") {
  constexpr tc::Waves full = tc::waves_of(128, 128);
  static_assert(full.waves == 1 && full.last_wave_busy == 128 && full.last_wave_idle == 0, "a whole wave");
  const tc::Waves one_more = tc::waves_of(129, 128);
  CHECK(one_more.waves == 2);
  CHECK(one_more.last_wave_busy == 1);
  CHECK(one_more.last_wave_idle == 127);
  CHECK(one_more.efficiency() == Approx(129.0 / 256));
  const tc::Waves few = tc::waves_of(11, 64);  // one token through Llama-3-8B's O: a sixth of the clusters busy
  CHECK(few.waves == 1);
  CHECK(few.last_wave_idle == 53);
  const tc::Waves none = tc::waves_of(0, 64);
  CHECK(none.waves == 0);
  CHECK(none.last_wave_busy == 0);
  CHECK(none.last_wave_idle == 0);
  CHECK(none.efficiency() == 1.0);
  for (int units = 1; units < 400; ++units) {
    const tc::Waves w = tc::waves_of(units, 132);
    CHECK((w.waves - 1) * 132 + w.last_wave_busy == units);
    CHECK(w.last_wave_busy >= 1);
    CHECK(w.last_wave_busy + w.last_wave_idle == 132);
  }
}
