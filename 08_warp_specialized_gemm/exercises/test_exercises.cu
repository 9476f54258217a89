// Chapter 08's graded exercises (README, "Workshop mode"), host-checked with the tutorial's own tools: the cluster
// roles by covering B once and by running the ring across a cluster (tc::simulate_cluster_ring) with the learner's
// arrival count; the staging offset against TMA's 128-byte swizzle and the bank-conflict count of the epilogue's
// stores (tc/layouts/smem_banks.hpp). CUDA source because the other chapters' exercise targets are; nothing here runs
// on a GPU.
#if TC_EXERCISE_SOLUTIONS
#include "exercises/solutions.hpp"
#else
#include "exercises/ex1_cluster_release.hpp"
#include "exercises/ex2_staging_offset.hpp"
#endif

#include "tc/layouts/epilogue.hpp"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/smem_banks.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/exercise.hpp"

#include <set>
#include <vector>

TEST_CASE("exercise 08.1: who loads which part of B, and who releases a stage", "[exercise]") {
  tc::exercise::grade([] {
    for (int size : {1, 2, 4}) {
      std::vector<int> rows(256, 0);
      for (int rank = 0; rank < size; ++rank)
        for (int r = 0; r < 256 / size; ++r) {
          const int row = ex08_1::b_part_first_row(rank, 256, size) + r;
          if (row >= 0 && row < 256) ++rows[row];
        }
      for (int r = 0; r < 256; ++r) {
        INFO("cluster of " << size << ": row " << r << " of B is loaded " << rows[r] << " times (want once)");
        REQUIRE(rows[r] == 1);
      }
      INFO("cluster of " << size << ": mask " << ex08_1::multicast_mask(size) << " (bit r: block r receives)");
      REQUIRE(ex08_1::multicast_mask(size) == (1u << size) - 1u);
      for (unsigned seed = 0; seed < 20; ++seed) {
        INFO("cluster of " << size << ", 2 consumers, order " << seed << ": empty_arrivals "
                           << ex08_1::empty_arrivals(2, size)
                           << ": a stage refilled while a block still reads it, or a wait that never ends");
        REQUIRE(tc::simulate_cluster_ring(3, 2, size, 23, seed, ex08_1::empty_arrivals(2, size), true));
      }
    }
  });
}

TEST_CASE("exercise 08.2: the byte offset of an fp32 result in the staging chunk", "[exercise]") {
  tc::exercise::grade([] {
    std::set<std::uint32_t> seen;
    for (int row = 0; row < 64; ++row)
      for (int col = 0; col < 32; ++col) {
        const std::uint32_t got = ex08_2::staging_offset(row, col);
        // What TMA reads back from a SWIZZLE_128B box: box row / 32, line col, byte 4 (row % 32) of the line.
        const std::uint32_t logical = std::uint32_t(col) * 128u + std::uint32_t(row % 32) * 4u;
        const std::uint32_t want = std::uint32_t(row / 32) * 4096u + tc::swizzle_address(tc::Swizzle::B128, logical);
        INFO("row " << row << ", col " << col << ": offset " << got << " (want " << want << ")");
        REQUIRE(got == want);
        seen.insert(got);
      }
    REQUIRE(seen.size() == 64u * 32u);
    // And so the warps' stores are conflict-free: register i of warp w, as the epilogue stores it.
    for (int w = 0; w < 4; ++w)
      for (int i = 0; i < 16; ++i) {
        std::vector<tc::SmemAccess> accesses;
        for (int lane = 0; lane < 32; ++lane) {
          const tc::Coord c = tc::wgmma_m64nNk16_d_coord(w, lane, i);
          accesses.push_back({lane, ex08_2::staging_offset(c.row, c.col), 4});
        }
        INFO("warp " << w << ", register " << i << ": " << tc::phase_cost(accesses).conflicts() << " extra wavefronts");
        REQUIRE(tc::phase_cost(accesses).conflicts() == 0);
      }
  });
}
