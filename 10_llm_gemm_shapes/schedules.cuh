// Chapter 10 -- the schedule table's kernels: the one dispatch from a Schedule (schedule.hpp) to its kernel's
// launcher, the waves each schedule makes at a shape (what the suite's tables print and step 5's model counts), and
// Scheduled<Step>, the launcher type every step becomes: its choice at each shape, launched.
//
// Why one dispatch: a step is its choice. Step 2 chooses chapter 08's cluster tiles past 256 tokens, step 4 chooses
// step 3's schedule below 257 and stream-K above, step 5 whichever the model estimates fastest; none calls another
// step's launcher, so what a step runs is read in its choose() alone, and a schedule is launched and counted the same
// way whichever step chose it.
// Shapes and layouts: as every step (suite.hpp, SuiteStep): m weights (the kernel's M, A row-major), n tokens (the
// kernel's N, B column-major K x n), C column-major.
#pragma once

#include "pair_tile.cuh"
#include "schedule.hpp"
#include "small_m_tile.cuh"
#include "step1_chapter08.cuh"
#include "step2_small_m.cuh"
#include "step3_split_k.cuh"
#include "step4_stream_k.cuh"
#include "suite.hpp"
#include "suite_step.hpp"
#include "wide_tile.cuh"

#include "tc/device.hpp"  // tc::current_device_sms
#include "tc/layouts/tile_order.hpp"
#include "tc/layouts/waves.hpp"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

