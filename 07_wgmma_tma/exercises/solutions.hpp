// Chapter 07's exercise solutions: each exercise's function is the chapter's own code, built in place of the stubs
// with -DTC_EXERCISES=SOLUTIONS (README, "Workshop mode").
#pragma once

#include "wgmma_tile.cuh"

#include "tc/layouts/mbarrier_ring.hpp"

#include <cstdint>

namespace ex07_1 {
// What every step's mma_slice gives its wgmmas (wgmma_tile.cuh).
inline std::uint64_t k_step_descriptor(std::uint32_t slice, int kk) { return tc::slice_descriptor(slice, kk); }
}  // namespace ex07_1

namespace ex07_2 {
// What step 3's kernel waits for (tc/layouts/mbarrier_ring.hpp).
inline int full_parity(int k, int stages) { return tc::ring_full_parity(k, stages); }
inline int empty_wait_parity(int k, int stages) { return tc::ring_empty_wait_parity(k, stages); }
}  // namespace ex07_2
