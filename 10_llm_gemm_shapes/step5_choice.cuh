// Chapter 10, step 5 -- the choice: a host model of waves and bytes that picks, for each shape, which of the chapter's
// schedules runs it.
//
// What it adds over step 4: steps 2 to 4 switch schedules at fixed token counts (the narrow tiles up to 256 tokens,
// stream-K past them), and the suite shows the switch points are wrong for some shapes: at 512 tokens a weight of
// 4096 rows makes too few of chapter 08's tiles, and the narrow tiles, two columns of 256 tokens, beat it. It also
// adds two more tiles to choose from, the wide tile (wide_tile.cuh), whose width is itself picked to make about
// one tile an SM, and the pair tile (pair_tile.cuh), the narrow tile with two consumers, whose token tile is
// picked the same way. Step 5 estimates every schedule's time at the shape and runs the fastest estimate:
//   time = launch + max(compute, DRAM)
//   compute = waves x slices a work unit x the time of one slice on one SM (the wgmma's multiplies at the SM's rate,
//             or the slice's bytes at what an SM takes in from L2, whichever is longer, with the blocks that share
//             the SM sharing both), plus the start and end of each wave after the first where the blocks are
//             not persistent (the narrow tiles: the launch covers the first); for chapter 08's tiles of two
//             heights, the rows its busiest cluster computes, a short tile's slice two thirds of a tall one's; and
//             for stream-K its fixup, the owner of the most shared tile writing one partial and reading the other
//             sharers' one after another, each a block's fp32 tile at what an SM takes in from L2
//   DRAM = the operands' bytes (x and W read once, y written once) at the DRAM's bandwidth, or at what the busy SMs
//          can pull, if less: an SM takes in from DRAM at a bounded rate, so a few SMs cannot fill DRAM
// The waves are what steps 1 to 4 print: chapter 08's cluster tiles on the persistent clusters, stream-K's equal
// shares, the narrow tiles on the SMs' block slots, the wide and pair tiles one an SM. Where two estimates tie, as
// where both schedules wait on the DRAM at its full rate, the one with less to compute runs. Eight constants are fit
// to the measured sweep (tools/schedule_sweep.cu) by tools/calibrate.cu; the rest are the GPU's (MachineModel).
// Shapes and layouts: as step 1 (suite.hpp). Host model: pure; the launcher asks the GPU once for its SMs and DRAM.
#pragma once

#include "pair_tile.cuh"
#include "schedule.hpp"
#include "schedules.cuh"
#include "small_m_tile.cuh"
#include "step1_chapter08.cuh"
#include "step2_small_m.cuh"
#include "step3_split_k.cuh"
#include "stream_k_plan.hpp"
#include "wide_tile.cuh"

#include "tc/check.hpp"
#include "tc/device.hpp"  // tc::current_device_sms
#include "tc/layouts/tile_order.hpp"
#include "tc/layouts/waves.hpp"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

// [doc:machine_model]
// What the model knows of a GPU. The first three come from the GPU (current_machine), the wgmma rate from the
// datasheet (docs/external_figures.md, h200-fp16-dense: the H100 SXM's is the same), and the eight marked "fit" are
// what tools/calibrate.cu (10_calibrate) finds from the schedule sweep on an H200 (docs/results/
// 10_schedule_sweep_h200.txt: every schedule timed on all 56 suite shapes): the values whose picks come closest to
// the fastest measured schedule, and of those the ones whose estimates come closest to the measured times. A host
// test holds them to that. The H100 has the same SMs at the same clocks, and less DRAM bandwidth, which the model
// reads from the GPU.
struct MachineModel {
  int sms = 132;                    // SMs
  int clusters = 64;                // chapter 08's persistent 2-block clusters on them (step1_clusters)
  double dram_bytes_per_s = 3.0e12; // what a device-to-device copy reaches (0.9 of the memory's peak)
  double sm_flops_per_s = 7.5e12;   // one SM's dense bf16 wgmma rate: 989 TFLOP/s over 132 SMs
  double launch_s = 11e-6;            // a launch's fixed cost: the launch, the prologue, the ring's first fill (fit)
  double sm_l2_bytes_per_s = 104e9;   // what one SM's TMA takes in from L2 (fit)
  double streamed_slice = 1.445;      // a stream-K slice's cost in whole-tile slices: its clusters read unrelated
                                      // parts of the operands at unrelated K, and share nothing in L2 (fit)
  double split_s = 2.397e-6;          // split-K's extra cost: the cluster's reduction and its wait for the slowest
                                      // split (fit)
  double narrow_wave_s = 10.79e-6;    // each narrow wave after the first: its blocks fill their rings from empty
                                      // and store their tiles, and no block of another wave runs under either (fit)
  double sm_dram_bytes_per_s = 73.44e9;  // what one SM pulls from DRAM, however deep its ring (one block an SM
                                         // with 25 slices in flight pulled no faster than with 12:
                                         // 10_ring_depth_h200.txt); it binds below about 59 busy SMs on an H200
                                         // (4.32 TB/s), 41 on an H100 (fit)
  double wide_l2_bytes_per_s = 80.78e9;  // what one SM's TMA takes in from L2 for a wide tile: less than a narrow
                                         // tile's, as all 132 SMs pull their tokens and weights at once (fit)
  double pair_l2_bytes_per_s = 79.2e9;   // what one SM's TMA takes in from L2 for a pair tile, one an SM too
                                         // (fit)
};
// [/doc:machine_model]

