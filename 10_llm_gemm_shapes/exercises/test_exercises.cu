// Chapter 10's graded exercises (README, "Workshop mode"), host-checked: the waves of a strided walk against a
// simulation of the walk itself; step 3's splits against the rules they keep (one block an SM, 8 slices a split, at
// most 8) and against being the most that keep them. CUDA source because the solutions include the chapter's kernel
// header; nothing here runs on a GPU.
#if TC_EXERCISE_SOLUTIONS
#include "exercises/solutions.hpp"
#else
#include "exercises/ex1_waves.hpp"
#include "exercises/ex2_splits.hpp"
#endif

#include "tc_test/catch.hpp"
#include "tc_test/exercise.hpp"

#include <vector>

TEST_CASE("exercise 10.1: the waves of a strided walk, and the workers its last wave leaves idle", "[exercise]") {
  tc::exercise::grade([] {
    for (int workers : {1, 2, 7, 64, 132}) {
      for (int units : {0, 1, 5, 63, 64, 65, 128, 129, 264, 4800}) {
        // The walk itself: worker w takes pieces w, w + workers, ...; count each worker's turns.
        std::vector<int> turns(workers, 0);
        for (int piece = 0; piece < units; ++piece) ++turns[piece % workers];
        int waves = 0;
        for (int t : turns) waves = t > waves ? t : waves;
        int busy_last = 0;
        for (int t : turns) busy_last += (waves > 0 && t == waves) ? 1 : 0;
        const ex10_1::Waves w = ex10_1::waves(units, workers);
        INFO(units << " pieces on " << workers << " workers: " << w.waves << " waves, " << w.last_wave_busy
                   << " busy and " << w.last_wave_idle << " idle in the last");
        REQUIRE(w.waves == waves);
        REQUIRE(w.last_wave_busy == busy_last);
        REQUIRE(w.last_wave_idle == (units == 0 ? 0 : workers - busy_last));
      }
    }
  });
}

TEST_CASE("exercise 10.2: the splits of K step 3 runs", "[exercise]") {
  tc::exercise::grade([] {
    auto block_n = [](int n) { return n <= 8 ? 8 : n <= 16 ? 16 : n <= 32 ? 32 : n <= 64 ? 64 : n <= 128 ? 128 : 256; };
    auto keeps_rules = [&](int m, int n, int k, int sms, int s) {
      const int tiles = (m + 63) / 64 * ((n + block_n(n) - 1) / block_n(n)), slices = (k + 63) / 64;
      return s == 1 || (tiles * s <= sms && slices / s >= 8 && s <= 8);
    };
    for (int sms : {132, 114, 16}) {
      for (int m : {64, 1000, 4096, 6144, 8192, 28672}) {
        for (int n : {1, 16, 100, 256}) {
          for (int k : {64, 511, 512, 1024, 4096, 14336, 1 << 20}) {
            const int s = ex10_2::splits(m, n, k, sms);
            INFO(m << " weights, " << n << " tokens, K = " << k << " on " << sms << " SMs: " << s << " splits");
            REQUIRE((s == 1 || s == 2 || s == 4 || s == 8));
            REQUIRE(keeps_rules(m, n, k, sms, s));
            REQUIRE((s == 8 || !keeps_rules(m, n, k, sms, 2 * s)));  // the most the rules allow
          }
        }
      }
    }
    REQUIRE(ex10_2::splits(4096, 1, 4096, 132) == 2);  // Llama-3-8B's O at one token, on an H200
  });
}
