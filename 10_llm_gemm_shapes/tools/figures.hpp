// Chapter 10's figures, drawn from the plans and tiles the steps use:
//   10_waves.svg    Llama-3-8B's O at one token on a 132-SM H200: each step's work units and the SMs they busy
//                   (step1_waves, Scheduled<Step2SmallM>::plan, Scheduled<Step3SplitK>::plan), one cell an SM
//   10_swap_ab.svg  which operand sits in wgmma's M: the weights' 64 rows as A, the tokens as B, wgmma's N from the
//                   token count (Step2SmallM::block_n), y^T's tile in C
//   10_split_k.svg  step 3's sum through distributed shared memory: a cluster of 2 blocks, each over half of K, and
//                   which block sums which accumulator registers (register i: block i mod 2)
//   10_stream_k.svg Llama-3-8B's O at 512 tokens on 64 clusters: step 1's whole tiles against step 4's stream-K
//                   shares (stream_k::Plan), one column a cluster, time down, with the partials and the fixups
//   10_moe_groups.svg the 8-expert routing of step 6 (moe::zipf_routing, seed 2026): each expert's rows, and the same
//                   groups as one numbering of tiles (grouped::make_plan), the empty group with none
//   10_choice.svg   step 5's model at Llama-3-8B's down from 1 to 8192 tokens: every schedule's estimate
//                   (estimate_schedules), the DRAM floor, and the one choose_schedule picks
//   10_token_tiles.svg the token tile's waste from 1 to 8192 tokens (Step2SmallM::block_n, then chapter 08's tile),
//                   with the suite's token counts and the held-out suite's draws (held_out_suite)
// docs/figures/10_*.svg are this file's output, written by 10_figures; a host test fails when the committed files
// differ from it. Host code (the plans are host functions; the step headers also hold the kernels, so this compiles
// as CUDA); no GPU. Errors: none.
#pragma once

#include "schedules.cuh"
#include "step1_chapter08.cuh"
#include "step2_small_m.cuh"
#include "step3_split_k.cuh"
#include "step4_stream_k.cuh"
#include "step5_choice.cuh"
#include "stream_k_plan.hpp"
#include "grouped_plan.hpp"
#include "moe_routing.hpp"
#include "suite.hpp"

#include "tc/main.hpp"  // tc::Figure
#include "tc/svg.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <vector>