// [doc:choice]
// One schedule (schedule.hpp) and what the model estimates for it.
struct ScheduleEstimate : Schedule {
  tc::Waves waves;
  int busy_sms = 0;  // the SMs its first wave keeps busy, which pull the operands from DRAM
  double compute_s = 0.0, dram_s = 0.0, seconds = 0.0;
};

// The splits of K the model weighs for the narrow tiles.
inline constexpr int kNarrowSplits[] = {1, 2, 4};

// Every schedule's estimate at m weights, n tokens and k (the kernels' M, N and K: suite.hpp), in the sweep's column
// order: chapter 08, stream-K (past 256 tokens, where step 4 runs it), then the narrow tiles BN and BN/2 in 1, 2 and 4
// splits (up to kNarrowMaxTokens tokens, each split keeping kMinSlicesPerSplit slices), then the wide tile (from
// kWideMinTokens to kWideMaxTokens tokens) and the pair tile (from kWideMinTokens to kNarrowMaxTokens): the token
// ranges of the schedule table (schedule.hpp). Preconditions: m, n, k >= 1. Host, pure.
inline std::vector<ScheduleEstimate> estimate_schedules(int m, int n, int k, const MachineModel& g) {
  using Tile = Step1Chapter08::Tile;
  const int slices = tc::ceil_div(k, tc::kSliceK);
  const double bytes = 2.0 * (double(m) * k + double(n) * k + double(m) * n);
  // A slice of chapter 08's tall cluster tile, on one of its two SMs: 192 x 256 x 64 multiply-adds.
  const double tall_slice_s = 2.0 * (Tile::BlockM * Tile::BlockN) * tc::kSliceK / g.sm_flops_per_s;
  std::vector<ScheduleEstimate> out;
  // Weighs schedule s: its waves (schedule_waves), then the compute estimate that `compute` makes from them, then its
  // DRAM time and the total.
  auto weigh = [&](const Schedule& s, const auto& compute) {
    ScheduleEstimate e;
    static_cast<Schedule&>(e) = s;
    const ScheduleWaves w = schedule_waves(s, m, n, g.sms, g.clusters);
    e.waves = w.waves;
    e.busy_sms = w.busy_sms;
    e.compute_s = compute(w);
    e.dram_s = bytes / std::min(g.dram_bytes_per_s, e.busy_sms * g.sm_dram_bytes_per_s);
    e.seconds = g.launch_s + std::max(e.compute_s, e.dram_s);
    out.push_back(e);
  };

  weigh({ScheduleKind::Chapter08}, [&](const ScheduleWaves&) {
    // The busiest cluster's rows of C, in tall tiles' worth: a short tile (256 rows) multiplies 2/3 of a tall one's.
    const tc::HeightPlan plan = tc::tile_plan<Tile>(m, n, g.clusters);
    return double(tc::busiest_cluster_rows(plan, g.clusters)) / (Tile::ClusterM * Tile::BlockM) * slices *
           tall_slice_s;
  });

  if (weighed_at(ScheduleKind::StreamK, n))
    weigh({ScheduleKind::StreamK}, [&](const ScheduleWaves&) {  // whole waves, then the streamed share
      const stream_k::Plan p{tc::uniform_plan<Tile>(m, n).count(), slices, g.clusters};
      // The fixup (stream_k_plan.hpp): a tile's owner reads the partial of every later cluster that ran part of it,
      // one after another, after writing its own for the tile before. With fewer tiles than clusters many clusters
      // share a tile (DSV3's kv_a at 505 tokens: 4 tiles, 16 clusters each), and the most shared sets the end.
      int sharers = 0;
      for (int t = 0; t < p.sk_tiles(); ++t) sharers = std::max(sharers, p.last(t) - p.owner(t));
      const double partial_s = 4.0 * Tile::BlockM * Tile::BlockN / g.sm_l2_bytes_per_s;  // a block's fp32 tile
      return (double(p.dp_waves()) * slices + g.streamed_slice * p.sk_total() / g.clusters) * tall_slice_s +
             (sharers > 0 ? sharers + 1 : 0) * partial_s;
    });

  const int full = Step2SmallM::block_n(n);
  if (weighed_at(ScheduleKind::Narrow, n))
    for (int block_n : {full, full / 2}) {
      if (!Step2SmallM::is_token_tile(block_n)) continue;  // half of 8, 96, 160 or 224: no such kernel
      for (int splits : kNarrowSplits) {
        if (slices / splits < kMinSlicesPerSplit) continue;
        Schedule narrow{ScheduleKind::Narrow};
        narrow.block_n = block_n, narrow.splits = splits, narrow.half_n = block_n != full;
        weigh(narrow, [&](const ScheduleWaves& w) {
          // The blocks that share an SM in a full wave share its tensor cores and its intake from L2.
          const int per_sm = w.blocks_per_sm;
          const int sharing = std::min(per_sm, tc::ceil_div(std::min(w.waves.units, g.sms * per_sm), g.sms));
          const double slice_s = sharing * std::max(2.0 * 64 * block_n * tc::kSliceK / g.sm_flops_per_s,
                                                    double(64 + block_n) * tc::kSliceBytes / g.sm_l2_bytes_per_s);
          return w.waves.waves * tc::ceil_div(slices, splits) * slice_s + (w.waves.waves - 1) * g.narrow_wave_s +
                 (splits > 1 ? g.split_s : 0.0);
        });
      }
    }

  if (weighed_at(ScheduleKind::Wide, n)) {  // one block an SM; each slice is its tokens and its weights, from L2
    Schedule wide{ScheduleKind::Wide};
    wide.width = wide_width(m, n, g.sms);
    const int tokens = 64 * wide_consumers(n);
    weigh(wide, [&](const ScheduleWaves& w) {
      const double slice_s = std::max(2.0 * tokens * wide.width * tc::kSliceK / g.sm_flops_per_s,
                                      double(tokens + wide.width) * tc::kSliceBytes / g.wide_l2_bytes_per_s);
      return w.waves.waves * slices * slice_s + (w.waves.waves - 1) * g.narrow_wave_s;
    });
  }

  if (weighed_at(ScheduleKind::Pair, n)) {  // one block an SM; each slice is 128 weights and the tokens, from L2
    Schedule pair{ScheduleKind::Pair};
    pair.block_n = pair_block_n(m, n, g.sms);
    weigh(pair, [&](const ScheduleWaves& w) {
      const double slice_s = std::max(2.0 * 128 * pair.block_n * tc::kSliceK / g.sm_flops_per_s,
                                      double(128 + pair.block_n) * tc::kSliceBytes / g.pair_l2_bytes_per_s);
      return w.waves.waves * slices * slice_s + (w.waves.waves - 1) * g.narrow_wave_s;
    });
  }
  return out;
}

