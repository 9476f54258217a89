// The chapter's figures, drawn from the functions the kernels use, so a layout or pipeline bug shows in a picture:
//   06_ldmatrix_x1.svg, 06_ldmatrix_x1_trans.svg   what each lane receives (tc::ldmatrix_map)
//   06_ldmatrix_x4_a_rows.svg                       which lane points at which 8-half row of an A fragment
//                                                   (tc::ldmatrix_x4_a_source)
//   06_banks_{unpadded,padded,swizzled}.svg          one ldmatrix.x4 of A in the three stage layouts, bank by bank
//                                                   (tc::ldmatrix_cost on GemmTile::a_ldmatrix_offset)
//   06_swizzle_64B.svg                               where each 16-byte chunk of a 64-byte line is stored
//                                                   (tc::SmemLines<..., tc::Swizzled>::chunk)
//   06_pipeline.svg                                  step 3's cp.async timeline for Step3Tile::Stages stages
// docs/figures/06_*.svg are this function's output, written by 06_figures (or 06_ldmatrix_cp_async --svg DIR); a host
// test fails when the committed files differ from it. Host code (compiled by nvcc for the tile's constexpr
// functions); no GPU. Errors: none.
#pragma once

#include "gemm_tile.hpp"

#include "tc/layout_maps.hpp"
#include "tc/layouts/ldmatrix.hpp"
#include "tc/lane_map.hpp"
#include "tc/layouts/smem_banks.hpp"
#include "tc/main.hpp"  // tc::Figure
#include "tc/svg.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace figures {

using tc::svg::rect;
using tc::svg::text;

// A fragment rows: the 16 x 16 tile, each 8-half row segment labelled with the lane that points ldmatrix at it.
inline tc::LaneMap a_row_map() {
  tc::LaneMap map(16, 16, 8);
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    for (int c = 0; c < 8; ++c) {
      const tc::Coord s = tc::ldmatrix_x4_a_source(lane);
      map.at(lane, c) = {s.row, s.col + c};
    }
  return map;
}

// One ldmatrix.x4 of the A fragment at (row 0, k 0) in Tile's stage layout: its phases bank by bank.
template <typename Tile>
std::string a_bank_figure(const std::string& title) {
  std::vector<std::int64_t> rows;
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    rows.push_back(std::int64_t(Tile::a_ldmatrix_offset(0, 0, lane)) * int(sizeof(__half)));
  return tc::bank_svg(title, tc::ldmatrix_cost(rows));
}

// Lines 0..15 of a 64-byte-line tile: each line's 4 slots of 16 bytes, labelled with the logical chunk stored there;
// two lines share a 128-byte row of the 32 banks.
inline std::string swizzle_figure() {
  using L = tc::SmemLines<__half, 32, tc::Swizzled>;
  constexpr int kCellW = 82, kCellH = 22, kLeft = 96, kTop = 58, kLines = 16;
  std::string body = text(10, 20, "XOR swizzle of 64-byte lines (BlockK = 32): which k range each 16-byte slot holds",
                          " font-size=\"13\"");
  body += text(10, 38, "slot = chunk ^ ((line / 2) % 4); lines 2r and 2r+1 share one 128-byte row of banks");
  for (int b = 0; b < 8; ++b)
    body += text(kLeft + b * kCellW + kCellW / 2, kTop - 6,
                 "banks " + std::to_string(4 * b) + "-" + std::to_string(4 * b + 3), " text-anchor=\"middle\"");
  for (int line = 0; line < kLines; ++line) {
    const int y = kTop + line / 2 * kCellH, x0 = kLeft + line % 2 * 4 * kCellW;
    if (line % 2 == 0) body += text(kLeft - 6, y + 15, "lines " + std::to_string(line) + "," + std::to_string(line + 1),
                                    " text-anchor=\"end\"");
    for (int chunk = 0; chunk < L::kChunks; ++chunk) {
      const int slot = L::chunk(line, chunk);
      body += rect(x0 + slot * kCellW, y, kCellW, kCellH, tc::svg::colour(chunk));
      body += text(x0 + slot * kCellW + kCellW / 2, y + 15,
                   "L" + std::to_string(line) + " k" + std::to_string(8 * chunk) + "-" + std::to_string(8 * chunk + 7),
                   " text-anchor=\"middle\"");
    }
  }
  const int h = kTop + kLines / 2 * kCellH + 40;
  body += text(10, h - 14,
               "one ldmatrix phase: one k range (one colour) from 8 consecutive lines = 8 different bank groups");
  return tc::svg::document(kLeft + 8 * kCellW + 20, h, body);
}