namespace figures10 {

using tc::svg::rect;
using tc::svg::text;

// One row of 132 SM cells: the first `busy` filled with `fill`, the rest white.
inline std::string sm_row(int x, int y, int sms, int busy, const char* fill) {
  constexpr int kCell = 6;
  std::string body;
  for (int sm = 0; sm < sms; ++sm) body += rect(x + sm * kCell, y, kCell, 18, sm < busy ? fill : "white");
  return body;
}

// 8B O (4096 x 4096) at one token, on 132 SMs (64 clusters of 2 for step 1): the SMs each step keeps busy.
inline std::string waves_figure() {
  constexpr int kSms = 132, kClusters = 64, kLeft = 150, kTop = 60, kRow = 52;
  const SuiteShape s{1, LinearLayer{"8B", "O", 4096, 4096}};
  const Step1Waves one = step1_waves(s.n(), s.m, kClusters, kSms);
  const StepPlan two = Scheduled<Step2SmallM>::plan(s, kSms), three = Scheduled<Step3SplitK>::plan(s, kSms);
  std::string body = text(10, 20,
                          "Llama-3-8B's O (4096 x 4096) at one token on 132 SMs: the SMs each step's work keeps "
                          "busy (one cell an SM)",
                          " font-size=\"13\"");
  body += text(10, 38, "filled: an SM with work in the (only) wave; white: an SM that waits for the whole launch");
  struct Row {
    std::string label, detail;
    int busy;
  };
  const Row rows[] = {
      {"step 1", std::to_string(one.waves.units) + " cluster tiles of 384/256 x 256, 2 SMs each",
       kSms - one.idle_sms_last_wave},
      {"step 2", std::to_string(two.waves.units) + " tiles of 64 x " + std::to_string(Step2SmallM::block_n(1)) +
                     ", one block each", kSms - two.idle_sms_last_wave},
      {"step 3", std::to_string(three.waves.units) + " blocks: the 64 tiles, K split in " +
                     std::to_string(split_k_choice(4096, 1, 4096, kSms).splits), kSms - three.idle_sms_last_wave},
  };
  int y = kTop;
  for (int r = 0; r < 3; ++r, y += kRow) {
    body += text(10, y + 13, rows[r].label, " font-weight=\"bold\"");
    body += sm_row(kLeft - 80, y, kSms, rows[r].busy, tc::svg::colour(r));
    body += text(kLeft - 80, y + 34, rows[r].detail + ": " + std::to_string(rows[r].busy) + " of 132 SMs busy, " +
                                         std::to_string(kSms - rows[r].busy) + " idle");
  }
  return tc::svg::document(880, y + 10, body);
}

// wgmma's operands at one slice, as steps 2 and 3 feed them: A = 64 rows of W (the weights, K-major), B = BlockN rows
// of x (the tokens, K-major), D = the 64 x BlockN tile of y^T in registers. Laid out as D = A B: B above D, A left.
inline std::string swap_ab_figure() {
  using Tile = SmallMTile<8>;
  std::string body = text(10, 20, "swap-AB: y = x W^T is computed as y^T = W x^T, so the weights fill wgmma's M",
                          " font-size=\"13\"");
  body += text(10, 38, "one slice of K (64 values, 128 bytes a row) at one token: wgmma.mma_async.m64n" +
                           std::to_string(Tile::BlockN) + "k16, four K steps of 16");
  constexpr int kTop = 60, kSide = 160, kNarrow = 20, kAx = 40, kBx = kAx + kSide + 10, kDy = kTop + kSide + 10;
  body += rect(kBx, kTop, kNarrow, kSide, tc::svg::colour(2));  // B: K down, N across
  body += text(kBx + kNarrow + 10, kTop + 60, "B = x^T: 64 K x " + std::to_string(Tile::BlockN) +
                                                  " tokens (1 real, 7 zeros TMA fills in)", " font-weight=\"bold\"");
  body += text(kBx + kNarrow + 10, kTop + 78, "wgmma's N: 8, 16, 32, 64, 128 or 256, the tokens rounded up");
  body += rect(kAx, kDy, kSide, kSide, tc::svg::colour(1));  // A: M down, K across
  body += text(kAx + kSide / 2, kDy + kSide / 2 - 6, "A = W", " text-anchor=\"middle\" font-weight=\"bold\"");
  body += text(kAx + kSide / 2, kDy + kSide / 2 + 12, std::to_string(Tile::BlockM) + " weights x 64 K",
               " text-anchor=\"middle\"");
  body += text(kAx + kSide / 2, kDy + kSide + 18, "wgmma's M: 64 rows, fixed", " text-anchor=\"middle\"");
  body += rect(kBx, kDy, kNarrow, kSide, tc::svg::colour(4));  // D: M down, N across
  body += text(kBx + kNarrow + 10, kDy + 60, "D: 64 weights x " + std::to_string(Tile::BlockN) + " tokens of y^T, " +
                                                 std::to_string(Tile::BlockN / 2) + " fp32 registers a thread",
               " font-weight=\"bold\"");
  body += text(kBx + kNarrow + 10, kDy + 78, "C is column-major with ldc = N: one token's outputs are contiguous");
  body += text(kBx + kNarrow + 10, kDy + 110, "unswapped, the one token would take wgmma's M: 63 of its 64 rows");
  body += text(kBx + kNarrow + 10, kDy + 126, "padding, and the 4096 weights its N");
  return tc::svg::document(820, kDy + kSide + 30, body);
}

// Step 3's sum in a cluster of 2: each block's K chunk, its partial in shared memory, and the registers it sums.
inline std::string split_k_figure() {
  constexpr int kSplits = 2, kRegisters = SmallMTile<8>::BlockN / 2;
  std::string body = text(10, 20, "split-K over a cluster of 2: each block multiplies half of K,", " font-size=\"13\"");
  body += text(10, 38, "then the partial tiles are summed through distributed shared memory", " font-size=\"13\"");
  constexpr int kTop = 64;
  for (int b = 0; b < kSplits; ++b) {
    const int y = kTop + b * 130;
    body += text(10, y + 20, "block " + std::to_string(b), " font-weight=\"bold\"");
    body += text(10, y + 36, "(rank " + std::to_string(b) + ")");
    // K: 16 slices, the block's chunk filled.
    for (int s = 0; s < 16; ++s) body += rect(90 + s * 14, y + 8, 14, 18, s / 8 == b ? tc::svg::colour(b) : "white");
    body += text(90, y + 42, "K slices " + std::to_string(8 * b) + ".." + std::to_string(8 * b + 7) + " -> partial P" +
                                 std::to_string(b) + " in its own shared memory");
    // Its partial's registers, and which block sums each.
    for (int i = 0; i < kRegisters; ++i) {
      body += rect(90 + i * 60, y + 56, 60, 22, tc::svg::colour(4 + i % kSplits));
      body += text(120 + i * 60, y + 71, "reg " + std::to_string(i), " text-anchor=\"middle\"");
    }
    body += text(90 + kRegisters * 60 + 10, y + 71, "register i at float i x 128 + thread");
  }
  const int y = kTop + kSplits * 130;
  body += text(10, y, "after barrier.cluster (release, then acquire): block r sums the registers i with i mod 2 = r,");
  body += text(10, y + 16,
               "P0 + P1 in rank order (ld.shared::cluster at the address mapa gives), and stores them to C;");
  body += text(10, y + 32,
               "a second barrier.cluster keeps every block's shared memory alive until the other has read it.");
  for (int i = 0; i < kRegisters; ++i) {
    body += rect(90 + i * 60, y + 46, 60, 22, tc::svg::colour(4 + i % kSplits));
    body += text(120 + i * 60, y + 61, "block " + std::to_string(i % kSplits), " text-anchor=\"middle\"");
  }
  return tc::svg::document(820, y + 80, body);
}


// Step 1 and step 4 at 8B O (4096 x 4096) at 512 tokens on 64 clusters: one column a cluster, time down in slices of
// K, a slice of a 384-row cluster tile 6 px and of a 256-row one 4 px (a slice's time grows with its rows). Each tile
// in a colour of its own; in step 4, a black bar where a cluster writes its partial and raises its flag, a red one
// where the owner adds the partials and stores C.
inline std::string stream_k_figure() {
  using Tile = Step1Chapter08::Tile;
  constexpr int kClusters = 64, kCol = 10, kLeft = 70, kSlices = 4096 / tc::kSliceK;
  const tc::HeightPlan one = tc::tile_plan<Tile>(4096, 512, kClusters), four = tc::uniform_plan<Tile>(4096, 512);
  const stream_k::Plan sk{four.count(), kSlices, kClusters};  // fewer tiles than clusters: every tile streamed
  auto px = [](int height) { return height == Tile::BlockM ? 6 : 4; };  // a slice of a tall or a short tile
  std::string body = text(10, 20,
                          "Llama-3-8B's O (4096 x 4096) at 512 tokens on 64 clusters: one column a cluster, time down",
                          " font-size=\"13\"");
  int y = 50;
  const std::string heights = one.tall_rows == 0    ? std::to_string(2 * one.short_m)
                              : one.short_rows == 0 ? std::to_string(2 * one.tall_m)
                                                    : std::to_string(2 * one.tall_m) + " or " +
                                                          std::to_string(2 * one.short_m);
  body += text(10, y, "step 1: " + std::to_string(one.count()) + " whole cluster tiles of " + heights +
                          " x 256 for 64 clusters: a tile each, and the rest wait", " font-weight=\"bold\"");
  y += 10;
  int longest = 0;
  for (int c = 0; c < kClusters; ++c) {
    int t_y = y;
    for (int t = c; t < one.count(); t += kClusters) {
      const int h = px(t < one.tall_count() ? one.tall_m : one.short_m) * kSlices;
      body += rect(kLeft + c * kCol, t_y, kCol, h, tc::svg::colour(t % 8));
      t_y += h;
    }
    longest = std::max(longest, t_y - y);
  }
  y += longest + 30;
  body += text(10, y, "step 4: " + std::to_string(sk.tiles) + " tiles of 384 x 256, " + std::to_string(sk.sk_total()) +
                          " slices in all: " + std::to_string(sk.sk_total() / kClusters) +
                          " each, across tile boundaries", " font-weight=\"bold\"");
  y += 10;
  int bottom = y;
  for (int c = 0; c < kClusters; ++c) {
    int s_y = y;
    for (int at = sk.begin(c); at < sk.finish(c);) {
      const stream_k::Span span = stream_k::span_at(sk, c, at);
      at += span.last - span.first;
      const int h = px(Tile::BlockM) * (span.last - span.first);
      body += rect(kLeft + c * kCol, s_y, kCol, h, tc::svg::colour(span.tile % 8));
      s_y += h;
      // The partial and its flag, or the owner's fixup (where other clusters ran part of the tile) and store.
      if (!span.starts_tile()) body += rect(kLeft + c * kCol, s_y - 2, kCol, 2, "black");
      else if (sk.last(span.tile) > c) body += rect(kLeft + c * kCol, s_y, kCol, 4, "#d62728");
    }
    bottom = std::max(bottom, s_y + 4);
  }
  y = bottom + 20;
  body += text(10, y,
               "black: a cluster's partial of a tile it does not own, written to its workspace slot, then its flag "
               "(release);");
  body += text(10, y + 16, "red: the owner, which ran the tile's first slices, waits on each flag in cluster order "
                           "(acquire), adds the partials, stores C.");
  body += text(10, y + 32, "A slice of a 384-row tile takes 3/2 the time of a 256-row one: step 4's columns end "
                           "about half-way down step 1's.");
  return tc::svg::document(880, y + 46, body);  // the widest line of text, in 11-pixel monospace
}

// Step 6's groups: 4096 tokens, top-2, over 8 experts (Zipf(1.2), seed 2026), each expert's rows as a bar; then the
// same groups as grouped::make_plan numbers their tiles for a 4096-row weight in 64 x 256 tiles, one row, in
// proportion, with the first tile of each group.
inline std::string moe_groups_figure() {
  const std::vector<int> rows = moe::zipf_routing(4096, 2, 8, 1.2, 2026);
  const grouped::Plan plan = grouped::make_plan(rows, 4096, 64, 256);
  constexpr int kLeft = 110, kWidth = 600, kBar = 18;
  int most = 1;
  for (int r : rows) most = std::max(most, r);
  std::string body = text(10, 20,
                          "step 6's groups: 4096 tokens, top-2 (8192 routed rows), over 8 experts by a Zipf(1.2) "
                          "draw, seed 2026",
                          " font-size=\"13\"");
  int y = 44;
  for (int g = 0; g < plan.groups; ++g, y += kBar + 4) {
    body += text(10, y + 13, "expert " + std::to_string(g));
    const int w = rows[g] * kWidth / most;
    if (w > 0) body += rect(kLeft, y, w, kBar, tc::svg::colour(g));
    body += text(kLeft + w + 6, y + 13, std::to_string(rows[g]) + (rows[g] == 0 ? " rows: no tiles" : " rows"));
  }
  y += 16;
  body += text(10, y, "the same groups as one numbering of tiles (64 weights x 256 tokens, a 4096-row weight): " +
                          std::to_string(plan.tiles()) + " tiles;");
  body += text(10, y + 16, "block b of the persistent grid takes tiles b, b + grid, ...");
  y += 26;
  for (int g = 0; g < plan.groups; ++g) {
    const int x0 = kLeft + plan.first_tile[g] * kWidth / plan.tiles();
    const int x1 = kLeft + plan.first_tile[g + 1] * kWidth / plan.tiles();
    if (x1 > x0) {
      body += rect(x0, y, x1 - x0, kBar * 2, tc::svg::colour(g));
      body += text(x0 + 2, y + kBar * 2 + 14, std::to_string(plan.first_tile[g]));
    }
  }
  body += text(10, y + 22, "tiles");
  y += kBar * 2 + 36;
  body += text(10, y, "a tile's group: a binary search over the first tiles (the numbers above);");
  body += text(10, y + 16, "its columns past the group's rows hold the next group's tokens: computed, never stored");
  return tc::svg::document(kLeft + kWidth + 160, y + 32, body);
}

// Step 5's estimates at 8B down (4096 x 14336) for 1 to 8192 tokens, on MachineModel's defaults with an H200's DRAM
// (0.9 of its 4.8 TB/s, as current_machine reads it), the GPU the constants were fit on: one line a
// schedule (log-log: tokens across, estimated time up), a grey line where the operands' DRAM time plus the launch
// lies, and a black dot on the estimate choose_schedule picks, its label under the axis.
inline std::string choice_figure() {
  constexpr int kLeft = 70, kTop = 50, kWidth = 700, kHeight = 330, kPoints = 14;  // 1, 2, 4, ..., 8192 tokens
  const LinearLayer layer{"8B", "down", 4096, 14336};
  MachineModel g;
  g.dram_bytes_per_s = 0.9 * 4.8e12;
  static const char* const kLabels[] = {"ch08",  "stream-K", "BN",      "BN s2", "BN s4",
                                       "BN/2",  "BN/2 s2",  "BN/2 s4", "wide",  "pair"};
  static const char* const kInk[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e",
                                     "#e6ab02", "#a6761d", "#666666", "#1f78b4", "#b15928"};
  constexpr double kLowUs = 10.0, kDecades = 3.0;  // the y axis: 10 us to 10 ms
  auto x_of = [&](int point) { return kLeft + point * kWidth / (kPoints - 1); };
  auto y_of = [&](double seconds) {
    const double decades = std::log10(seconds * 1e6 / kLowUs) / kDecades;
    return kTop + kHeight - int(std::lround(std::clamp(decades, 0.0, 1.0) * kHeight));
  };
  std::string body = text(10, 20,
                          "step 5's model at Llama-3-8B's down (4096 x 14336): each schedule's estimated time, "
                          "and the one it picks",
                          " font-size=\"13\"");
  body += text(10, 38, "MachineModel's defaults (132 SMs, 64 clusters) with an H200's DRAM, " +
                           std::to_string(int(g.dram_bytes_per_s / 1e9)) + " GB/s; log scales");
  for (int d = 0; d <= 3; ++d) {  // the decades: 10 us, 100 us, 1 ms, 10 ms
    const int y = kTop + kHeight - d * kHeight / 3;
    body += "<line x1=\"" + std::to_string(kLeft) + "\" y1=\"" + std::to_string(y) + "\" x2=\"" +
            std::to_string(kLeft + kWidth) + "\" y2=\"" + std::to_string(y) + "\" stroke=\"#ddd\"/>\n";
    body += text(8, y + 4, d == 0 ? "10 us" : d == 1 ? "100 us" : d == 2 ? "1 ms" : "10 ms");
  }
  std::vector<std::string> lines(std::size(kLabels));
  std::string floor_line, chosen_dots;
  for (int point = 0; point < kPoints; ++point) {
    const int tokens = 1 << point, x = x_of(point);
    const std::vector<ScheduleEstimate> all = estimate_schedules(layer.n, tokens, layer.k, g);
    for (const ScheduleEstimate& e : all)
      for (std::size_t l = 0; l < lines.size(); ++l)
        if (e.label() == kLabels[l]) lines[l] += std::to_string(x) + "," + std::to_string(y_of(e.seconds)) + " ";
    const SuiteShape shape{tokens, layer};  // the floor: the operands once at the DRAM's bandwidth, all SMs pulling
    floor_line += std::to_string(x) + "," +
                  std::to_string(y_of(g.launch_s + shape.operand_bytes() / g.dram_bytes_per_s)) + " ";
    const ScheduleEstimate chosen = choose_schedule(layer.n, tokens, layer.k, g);
    chosen_dots += "<circle cx=\"" + std::to_string(x) + "\" cy=\"" + std::to_string(y_of(chosen.seconds)) +
                   "\" r=\"4\" fill=\"black\"/>\n";
    body += text(x - 12, kTop + kHeight + 18, std::to_string(tokens));
    body += text(x - 12, kTop + kHeight + 34, chosen.label(), " font-size=\"9\"");
  }
  auto polyline = [](const std::string& points, const char* ink, const char* extra) {
    return "<polyline points=\"" + points + "\" fill=\"none\" stroke=\"" + ink + "\" stroke-width=\"1.5\"" + extra +
           "/>\n";
  };
  body += polyline(floor_line, "#999", " stroke-dasharray=\"5 4\"");
  for (std::size_t l = 0; l < lines.size(); ++l) {
    if (lines[l].empty()) continue;
    body += polyline(lines[l], kInk[l], "");
    body += rect(kLeft + kWidth + 20, kTop + int(l) * 18, 12, 3, kInk[l]);
    body += text(kLeft + kWidth + 38, kTop + int(l) * 18 + 5, kLabels[l]);
  }
  body += text(kLeft + kWidth + 20, kTop + 10 * 18 + 5, "-- DRAM + launch", " fill=\"#777\"");
  body += text(kLeft + kWidth + 20, kTop + 11 * 18 + 5, "o the choice", " font-weight=\"bold\"");
  body += chosen_dots;
  body += text(kLeft, kTop + kHeight + 52, "tokens (the chosen schedule under each)");
  // The schedules' names, spelled out: they are the sweep tool's column names, which the plot alone does not explain.
  body += text(10, kTop + kHeight + 74, "ch08: chapter 08's kernel (step 1); stream-K: step 4; BN: step 2's narrow "
                                        "tile, 64 weights by wgmma's N of tokens (Step2SmallM::block_n);");
  body += text(10, kTop + kHeight + 90, "BN/2: the same tile half as wide; s2, s4: with K in 2 or 4 splits (step 3); "
                                        "wide: step 5's wide tile, the tokens in wgmma's M;");
  body += text(10, kTop + kHeight + 106, "pair: step 5's pair tile, 128 weights (two consumer warpgroups) by the "
                                         "tokens");
  return tc::svg::fitted_document(kLeft + kWidth + 150, kTop + kHeight + 120, body);
}

// The token tile's waste: of the token columns a launch computes, the share that holds no token, from 1 to 8192
// tokens, where steps 2 to 4 take up to 256 tokens in one narrow tile (wgmma's N a power of two up to 64, a multiple
// of 32 past it: Step2SmallM::block_n) and steps 1 to 4 run chapter 08's tiles of Step1Chapter08::Tile::BlockN past
// them. The suite's token counts, powers of two, sit where the tiles fit; the held-out suite's draws
// (held_out_suite) fall between, where up to 64 tokens a power of two, and past 256 chapter 08's tile, can waste up
// to half.
inline double token_waste(int tokens) {
  const int tile = tokens <= Step2SmallM::kMaxTokens ? Step2SmallM::block_n(tokens) : Step1Chapter08::Tile::BlockN;
  const int columns = tc::ceil_div(tokens, tile) * tile;
  return 1.0 - double(tokens) / columns;
}

inline std::string token_tiles_figure() {
  constexpr int kLeft = 60, kTop = 56, kWidth = 720, kHeight = 220, kOctaves = 13;  // 1 to 8192 tokens
  auto x_of = [&](double tokens) { return kLeft + int(std::lround(std::log2(tokens) / kOctaves * kWidth)); };
  auto y_of = [&](double waste) { return kTop + kHeight - int(std::lround(waste * kHeight)); };
  std::string body = text(10, 20,
                          "the token tile's waste: of the token columns a launch computes, the share that holds no "
                          "token",
                          " font-size=\"13\"");
  body += text(10, 38, "steps 2 to 4's narrow tile up to 256 tokens (wgmma's N: a power of two to 64, then a "
                       "multiple of 32), then chapter 08's " + std::to_string(Step1Chapter08::Tile::BlockN) +
                       " tokens past 256; log scale");
  for (int q = 0; q <= 4; ++q) {  // 0, 25, 50, 75, 100 %
    const int y = y_of(q / 4.0);
    body += "<line x1=\"" + std::to_string(kLeft) + "\" y1=\"" + std::to_string(y) + "\" x2=\"" +
            std::to_string(kLeft + kWidth) + "\" y2=\"" + std::to_string(y) + "\" stroke=\"#ddd\"/>\n";
    body += text(14, y + 4, std::to_string(25 * q) + "%");
  }
  for (int octave = 0; octave <= kOctaves; octave += 2)
    body += text(x_of(1 << octave) - 10, kTop + kHeight + 18, std::to_string(1 << octave));
  // The curve: a point at each end of every tooth (a tile boundary and the token after it), and every 8th token
  // between, enough for the teeth's curve on a log axis.
  std::string points;
  for (int m = 1; m <= 8192; ++m) {
    const bool edge = token_waste(m) == 0.0 || (m > 1 && token_waste(m - 1) == 0.0);
    if (m <= 64 || edge || m % 8 == 0)
      points += std::to_string(x_of(m)) + "," + std::to_string(y_of(token_waste(m))) + " ";
  }
  body += "<polyline points=\"" + points + "\" fill=\"none\" stroke=\"#7570b3\" stroke-width=\"1.2\"/>\n";
  for (int m : kSuiteTokens)
    body += rect(x_of(m) - 4, y_of(token_waste(m)) - 4, 8, 8, "black");
  for (const SuiteShape& s : held_out_suite())
    body += "<circle cx=\"" + std::to_string(x_of(s.m)) + "\" cy=\"" + std::to_string(y_of(token_waste(s.m))) +
            "\" r=\"4\" fill=\"#d95f02\"/>\n";
  body += text(kLeft, kTop + kHeight + 38, "tokens M");
  body += rect(kLeft + 120, kTop + kHeight + 30, 8, 8, "black");
  body += text(kLeft + 134, kTop + kHeight + 38, "the suite's token counts");
  body += "<circle cx=\"" + std::to_string(kLeft + 314) + "\" cy=\"" + std::to_string(kTop + kHeight + 34) +
          "\" r=\"4\" fill=\"#d95f02\"/>\n";
  body += text(kLeft + 324, kTop + kHeight + 38, "the held-out suite's (suite.hpp: drawn log-uniformly)");
  return tc::svg::fitted_document(kLeft + kWidth + 30, kTop + kHeight + 52, body);
}

}  // namespace figures10

inline std::vector<tc::Figure> chapter_figures() {
  return {
      {"10_waves.svg", figures10::waves_figure()},
      {"10_swap_ab.svg", figures10::swap_ab_figure()},
      {"10_split_k.svg", figures10::split_k_figure()},
      {"10_stream_k.svg", figures10::stream_k_figure()},
      {"10_moe_groups.svg", figures10::moe_groups_figure()},
      {"10_choice.svg", figures10::choice_figure()},
      {"10_token_tiles.svg", figures10::token_tiles_figure()},
  };
}