// The schedule with the smallest estimate. On a tie, as where two schedules both wait on the DRAM at its full rate,
// the one with less to compute, which has the more slack; then the earlier in estimate_schedules' order.
inline ScheduleEstimate choose_schedule(int m, int n, int k, const MachineModel& g) {
  const std::vector<ScheduleEstimate> all = estimate_schedules(m, n, k, g);
  return *std::min_element(all.begin(), all.end(), [](const ScheduleEstimate& a, const ScheduleEstimate& b) {
    return a.seconds < b.seconds || (a.seconds == b.seconds && a.compute_s < b.compute_s);
  });
}
// [/doc:choice]

// The current GPU as the model sees it, asked once: its SMs, step 1's clusters, and 0.9 of its memory's peak
// bandwidth (2 transfers a clock of the bus width). Errors: tc::CudaError; those of step1_clusters.
inline const MachineModel& current_machine() {
  static const MachineModel g = [] {
    MachineModel made;
    int device = 0, khz = 0, bits = 0;
    TC_CHECK(cudaGetDevice(&device));
    TC_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device));
    TC_CHECK(cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device));
    made.sms = tc::current_device_sms();
    made.clusters = step1_clusters();
    // 0.9: a device-to-device copy's share of the peak on an H100 (3.03 of 3.35 TB/s) and an H200 (4.25 of 4.8).
    made.dram_bytes_per_s = 0.9 * 2.0 * khz * 1e3 * bits / 8.0;
    return made;
  }();
  return g;
}

// [doc:step5]
// Step 5: the model's choice at every shape, on this GPU's MachineModel with `sms` SMs; chapter 08's cluster tiles at
// k = 0 (beta C: no schedule has a slice to load). Errors: those of current_machine.
struct Step5Choice {
  static constexpr const char* name = "5 the choice";
  static Schedule choose(int m, int n, int k, int sms) {
    if (k == 0) return {ScheduleKind::Chapter08};
    MachineModel g = current_machine();
    g.sms = sms;
    return choose_schedule(m, n, k, g);
  }
};
// [/doc:step5]