// Step 3's pipeline: a row per slice, its copy in flight from the iteration that issues it to the one that computes
// it; a column per iteration of the main loop, each starting with wait_group<Stages - 2> and one __syncthreads().
inline std::string pipeline_figure(int stages, int slices) {
  constexpr int kColW = 92, kRowH = 24, kLeft = 120, kTop = 78;
  const int cols = slices + stages - 1;  // the prologue's Stages - 1 columns, then one per slice
  std::string body = text(10, 20,
                          "cp.async pipeline, Stages = " + std::to_string(stages) + ": " + std::to_string(stages - 1) +
                              " slices in flight while the tensor cores work on the oldest",
                          " font-size=\"13\"");
  body += text(10, 38,
               "iteration s: issue slice s+" + std::to_string(stages - 1) +
                   " into the buffer of s-1, compute slice s; at its last K step wait_group<" +
                   std::to_string(stages - 2) + "> (slice s+1 landed), __syncthreads(), load s+1's first fragments");
  for (int c = 0; c < cols; ++c) {
    const int it = c - (stages - 1);
    body += text(kLeft + c * kColW + kColW / 2, kTop - 10, it < 0 ? "prologue" : "iteration " + std::to_string(it),
                 " text-anchor=\"middle\"");
  }
  for (int s = 0; s < slices; ++s) {
    const int y = kTop + s * kRowH;
    body += text(kLeft - 8, y + 16, "slice " + std::to_string(s) + " (buf " + std::to_string(s % stages) + ")",
                 " text-anchor=\"end\"");
    const int issue_col = s;  // the prologue issues slices 0..Stages-2, iteration i issues slice i + Stages - 1
    const int compute_col = s + stages - 1;
    body += rect(kLeft + issue_col * kColW + 2, y + 2, (compute_col - issue_col) * kColW - 4, kRowH - 4,
                 tc::svg::colour(s % stages));
    body += text(kLeft + issue_col * kColW + 6, y + 16, "cp.async in flight");
    body += rect(kLeft + compute_col * kColW + 2, y + 2, kColW - 4, kRowH - 4, "#999");
    body += text(kLeft + compute_col * kColW + kColW / 2, y + 16, "mma.sync", " text-anchor=\"middle\" fill=\"white\"");
  }
  for (int c = stages - 1; c < cols; ++c)  // the barrier at the top of every iteration
    body += tc::svg::barrier_line(kLeft + c * kColW, kTop - 4, kTop + slices * kRowH);
  const int h = kTop + slices * kRowH + 30;
  body += text(10, h - 10, "red dashes: wait_group + __syncthreads() (drawn at the iteration boundary); a buffer is "
                           "refilled only after the barrier that follows its last read");
  return tc::svg::fitted_document(kLeft + cols * kColW + 20, h, body);
}

}  // namespace figures

inline std::vector<tc::Figure> chapter_figures() {
  using Flat = GemmTile<128, 128, 32, 2, 4, 2, tc::Padded<0>>;
  return {
      {"06_ldmatrix_x1.svg", tc::ldmatrix_map(1, false).to_svg("ldmatrix .x1: lane T receives elements e0, e1", "e")},
      {"06_ldmatrix_x1_trans.svg",
       tc::ldmatrix_map(1, true).to_svg("ldmatrix .x1.trans: lane T receives elements e0, e1", "e")},
      {"06_ldmatrix_x4_a_rows.svg",
       figures::a_row_map().to_svg("ldmatrix.x4 for m16n8k16 A: lane T points at the 8-half row it labels")},
      {"06_banks_unpadded.svg", figures::a_bank_figure<Flat>("one ldmatrix.x4 of A, unpadded 64-byte lines")},
      {"06_banks_padded.svg", figures::a_bank_figure<Step1Tile>("one ldmatrix.x4 of A, lines padded to 80 bytes")},
      {"06_banks_swizzled.svg", figures::a_bank_figure<Step3Tile>("one ldmatrix.x4 of A, XOR-swizzled 64-byte lines")},
      {"06_swizzle_64B.svg", figures::swizzle_figure()},
      {"06_pipeline.svg", figures::pipeline_figure(Step3Tile::Stages, 6)},
  };
}
