// Exercise 10.1 -- waves. Hints: docs/10_llm_gemm_shapes.md, "Exercise 10.1". Check it with:
// ctest --preset workshop -R "exercise 10.1"
//
// A persistent grid of `workers` takes `units` equal pieces of work in turns: worker w takes w, w + workers, and so
// on. How many waves is that, how many pieces does the last wave hold, and how many workers sit idle while it runs?
#pragma once

#include "tc_test/exercise.hpp"

namespace ex10_1 {

struct Waves {
  int waves = 0;           // turns the busiest worker takes
  int last_wave_busy = 0;  // pieces in the last wave (all the workers where units is a multiple of workers)
  int last_wave_idle = 0;  // workers with nothing to do in the last wave (0 where there is no work at all)
};

// Preconditions: units >= 0, workers >= 1.
inline Waves waves(int units, int workers) {
  // TODO(exercise 10.1): a ceiling division, and what the last wave leaves over.
  (void)units, (void)workers;
  tc::exercise::todo("10.1", "10_llm_gemm_shapes/exercises/ex1_waves.hpp", "10_llm_gemm_shapes");
}

}  // namespace ex10_1
