#include "tc/lane_map.hpp"
#include "tc/layouts/probe_encoding.hpp"
#include "tc/types.hpp"
#include "tc_test/catch.hpp"

#include <cmath>

namespace {
// A made-up 8 x 16 map in which lane l holds row l / 4, columns 4 * (l % 4) .. + 3: each element exactly once.
tc::LaneMap once_map() {
  tc::LaneMap map(8, 16, 4);
  for (int lane = 0; lane < 32; ++lane)
    for (int slot = 0; slot < 4; ++slot) map.at(lane, slot) = {lane / 4, 4 * (lane % 4) + slot};
  return map;
}
}  // namespace

TEST_CASE("LaneMap counts copies: a bijection holds every element once", "[lane_map]") {
  const tc::LaneMap map = once_map();
  CHECK(map.all_slots_in_tile());
  CHECK(map.min_copies() == 1);
  CHECK(map.max_copies() == 1);
  CHECK(map.holders(1, 5) == std::vector<int>{5});
  CHECK(map.max_holder_lanes() == 1);
}

TEST_CASE("LaneMap counts copies: a duplicated map holds each element twice", "[lane_map]") {
  // 8 x 8 tile, 4 slots: lane l and lane l ^ 16 hold the same elements.
  tc::LaneMap map(8, 8, 4);
  for (int lane = 0; lane < 32; ++lane)
    for (int slot = 0; slot < 4; ++slot) {
      const int e = (lane % 16) * 4 + slot;
      map.at(lane, slot) = {e / 8, e % 8};
    }
  CHECK(map.min_copies() == 2);
  CHECK(map.max_copies() == 2);
  CHECK(map.holders(0, 1) == std::vector<int>{0, 16});
  CHECK(map.max_holder_lanes() == 2);  // the two copies sit in different lanes
  CHECK(map.format_grid().find("0/16") != std::string::npos);
}

TEST_CASE("LaneMap tells copies within one lane from copies across lanes", "[lane_map]") {
  // 8 x 8 tile, 4 slots: lane l holds 2 elements, each twice (slots 0,1 repeated in 2,3), as WMMA matrix_a does.
  tc::LaneMap map(8, 8, 4);
  for (int lane = 0; lane < 32; ++lane)
    for (int slot = 0; slot < 4; ++slot) {
      const int e = lane * 2 + slot % 2;
      map.at(lane, slot) = {e / 8, e % 8};
    }
  CHECK(map.min_copies() == 2);
  CHECK(map.max_holder_lanes() == 1);
  CHECK(map.holders(0, 0) == std::vector<int>{0, 0});
  CHECK(map.format_grid().find(" 0/0 ") != std::string::npos);
}

TEST_CASE("LaneMap finds slots outside the tile and elements nobody holds", "[lane_map]") {
  tc::LaneMap map = once_map();
  map.at(31, 3) = {8, 0};  // row 8 is outside an 8-row tile
  CHECK_FALSE(map.all_slots_in_tile());
  CHECK(map.min_copies() == 0);  // (7, 15) lost its only holder
  CHECK(map.format_lane_list().find("x[3]=(?)") != std::string::npos);
  CHECK_THROWS_AS(map.at(32, 0), std::out_of_range);
  CHECK_THROWS_AS(map.at(0, 4), std::out_of_range);
  CHECK_THROWS_AS(tc::LaneMap(0, 4, 1), std::invalid_argument);
}

TEST_CASE("LaneMap prints lanes and grids a reader can follow", "[lane_map]") {
  const tc::LaneMap map = once_map();
  const std::string lanes = map.format_lane_list();
  CHECK(lanes.find("lane  5: x[0]=(1,4) x[1]=(1,5) x[2]=(1,6) x[3]=(1,7)\n") != std::string::npos);
  const std::string grid = map.format_grid();
  CHECK(grid.rfind("row\\col  0  1", 0) == 0);
  CHECK(grid.find("\n      1  4  4  4  4  5  5  5  5") != std::string::npos);
}

TEST_CASE("probe encoding round-trips every (row, col) of a 32 x 64 tile through fp16", "[lane_map]") {
  REQUIRE(tc::probe_encodable(32, 64));
  CHECK_FALSE(tc::probe_encodable(33, 64));
  CHECK_FALSE(tc::probe_encodable(4, 65));
  for (int r = 0; r < 32; ++r) {
    for (int c = 0; c < 64; ++c) {
      const __half h = tc::from_double<__half>(tc::probe_value(r, c));
      REQUIRE(tc::probe_coord(tc::to_double(h)) == tc::Coord{r, c});
    }
  }
  CHECK(tc::probe_coord(-1.0) == tc::Coord{-1, -1});
  CHECK(tc::probe_coord(2.5) == tc::Coord{-1, -1});
  CHECK(tc::probe_coord(4096.0) == tc::Coord{-1, -1});
  CHECK(tc::probe_coord(std::nan("")) == tc::Coord{-1, -1});  // an unwritten (poisoned) slot
}

TEST_CASE("LaneMap::to_svg draws one labelled cell per tile element", "[lane_map]") {
  tc::LaneMap map = once_map();
  map.at(31, 3) = {0, 0};  // (0, 0) now has two holders, (7, 15) none
  const std::string svg = map.to_svg("A & B <test>");
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(svg.find("A &amp; B &lt;test&gt;") != std::string::npos);
  std::size_t cells = 0;
  for (std::size_t at = svg.find("<rect x="); at != std::string::npos; at = svg.find("<rect x=", at + 1)) ++cells;
  CHECK(cells == 8 * 16);
  CHECK(svg.find(">0/31</text>") != std::string::npos);
  CHECK(svg.find(">-</text>") != std::string::npos);
  // A title longer than the grid widens the figure instead of running off its edge: 40 + 60 * 9 + 10 = 590 px.
  const tc::LaneMap narrow(2, 2, 1);
  CHECK(narrow.to_svg(std::string(60, 'x')).find("width=\"590\"") != std::string::npos);
}
