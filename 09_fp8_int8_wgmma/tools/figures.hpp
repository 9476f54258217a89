// Chapter 09's figures, drawn from the functions the kernels use:
//   09_k32_slice.svg          one 1024-byte atom of an 8-bit slice in the 128B swizzle: where each 16-byte chunk of
//                             K lands (tc::swizzle_address) and which k32 wgmma step reads it (32 bytes = 32 values)
//   09_promotion_timeline.svg step 3's order: each consumer's wgmma group on the tensor core, its wait, its adds on the
//                             CUDA cores, and the other consumer's group running meanwhile (a model, not a measurement)
//   09_block_scale_map.svg    which two scales multiply C(i, j)'s partial sum over K group g, and where they lie in
//                             the scale tensors (tc::a_scale_index, tc::b_scale_index)
// docs/figures/09_*.svg (but 09_error_vs_k.svg, a measurement) are this file's output, written by 09_figures (or
// 09_fp8_int8_wgmma --svg DIR); a host test fails when the committed files differ from it. Host code; no GPU.
// Errors: none.
#pragma once

#include "tc/layouts/block_scale.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc/main.hpp"  // tc::Figure
#include "tc/svg.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace figures09 {

using tc::svg::rect;
using tc::svg::text;

// The 8 rows of 128 bytes of one aligned atom: each slot labelled with the logical chunk stored there (K values
// 16c .. 16c + 15 of that row) and coloured by the k32 step that reads it, chunk / 2.
inline std::string k32_slice_figure() {
  constexpr int kCell = 44, kLeft = 60, kTop = 70;
  std::string body = text(10, 20, "an 8-bit slice in the 128B swizzle: 8 rows of 128 K values (one 1024-byte atom)",
                          " font-size=\"13\"");
  body += text(10, 38, "slot s of row r holds chunk s ^ r (tc::swizzle_address): K values 16c .. 16c+15; colour: "
                       "the k32 wgmma step reading it");
  for (int slot = 0; slot < 8; ++slot)
    body += text(kLeft + slot * kCell + kCell / 2, kTop - 6, "slot " + std::to_string(slot), " text-anchor=\"middle\"");
  for (int row = 0; row < 8; ++row) {
    body += text(kLeft - 8, kTop + row * kCell + 26, "row " + std::to_string(row), " text-anchor=\"end\"");
    for (int slot = 0; slot < 8; ++slot) {
      const int chunk = int(tc::swizzle_address(tc::Swizzle::B128, std::uint32_t(row * 128 + slot * 16))) % 128 / 16;
      body += rect(kLeft + slot * kCell, kTop + row * kCell, kCell, kCell, tc::svg::colour(chunk / 2));
      body += text(kLeft + slot * kCell + kCell / 2, kTop + row * kCell + 20, "c" + std::to_string(chunk),
                   " text-anchor=\"middle\"");
      body += text(kLeft + slot * kCell + kCell / 2, kTop + row * kCell + 34,
                   "k" + std::to_string(16 * chunk) + "+", " text-anchor=\"middle\" font-size=\"9\"");
    }
  }
  const int legend = kTop + 8 * kCell + 22;
  for (int step = 0; step < 4; ++step) {
    body += rect(kLeft + step * 130, legend - 12, 14, 14, tc::svg::colour(step));
    body += text(kLeft + step * 130 + 20, legend, "step " + std::to_string(step) + ": K " +
                                                     std::to_string(32 * step) + ".." + std::to_string(32 * step + 31));
  }
  body += text(10, legend + 24, "a step's descriptor starts 32 bytes further (tc::advance_wgmma_descriptor); the "
                                "hardware applies the same XOR, so each step reads its two chunks from every row");
  return tc::svg::fitted_document(760, legend + 40, body);
}

// Step 3's order, simulated on a model: a wgmma group takes kMma units on the tensor core, which runs groups in the
// order they were issued; its consumer sees it complete kSeen units later (wgmma.wait_group), adds it into the fp32
// accumulators for kAdd units, then issues its next group. Two consumers, two row blocks a slice, `slices` slices;
// whichever consumer is ready first issues first (no barrier orders them: step3_promotion.cuh). The units are picked
// to show the case step 3 is in (docs/09, "Results"): when seeing the group and adding it take longer than the other
// consumer's group, the tensor core idles for the difference, once a group.
inline std::string promotion_timeline_figure(int slices) {
  constexpr int kMma = 4, kSeen = 2, kAdd = 3, kUnit = 14, kLeft = 150, kTop = 60, kRowH = 34;
  struct Bar {
    int row, start, len, colour;
    std::string label;
  };
  std::vector<Bar> bars;
  int tensor_free = 0, end = 0;
  int ready[2] = {0, 0};  // when each consumer issues its next group
  int issued[2] = {0, 0};  // the groups each consumer has issued
  const int groups = 2 * slices;
  while (issued[0] < groups || issued[1] < groups) {
    // The next group on the tensor core is the one issued first (consumer 1 on a tie).
    const int c = issued[1] == groups || (issued[0] < groups && ready[0] <= ready[1]) ? 0 : 1, g = issued[c]++;
    const int start = std::max(tensor_free, ready[c]), done = start + kMma;
    tensor_free = done;
    const std::string name = "C" + std::to_string(c + 1) + " s" + std::to_string(g / 2) + " rb" +
                             std::to_string(g % 2);
    bars.push_back({0, start, kMma, c, name});
    bars.push_back({1 + c, done, kSeen, 7, "wait"});
    bars.push_back({1 + c, done + kSeen, kAdd, c + 2, "add rb" + std::to_string(g % 2)});
    ready[c] = done + kSeen + kAdd;
    end = std::max(end, ready[c]);
  }
  std::string body = text(10, 20, "step 3's promotion: two consumers share the tensor core", " font-size=\"13\"");
  body += text(10, 38, "a model, not a measurement: a group runs " + std::to_string(kMma) + " units, its consumer "
                       "sees it " + std::to_string(kSeen) + " later and adds for " + std::to_string(kAdd) +
                       "; gaps on the tensor core are where neither consumer has a group queued");
  const char* rows[] = {"tensor core", "consumer 1: CUDA cores", "consumer 2: CUDA cores"};
  for (int r = 0; r < 3; ++r) body += text(kLeft - 8, kTop + r * kRowH + 20, rows[r], " text-anchor=\"end\"");
  for (const Bar& b : bars) {
    body += rect(kLeft + b.start * kUnit, kTop + b.row * kRowH, b.len * kUnit, kRowH - 8, tc::svg::colour(b.colour));
    if (b.len * kUnit >= 40)
      body += text(kLeft + b.start * kUnit + b.len * kUnit / 2, kTop + b.row * kRowH + 17, b.label,
                   " text-anchor=\"middle\" font-size=\"9\"");
  }
  const int h = kTop + 3 * kRowH + 30;
  body += text(10, h - 10, "a second scratch accumulator would let a consumer queue its next group before it adds: "
                           "the registers it needs are the price (docs/09, \"Results\")");
  return tc::svg::fitted_document(std::max(kLeft + end * kUnit + 20, 900), h, body);
}

