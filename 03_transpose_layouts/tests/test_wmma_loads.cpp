// Host tests of chapter 03's WMMA global-load model (wmma_loads.hpp): it covers the tile once at the stated sector
// cost. test_transpose_layouts.cu checks its first instruction against the address trace measured on the H200.
#include "wmma_loads.hpp"
#include "tc_test/catch.hpp"

TEST_CASE("the load model loads every element of the tile exactly once, at the sector cost ncu measures", "[loads]") {
  for (int bytes : {2, 1})
    for (bool along : {true, false}) {
      INFO((bytes == 2 ? "f16" : "s8") << (along ? ", K along the lines" : ", K across the lines"));
      const LoadPlan plan = wmma_load_plan(bytes, along);
      const tc::LaneMap map = load_map(plan, bytes);
      CHECK(map.all_slots_in_tile());
      CHECK(map.min_copies() == 1);
      CHECK(map.max_copies() == 1);
      for (const WarpRequest& r : plan.requests) {
        const RequestCost cost = request_cost(r, 1024, bytes);
        // 32-bit loads: 8 lines x 16 bytes = 8 sectors, half of each used; s8 bytes: 4 lines x 8 bytes = 4 sectors.
        CHECK(cost.sectors == (bytes == 1 && !along ? 4 : 8));
        CHECK(cost.bytes == (bytes == 1 && !along ? 32 : 128));
      }
    }
  CHECK(wmma_load_plan(2, true).requests.size() == 4);
  CHECK(wmma_load_plan(2, false).requests.size() == 4);  // the same loads...
  CHECK(wmma_load_plan(2, false).movm == 4);               // ...plus one MOVM per 8 x 8 block
  CHECK(wmma_load_plan(1, true).requests.size() == 2);
  CHECK(wmma_load_plan(1, false).requests.size() == 8);
  CHECK(wmma_load_plan(1, false).movm == 0);  // no 8-bit MOVM: bytes instead
}
