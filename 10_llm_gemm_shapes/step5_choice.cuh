// Chapter 10, step 5 -- the choice: a host model of waves and bytes that picks, for each shape, which of the chapter's
// schedules runs it.
//
// What it adds over step 4: steps 2 to 4 switch schedules at fixed token counts (the narrow tiles up to 256 tokens,
// stream-K past them), and the suite shows the switch points are wrong for some shapes: at 512 tokens a weight of
// 4096 rows makes too few of chapter 08's tiles, and the narrow tiles, two columns of 256 tokens, beat it. It also
// adds two more tiles to choose from, the wide tile (step5_wide_tile.cuh), whose width is itself picked to make about
// one tile an SM, and the pair tile (step5_pair_tile.cuh), the narrow tile with two consumers, whose token tile is
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

#include "step1_chapter08.cuh"
#include "step2_small_m.cuh"
#include "step3_split_k.cuh"
#include "step4_stream_k.cuh"
#include "step5_pair_tile.cuh"
#include "step5_wide_tile.cuh"
#include "stream_k_plan.hpp"
#include "suite.hpp"

#include "tc/check.hpp"
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
// One schedule and what the model estimates for it. label: as tools/schedule_sweep.cu's columns name it.
enum class ScheduleKind { Chapter08, StreamK, Narrow, Wide, Pair };

struct ScheduleEstimate {
  ScheduleKind kind = ScheduleKind::Chapter08;
  int block_n = 0, splits = 1;  // the narrow or pair tile's wgmma N, the narrow tile's splits of K
  bool half_n = false;          // the narrow tile is half of Step2SmallM::block_n(tokens) wide
  int width = 0;                // the wide tile's weights (wgmma's N)
  tc::Waves waves;
  int busy_sms = 0;  // the SMs its first wave keeps busy, which pull the operands from DRAM
  double compute_s = 0.0, dram_s = 0.0, seconds = 0.0;
  std::string label() const {
    if (kind == ScheduleKind::Chapter08) return "ch08";
    if (kind == ScheduleKind::StreamK) return "stream-K";
    if (kind == ScheduleKind::Wide) return "wide";
    if (kind == ScheduleKind::Pair) return "pair";
    return std::string(half_n ? "BN/2" : "BN") + (splits > 1 ? " s" + std::to_string(splits) : std::string());
  }
};

// The most tokens the narrow and pair tiles are considered at (four columns of 256), the splits tried, and the fewest
// and most tokens the wide tile is considered at: at 32 or fewer, most of its 64 token rows would not exist; up to
// 2048, since its 128-token tiles can still make about one wave where chapter 08's 256-token tiles leave SMs idle
// (Qwen2.5-7B's O at 1042 tokens: 126 tiles of 128 tokens by 256 weights, cuBLAS's tile there). Past 1024 tokens the
// pair tile was never the fastest schedule, and the wide tile at that one shape of both suites
// (docs/results/10_wide_pair_past_1024_h200.txt).
inline constexpr int kNarrowMaxTokens = 1024;
inline constexpr int kWideMinTokens = 33;
inline constexpr int kWideMaxTokens = 2048;
inline constexpr int kNarrowSplits[] = {1, 2, 4};

