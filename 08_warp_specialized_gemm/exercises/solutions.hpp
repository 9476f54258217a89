// Chapter 08's exercise solutions: each exercise's function is the tutorial's own code, built in place of the stubs
// with -DTC_EXERCISES=SOLUTIONS (README, "Workshop mode").
#pragma once

#include <cstdint>

#include "tc/layouts/cluster.hpp"
#include "tc/layouts/epilogue.hpp"

namespace ex08_1 {
// What step 3's producer and consumers use (tc/layouts/cluster.hpp).
inline int b_part_first_row(int rank, int block_n, int size) {
  return tc::cluster_b_part_first_row(rank, block_n, size);
}
inline std::uint16_t multicast_mask(int size) { return tc::cluster_multicast_mask(size); }
inline int empty_arrivals(int consumers, int size) { return tc::cluster_empty_arrivals(consumers, size); }
}  // namespace ex08_1

namespace ex08_2 {
// What step 4's fp32 epilogue uses (tc/layouts/epilogue.hpp).
inline std::uint32_t staging_offset(int row, int col) { return tc::epilogue_offset<4>(row, col); }
}  // namespace ex08_2
