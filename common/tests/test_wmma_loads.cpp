// Tests of the lane ids and the WMMA global-load model (tc/layouts/lane_ids.hpp, tc/layouts/wmma_loads.hpp). Chapter
// 03's tests check the model's first instruction against the address trace measured on the H200.
#include "tc/layouts/lane_ids.hpp"
#include "tc/layouts/wmma_loads.hpp"
#include "tc_test/catch.hpp"

TEST_CASE("groupID and threadID_in_group split the 32 lanes into 8 quads of 4", "[layout]") {
  STATIC_REQUIRE(tc::mma_group_id(0) == 0);
  STATIC_REQUIRE(tc::mma_group_id(31) == 7);
  STATIC_REQUIRE(tc::mma_thread_in_group(31) == 3);
  for (int lane = 0; lane < 32; ++lane) CHECK(4 * tc::mma_group_id(lane) + tc::mma_thread_in_group(lane) == lane);
}

TEST_CASE("the load model loads every element of the tile exactly once, at the sector cost ncu measures", "[loads]") {
  for (int bytes : {2, 1})
    for (bool along : {true, false}) {
      INFO((bytes == 2 ? "f16" : "s8") << (along ? ", K along the lines" : ", K across the lines"));
      const tc::LoadPlan plan = tc::wmma_load_plan(bytes, along);
      const tc::LaneMap map = tc::load_map(plan, bytes);
      CHECK(map.all_slots_in_tile());
      CHECK(map.min_copies() == 1);
      CHECK(map.max_copies() == 1);
      for (const tc::WarpRequest& r : plan.requests) {
        const tc::RequestCost cost = tc::request_cost(r, 1024, bytes);
        // 32-bit loads: 8 lines x 16 bytes = 8 sectors, half of each used; s8 bytes: 4 lines x 8 bytes = 4 sectors.
        CHECK(cost.sectors == (bytes == 1 && !along ? 4 : 8));
        CHECK(cost.bytes == (bytes == 1 && !along ? 32 : 128));
      }
    }
  CHECK(tc::wmma_load_plan(2, true).requests.size() == 4);
  CHECK(tc::wmma_load_plan(2, false).requests.size() == 4);  // the same loads...
  CHECK(tc::wmma_load_plan(2, false).movm == 4);               // ...plus one MOVM per 8 x 8 block
  CHECK(tc::wmma_load_plan(1, true).requests.size() == 2);
  CHECK(tc::wmma_load_plan(1, false).requests.size() == 8);
  CHECK(tc::wmma_load_plan(1, false).movm == 0);  // no 8-bit MOVM: bytes instead
}