// Every schedule's estimate at m weights, n tokens and k (the kernels' M, N and K: suite.hpp), in the sweep's column
// order: chapter 08, stream-K (past 256 tokens, where step 4 runs it), then the narrow tiles BN and BN/2 in 1, 2 and 4
// splits (up to kNarrowMaxTokens tokens, each split keeping kMinSlicesPerSplit slices), then the wide tile (from
// kWideMinTokens to kWideMaxTokens tokens) and the pair tile (from kWideMinTokens to kNarrowMaxTokens). Preconditions:
// m, n, k >= 1.
// Host, pure.
inline std::vector<ScheduleEstimate> estimate_schedules(int m, int n, int k, const MachineModel& g) {
  using Tile = Step1Chapter08::Tile;
  const int slices = tc::ceil_div(k, tc::kSliceK);
  const double bytes = 2.0 * (double(m) * k + double(n) * k + double(m) * n);
  // A slice of chapter 08's tall cluster tile, on one of its two SMs: 192 x 256 x 64 multiply-adds.
  const double tall_slice_s = 2.0 * (Tile::BlockM * Tile::BlockN) * tc::kSliceK / g.sm_flops_per_s;
  auto finish = [&](ScheduleEstimate e, int busy_sms) {
    e.busy_sms = busy_sms;
    e.dram_s = bytes / std::min(g.dram_bytes_per_s, busy_sms * g.sm_dram_bytes_per_s);
    e.seconds = g.launch_s + std::max(e.compute_s, e.dram_s);
    return e;
  };
  std::vector<ScheduleEstimate> out;

  ScheduleEstimate ch08;  // whole cluster tiles of two heights, a wave of them at a time (step 1)
  const tc::HeightPlan plan = tc::tile_plan<Tile>(m, n, g.clusters);
  ch08.waves = tc::waves_of(plan.count(), g.clusters);
  // The busiest cluster's rows of C, in tall tiles' worth: a short tile (256 rows) multiplies 2/3 of a tall one's.
  ch08.compute_s = double(tc::busiest_cluster_rows(plan, g.clusters)) / (Tile::ClusterM * Tile::BlockM) * slices *
                   tall_slice_s;
  out.push_back(finish(ch08, Tile::ClusterM * std::min(ch08.waves.units, g.clusters)));

  if (n > Step2SmallM::kMaxTokens) {  // stream-K's whole waves, then the streamed share (stream_k_plan.hpp)
    ScheduleEstimate sk;
    sk.kind = ScheduleKind::StreamK;
    const stream_k::Plan p{tc::uniform_plan<Tile>(m, n).count(), slices, g.clusters};
    sk.waves = tc::waves_of(p.tiles, g.clusters);
    sk.compute_s = (double(p.dp_waves()) * slices + g.streamed_slice * p.sk_total() / g.clusters) * tall_slice_s;
    // The fixup (stream_k_plan.hpp): a tile's owner reads the partial of every later cluster that ran part of it,
    // one after another, after writing its own for the tile before. With fewer tiles than clusters many clusters
    // share a tile (DSV3's kv_a at 505 tokens: 4 tiles, 16 clusters each), and the most shared sets the end.
    int sharers = 0;
    for (int t = 0; t < p.sk_tiles(); ++t) sharers = std::max(sharers, p.last(t) - p.owner(t));
    const double partial_s = 4.0 * Tile::BlockM * Tile::BlockN / g.sm_l2_bytes_per_s;  // a block's fp32 tile
    sk.compute_s += (sharers > 0 ? sharers + 1 : 0) * partial_s;
    out.push_back(finish(sk, Tile::ClusterM * g.clusters));
  }

  const int full = Step2SmallM::block_n(n);
  for (int block_n : {full, full / 2}) {
    if (n > kNarrowMaxTokens) break;
    if (!Step2SmallM::is_token_tile(block_n)) continue;  // half of 8, 96, 160 or 224: no such kernel
    for (int splits : kNarrowSplits) {
      if (slices / splits < kMinSlicesPerSplit) continue;
      ScheduleEstimate e;
      e.kind = ScheduleKind::Narrow;
      e.block_n = block_n, e.splits = splits, e.half_n = block_n != full;
      const int blocks = small_m_tiles(m, n, block_n) * splits;
      const int per_sm = small_m_blocks_per_sm(block_n, blocks, g.sms);  // as steps 2 and 3 launch them
      e.waves = tc::waves_of(blocks, g.sms * per_sm);
      // The blocks that share an SM in a full wave share its tensor cores and its intake from L2.
      const int sharing = std::min(per_sm, tc::ceil_div(std::min(e.waves.units, g.sms * per_sm), g.sms));
      const double slice_s = sharing * std::max(2.0 * 64 * block_n * tc::kSliceK / g.sm_flops_per_s,
                                                double(64 + block_n) * tc::kSliceBytes / g.sm_l2_bytes_per_s);
      e.compute_s = e.waves.waves * tc::ceil_div(slices, splits) * slice_s + (e.waves.waves - 1) * g.narrow_wave_s +
                    (splits > 1 ? g.split_s : 0.0);
      out.push_back(finish(e, std::min(e.waves.units, g.sms)));
    }
  }
  if (n < kWideMinTokens || n > kWideMaxTokens) return out;
  ScheduleEstimate wide;  // one block an SM; each slice is its tokens and its weights, from L2
  wide.kind = ScheduleKind::Wide;
  wide.width = wide_width(m, n, g.sms);
  const int tokens = 64 * wide_consumers(n), blocks = tc::ceil_div(m, wide.width) * tc::ceil_div(n, tokens);
  wide.waves = tc::waves_of(blocks, g.sms);
  const double wide_slice_s = std::max(2.0 * tokens * wide.width * tc::kSliceK / g.sm_flops_per_s,
                                       double(tokens + wide.width) * tc::kSliceBytes / g.wide_l2_bytes_per_s);
  wide.compute_s = wide.waves.waves * slices * wide_slice_s + (wide.waves.waves - 1) * g.narrow_wave_s;
  out.push_back(finish(wide, std::min(blocks, g.sms)));

  if (n > kNarrowMaxTokens) return out;
  ScheduleEstimate pair;  // one block an SM; each slice is 128 weights and the tokens, from L2
  pair.kind = ScheduleKind::Pair;
  pair.block_n = pair_block_n(m, n, g.sms);
  const int pair_blocks = small_m_tiles(m, n, pair.block_n, 128);
  pair.waves = tc::waves_of(pair_blocks, g.sms);
  const double pair_slice_s = std::max(2.0 * 128 * pair.block_n * tc::kSliceK / g.sm_flops_per_s,
                                       double(128 + pair.block_n) * tc::kSliceBytes / g.pair_l2_bytes_per_s);
  pair.compute_s = pair.waves.waves * slices * pair_slice_s + (pair.waves.waves - 1) * g.narrow_wave_s;
  out.push_back(finish(pair, std::min(pair_blocks, g.sms)));
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
    made.sms = current_sms();
    made.clusters = step1_clusters();
    // 0.9: a device-to-device copy's share of the peak on an H100 (3.03 of 3.35 TB/s) and an H200 (4.25 of 4.8).
    made.dram_bytes_per_s = 0.9 * 2.0 * khz * 1e3 * bits / 8.0;
    return made;
  }();
  return g;
}

