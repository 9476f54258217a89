// Chapter 11's figures, drawn from the layout functions and the problem's rules (no GPU):
//   11_s_accumulator.svg  which lane and register hold each element of S (64 x 32 of an m64n32k16 accumulator, fp32),
//                         warp 0's rows (tc::wgmma_d_map)
//   11_p_operand.svg      which lane and element hold each element of P as the A operand of P V's next wgmmas (two
//                         k16 steps from registers, 16-bit; tc::wgmma_a_registers_map): the same cells, slot for slot
//   11_causal_tiles.svg   with a causal mask, which key tiles each warpgroup's 64 query rows skip, take whole, or
//                         mask (key_tiles and tile_needs_mask, problem.hpp, as the kernels call them), for a square
//                         problem and for a chunk of queries against a longer context (the mask's bottom-right
//                         alignment)
// docs/figures/11_*.svg are this function's output, written by 11_figures; a host test fails when the committed
// files differ from it, and another when the two maps differ. Host code. Errors: none.
#pragma once

#include "problem.hpp"

#include "tc/layout_maps.hpp"
#include "tc/main.hpp"  // tc::Figure
#include "tc/svg.hpp"

#include <string>
#include <vector>

// One panel of 11_causal_tiles.svg at (x, y): a row a warpgroup (64 query rows; two a row block of 128), a column a
// key tile of 128, for seqlen_q sq and seqlen_k sk, causal. Returns the panel's SVG; *height gets its height.
inline std::string causal_tiles_panel(int x, int y, int sq, int sk, const std::string& title, int* height) {
  constexpr int kRows = 64, kBlockM = 128, kBlockN = 128, kCellW = 56, kCellH = 18, kLeft = 110;
  const int warpgroups = (sq + kRows - 1) / kRows, tiles = (sk + kBlockN - 1) / kBlockN;
  std::string body = tc::svg::text(x, y + 12, title);
  for (int t = 0; t < tiles; ++t)
    body += tc::svg::text(x + kLeft + kCellW * t + 4, y + 30, "k " + std::to_string(kBlockN * t));
  for (int w = 0; w < warpgroups; ++w) {
    const int row0 = kRows * w, block0 = kBlockM * (row0 / kBlockM), cy = y + 36 + kCellH * w;
    body += tc::svg::text(x, cy + 13, "q " + std::to_string(row0) + "-" + std::to_string(row0 + kRows - 1));
    // The row block loads key_tiles of it; each warpgroup of the block runs every one of them.
    const int loaded = attention::key_tiles(block0, kBlockM, kBlockN, sq, sk, true);
    for (int t = 0; t < tiles; ++t) {
      const char* fill = t >= loaded ? "#ffffff"
                         : attention::tile_needs_mask(row0, kBlockN * t, kBlockN, sq, sk, true) ? "#f4c542"
                                                                                                 : "#6fa8dc";
      body += tc::svg::rect(x + kLeft + kCellW * t, cy, kCellW, kCellH, fill);
    }
  }
  *height = 36 + kCellH * warpgroups + 10;
  return body;
}

// 11_causal_tiles.svg: a 640-token square problem, and 256 queries (the last chunk of a prefill) against 640 keys.
inline std::string causal_tiles_figure() {
  std::string body;
  const char* const kLegend[] = {"not loaded: past the row block's diagonal", "masked (tile_needs_mask)",
                                 "whole: no compare"};
  const char* const kFills[] = {"#ffffff", "#f4c542", "#6fa8dc"};
  for (int i = 0; i < 3; ++i) {
    body += tc::svg::rect(10, 10 + 20 * i, 14, 14, kFills[i]);
    body += tc::svg::text(30, 22 + 20 * i, kLegend[i]);
  }
  int y = 76, h = 0;
  body += causal_tiles_panel(10, y, 640, 640, "causal, seqlen_q = seqlen_k = 640: row block x loads x + 1 tiles", &h);
  y += h;
  body += causal_tiles_panel(10, y, 256, 640,
                             "causal, seqlen_q 256 against seqlen_k 640: aligned to the bottom right, query i sees "
                             "keys up to i + 384",
                             &h);
  return tc::svg::fitted_document(420, y + h, body);
}

inline std::vector<tc::Figure> chapter_figures() {
  return {
      {"11_s_accumulator.svg",
       tc::wgmma_d_map(32, 0).to_svg("S = Q K^T, an m64n32k16 fp32 accumulator, warp 0 (rows 0-15): lane T holds "
                                     "register s[i]; warp w holds rows 16w..16w+15 alike",
                                     "s")},
      {"11_p_operand.svg",
       tc::wgmma_a_registers_map(2, 0).to_svg("P as the A operand of P V's wgmmas (two k16 steps), warp 0: lane T "
                                              "holds element p[8t + i] of step t; the same cells as S's s[8t + i]",
                                              "p")},
      {"11_causal_tiles.svg", causal_tiles_figure()},
  };
}
