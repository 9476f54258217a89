// Exercise 08.1 -- who loads what in a cluster, and who releases a stage. Hints: docs/08_warp_specialized_gemm.md,
// "Exercise 08.1". Check it with: ctest --preset workshop -R "exercise 08.1"
//
// A cluster of `size` blocks stacked along M shares one B tile of block_n rows: block `rank` loads rows
// [first_row, first_row + block_n / size) of it and multicasts them to every block of the cluster. Each block's stage
// is then written by every block's producer, so each block's "empty" barrier must count the release of every consumer
// warpgroup that reads any copy of that stage.
#pragma once

#include "tc_test/exercise.hpp"

#include <cstdint>

namespace ex08_1 {

// The first row of the part of B that block `rank` loads. Preconditions: 0 <= rank < size, size divides block_n.
inline int b_part_first_row(int rank, int block_n, int size) {
  // TODO(exercise 08.1): the parts are equal and in rank order.
  (void)rank, (void)block_n, (void)size;
  tc::exercise::todo("08.1", "08_warp_specialized_gemm/exercises/ex1_cluster_release.hpp", "08_warp_specialized_gemm");
}

// The ctaMask of the multicast: bit r set for every block r that receives the part.
inline std::uint16_t multicast_mask(int size) {
  // TODO(exercise 08.1): every block of the cluster needs every part.
  (void)size;
  tc::exercise::todo("08.1", "08_warp_specialized_gemm/exercises/ex1_cluster_release.hpp", "08_warp_specialized_gemm");
}

// The arrivals that complete a phase of one block's "empty" barrier, with `consumers` consumer warpgroups per block
// (each consumer arrives on the "empty" barrier of every block of the cluster).
inline int empty_arrivals(int consumers, int size) {
  // TODO(exercise 08.1): count the arrivals one stage's release brings to one block.
  (void)consumers, (void)size;
  tc::exercise::todo("08.1", "08_warp_specialized_gemm/exercises/ex1_cluster_release.hpp", "08_warp_specialized_gemm");
}

}  // namespace ex08_1
