// Exercise 07.2 -- the parities of an mbarrier ring. Hints: docs/07_wgmma_tma.md, "Exercise 07.2". Check it with:
// ctest --preset workshop -R "exercise 07.2"
//
// Step 3 keeps `stages` slices in flight. Slice k lives in stage k % stages. Each stage has a "full" barrier (TMA's
// bytes complete a phase) and an "empty" one (every consumer's arrival completes a phase). A thread waits with
// mbarrier.try_wait.parity(p), which succeeds once the phase of parity p has completed; a fresh barrier is in phase 0.
// Write which parity the consumers of slice k wait for on "full", and which the producer waits for on "empty" before
// it loads slice k.
#pragma once

#include "tc_test/exercise.hpp"

namespace ex07_2 {

// Returns 0 or 1. Preconditions: k >= 0, stages >= 1. Source: PTX ISA, "mbarrier" (phase completion,
// mbarrier.try_wait.parity).
inline int full_parity(int k, int stages) {
  // TODO(exercise 07.2): which use of its stage is slice k, and so which phase of "full" does it complete?
  (void)k, (void)stages;
  tc::exercise::todo("07.2", "07_wgmma_tma/exercises/ex2_ring_parity.hpp", "07_wgmma_tma");
}

inline int empty_wait_parity(int k, int stages) {
  // TODO(exercise 07.2): the producer of the first round must pass at once; later rounds only once slice
  // k - stages has been released.
  (void)k, (void)stages;
  tc::exercise::todo("07.2", "07_wgmma_tma/exercises/ex2_ring_parity.hpp", "07_wgmma_tma");
}

}  // namespace ex07_2