// Enqueues the estimate's schedule: C = alpha A B + beta C as step 1 takes them. Preconditions and errors: those of
// the schedule's launcher.
inline void launch_schedule(const ScheduleEstimate& e, int m, int n, int k, float alpha, const __nv_bfloat16* A,
                            int lda, const __nv_bfloat16* B, int ldb, float beta, __nv_bfloat16* C, int ldc,
                            cudaStream_t stream) {
  if (e.kind == ScheduleKind::Chapter08)
    return Step1Chapter08::launch(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  if (e.kind == ScheduleKind::StreamK) return launch_stream_k(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  if (e.kind == ScheduleKind::Wide) return launch_wide(e.width, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  if (e.kind == ScheduleKind::Pair) return launch_pair(e.block_n, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  SplitChoice c;
  c.block_n = e.block_n;
  c.splits = e.splits;
  c.tiles = small_m_tiles(m, n, e.block_n);
  launch_split_k_choice(c, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

// [doc:step5]
// Step 5 as the launchers take it: the model's choice at every shape.
struct Step5Choice : SuiteStep {
  static constexpr const char* name = "5 the choice";

  static StepPlan plan(const SuiteShape& s, int sms);
  // Enqueues step 5. Preconditions and errors: as Step1Chapter08::launch, and those of current_machine.
  static void launch(int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B,
                     int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
    if (k == 0) return Step1Chapter08::launch(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);  // beta C
    launch_schedule(choose_schedule(m, n, k, current_machine()), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                    stream);
  }
};
// [/doc:step5]

// Step 5's schedule and waves: the choice's, with the SMs its last wave leaves idle.
inline StepPlan Step5Choice::plan(const SuiteShape& s, int sms) {
  MachineModel g = current_machine();
  g.sms = sms;
  const ScheduleEstimate e = choose_schedule(s.n(), s.m, s.k(), g);
  StepPlan p;
  p.waves = e.waves;
  if (e.kind == ScheduleKind::Narrow) {
    p.schedule = "model: 64 x " + std::to_string(e.block_n) + " tiles" +
                 (e.splits > 1 ? ", split-K " + std::to_string(e.splits) : std::string());
    p.idle_sms_last_wave = sms - std::min(e.waves.last_wave_busy, sms);
  } else if (e.kind == ScheduleKind::Pair) {
    p.schedule = "model: 128 x " + std::to_string(e.block_n) + " pair tiles";
    p.idle_sms_last_wave = sms - std::min(e.waves.last_wave_busy, sms);
  } else if (e.kind == ScheduleKind::Wide) {
    p.schedule = "model: wide " + std::to_string(64 * wide_consumers(s.m)) + " x " + std::to_string(e.width) + " tiles";
    p.idle_sms_last_wave = sms - std::min(e.waves.last_wave_busy, sms);
  } else {
    p.schedule = e.kind == ScheduleKind::StreamK ? "model: stream-K" : "model: ch08 cluster tiles";
    p.idle_sms_last_wave = sms - Step1Chapter08::Tile::ClusterM *
                                     (e.kind == ScheduleKind::StreamK ? g.clusters : e.waves.last_wave_busy);
  }
  return p;
}
