// Chapter 10's exercise solutions: each exercise's function is the tutorial's own code, built in place of the stubs
// with -DTC_EXERCISES=SOLUTIONS (README, "Workshop mode").
#pragma once

#include "step3_split_k.cuh"

#include "tc/layouts/waves.hpp"

namespace ex10_1 {
struct Waves {
  int waves = 0;
  int last_wave_busy = 0;
  int last_wave_idle = 0;
};
// tc::waves_of (tc/layouts/waves.hpp).
inline Waves waves(int units, int workers) {
  const tc::Waves w = tc::waves_of(units, workers);
  return {w.waves, w.last_wave_busy, w.last_wave_idle};
}
}  // namespace ex10_1

namespace ex10_2 {
// split_k_choice (step3_split_k.cuh).
inline int splits(int m, int n, int k, int sms) { return split_k_choice(m, n, k, sms).splits; }
}  // namespace ex10_2