// [doc:launch_schedule]
// Enqueues schedule e: C = alpha A B + beta C, operands as SuiteStep takes them. Preconditions and errors: those of
// the schedule's launcher (launch_chapter08, launch_stream_k, launch_narrow, launch_wide, launch_pair); the wide and
// pair tiles need k >= 1 (every step that chooses them sends k = 0 to chapter 08's, which writes beta C).
inline void launch_schedule(const Schedule& e, int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda,
                            const __nv_bfloat16* B, int ldb, float beta, __nv_bfloat16* C, int ldc,
                            cudaStream_t stream) {
  switch (e.kind) {
    case ScheduleKind::Chapter08: return launch_chapter08(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    case ScheduleKind::StreamK: return launch_stream_k(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    case ScheduleKind::Narrow:
      return launch_narrow(e.block_n, e.splits, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    case ScheduleKind::Wide: return launch_wide(e.width, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    case ScheduleKind::Pair: return launch_pair(e.block_n, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  }
}
// [/doc:launch_schedule]

// [doc:schedule_waves]
// A schedule's work units at m weights and n tokens on `sms` SMs, and their waves (tc::waves_of): chapter 08's
// cluster tiles of two heights (tc::tile_plan) and stream-K's tall ones (tc::uniform_plan) on the `clusters`
// persistent 2-block clusters (step1_clusters; the other kinds ignore it); the narrow tiles (split or not) on the
// SMs' block slots, small_m_blocks_per_sm blocks an SM, spread one an SM before any SM takes a second, so a wave of b
// blocks busies min(b, sms) SMs; the wide and pair tiles one an SM. Host, pure: step 5's model counts every schedule
// it weighs through it, at every shape it estimates.
struct ScheduleWaves {
  tc::Waves waves;
  int blocks_per_sm = 1;  // the narrow tile's blocks an SM (1 or 2); 1 for the other kinds
  int busy_sms = 0;       // the SMs the first wave keeps busy, which pull the operands from DRAM
  int idle_sms_last_wave = 0;
};

inline ScheduleWaves schedule_waves(const Schedule& e, int m, int n, int sms, int clusters) {
  using Tile = Step1Chapter08::Tile;
  ScheduleWaves w;
  auto on_sms = [&](int blocks, int per_sm) {  // blocks on the SMs' slots, not on clusters
    w.blocks_per_sm = per_sm;
    w.waves = tc::waves_of(blocks, sms * per_sm);
    w.busy_sms = std::min(w.waves.units, sms);
    w.idle_sms_last_wave = sms - std::min(w.waves.last_wave_busy, sms);
  };
  switch (e.kind) {
    case ScheduleKind::Chapter08: {
      const Step1Waves one = step1_waves(m, n, clusters, sms);
      w.waves = one.waves;
      w.busy_sms = Tile::ClusterM * std::min(w.waves.units, clusters);
      w.idle_sms_last_wave = one.idle_sms_last_wave;
      break;
    }
    case ScheduleKind::StreamK:  // one wave of equal shares: the only idle SMs are those the grid leaves out
      w.waves = tc::waves_of(tc::uniform_plan<Tile>(m, n).count(), clusters);
      w.busy_sms = Tile::ClusterM * clusters;
      w.idle_sms_last_wave = sms - w.busy_sms;
      break;
    case ScheduleKind::Narrow: {
      const int blocks = small_m_tiles(m, n, e.block_n) * e.splits;
      on_sms(blocks, small_m_blocks_per_sm(e.block_n, blocks, sms));  // as with_small_m_tile launches them
      break;
    }
    case ScheduleKind::Wide: on_sms(tc::ceil_div(m, e.width) * tc::ceil_div(n, 64 * wide_consumers(n)), 1); break;
    case ScheduleKind::Pair: on_sms(small_m_tiles(m, n, e.block_n, 128), 1); break;
  }
  return w;
}
// [/doc:schedule_waves]

// The schedule in words at n tokens, as the suite's tables print it: "64 x 16 tiles, 2 a SM, split-K 2".
inline std::string describe(const Schedule& e, const ScheduleWaves& w, int n) {
  switch (e.kind) {
    case ScheduleKind::Chapter08: return "ch08 step 5: 384/256 x 256 cluster tiles";
    case ScheduleKind::StreamK: return "stream-K over 384 x 256 cluster tiles";
    case ScheduleKind::Narrow:
      return "64 x " + std::to_string(e.block_n) + " tiles, " + std::to_string(w.blocks_per_sm) + " a SM" +
             (e.splits > 1 ? ", split-K " + std::to_string(e.splits) : std::string());
    case ScheduleKind::Wide:
      return "wide " + std::to_string(64 * wide_consumers(n)) + " x " + std::to_string(e.width) + " tiles";
    case ScheduleKind::Pair: return "128 x " + std::to_string(e.block_n) + " pair tiles";
  }
  return "";
}

// [doc:scheduled]
// A step as the project's launchers take it (tc/padded_gemm.hpp; SuiteStep's operands and contract): at each shape,
// Step::choose(m, n, k, sms) names a schedule, and launch_schedule runs it. Step: a struct with a `name` and that
// choose (steps 1 to 5).
template <typename Step>
struct Scheduled : SuiteStep {
  static constexpr const char* name = Step::name;

  // Enqueues Step's schedule for the shape on this GPU. Preconditions: valid arguments that keep kContract, m, n > 0
  // (checked once, by tc::launch_gemm_any_size); an SM 9.0 GPU. Errors: those of Step::choose and launch_schedule.
  static void launch(int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B,
                     int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
    launch_schedule(Step::choose(m, n, k, tc::current_device_sms()), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                    stream);
  }
  // What Step runs at s on `sms` SMs, and its waves. Host, except where it asks the GPU: step 1's clusters, where the
  // schedule is chapter 08's or stream-K's (step1_clusters), and what Step::choose asks.
  static StepPlan plan(const SuiteShape& s, int sms) {
    const Schedule e = Step::choose(s.n(), s.m, s.k(), sms);
    const bool clustered = e.kind == ScheduleKind::Chapter08 || e.kind == ScheduleKind::StreamK;
    const ScheduleWaves w = schedule_waves(e, s.n(), s.m, sms, clustered ? step1_clusters() : 0);
    return {describe(e, w, s.m), w.waves, w.idle_sms_last_wave};
  }
};
// [/doc:scheduled]
