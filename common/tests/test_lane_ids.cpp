// Tests of the lane ids every fragment layout is written with (tc/layouts/lane_ids.hpp).
#include "tc/layouts/lane_ids.hpp"
#include "tc_test/catch.hpp"

TEST_CASE("groupID and threadID_in_group split the 32 lanes into 8 quads of 4", "[layout]") {
  STATIC_REQUIRE(tc::mma_group_id(0) == 0);
  STATIC_REQUIRE(tc::mma_group_id(31) == 7);
  STATIC_REQUIRE(tc::mma_thread_in_group(31) == 3);
  for (int lane = 0; lane < 32; ++lane) CHECK(4 * tc::mma_group_id(lane) + tc::mma_thread_in_group(lane) == lane);
}

TEST_CASE("Coord compares by row and column, and its default is no element", "[layout]") {
  STATIC_REQUIRE(tc::Coord{} == tc::Coord{-1, -1});
  STATIC_REQUIRE(tc::Coord{1, 2} != tc::Coord{2, 1});
  STATIC_REQUIRE(tc::kWarpSize == 32);
}