// Block scales for a small case, M = 4, N = 384, K = 384 (3 column blocks, 3 K groups): sa and sb in memory order
// (ld_sa = M, ld_sb = groups), and C's (row, column block) cells with the factor of their group-g partial sum; the
// cells C(row, block) at group g uses are marked in both tensors.
inline std::string block_scale_map_figure(int row, int block, int g) {
  constexpr int kM = 4, kBlocks = 3, kGroups = 3, kCell = 62, kLeft = 20, kTop = 70;
  std::string body = text(10, 20, "block scales: C(i, j) over K group g is multiplied by sa(i, g) * sb(j / 128, g)",
                          " font-size=\"13\"");
  body += text(10, 38, "M = 4, N = 384, K = 384: 3 column blocks, 3 K groups; marked: the two scales of C(" +
                           std::to_string(row) + ", block " + std::to_string(block) + ") at g = " +
                           std::to_string(g));
  // sa, memory order: a_scale_index(i, g, ld_sa) = g * M + i.
  body += text(kLeft, kTop - 8, "sa, as stored: K group by K group, M contiguous (index g * ld_sa + i)");
  for (int gg = 0; gg < kGroups; ++gg)
    for (int i = 0; i < kM; ++i) {
      const int at = int(tc::a_scale_index(i, gg, kM));
      const bool used = i == row && gg == g;
      body += rect(kLeft + at * kCell, kTop, kCell, 30, used ? "#fdae61" : tc::svg::colour(gg));
      body += text(kLeft + at * kCell + kCell / 2, kTop + 19, "sa(" + std::to_string(i) + "," + std::to_string(gg) + ")",
                   " text-anchor=\"middle\"");
    }
  // sb, memory order: b_scale_index(col, g, ld_sb) = (col / 128) * groups + g.
  const int sb_top = kTop + 70;
  body += text(kLeft, sb_top - 8, "sb, as stored: column block by column block, K groups contiguous "
                                  "(index (j / 128) * ld_sb + g)");
  for (int jb = 0; jb < kBlocks; ++jb)
    for (int gg = 0; gg < kGroups; ++gg) {
      const int at = int(tc::b_scale_index(jb * tc::kScaleBlockK, gg, kGroups));
      const bool used = jb == block && gg == g;
      body += rect(kLeft + at * kCell, sb_top, kCell, 30, used ? "#fdae61" : tc::svg::colour(gg));
      body += text(kLeft + at * kCell + kCell / 2, sb_top + 19,
                   "sb(" + std::to_string(jb) + "," + std::to_string(gg) + ")", " text-anchor=\"middle\"");
    }
  // C's cells at group g.
  const int c_top = sb_top + 80, c_cell_w = 170;
  body += text(kLeft, c_top - 8, "C at K group " + std::to_string(g) + ": the factor of each cell's partial sum "
                                 "(rows i, 128-column blocks j / 128)");
  for (int i = 0; i < kM; ++i)
    for (int jb = 0; jb < kBlocks; ++jb) {
      const bool used = i == row && jb == block;
      body += rect(kLeft + jb * c_cell_w, c_top + i * 28, c_cell_w, 28, used ? "#fdae61" : "#f7f7f7");
      body += text(kLeft + jb * c_cell_w + c_cell_w / 2, c_top + i * 28 + 18,
                   "sa(" + std::to_string(i) + "," + std::to_string(g) + ") * sb(" + std::to_string(jb) + "," +
                       std::to_string(g) + ")",
                   " text-anchor=\"middle\"");
    }
  const int h = c_top + kM * 28 + 40;
  body += text(10, h - 14, "a tile of 128 rows reads one contiguous run of sa per K group (step 4's TMA load), and a "
                           "consumer's 128 columns one value of sb");
  return tc::svg::fitted_document(std::max(kLeft + kGroups * kM * kCell, kLeft + kBlocks * c_cell_w) + 40, h, body);
}

}  // namespace figures09

inline std::vector<tc::Figure> chapter_figures() {
  return {
      {"09_k32_slice.svg", figures09::k32_slice_figure()},
      {"09_promotion_timeline.svg", figures09::promotion_timeline_figure(2)},
      {"09_block_scale_map.svg", figures09::block_scale_map_figure(2, 1, 1)},
  };
}
