// Chapter 07's figures, drawn from the functions the kernels and probes use:
//   07_swizzle_modes.svg     where each 16-byte chunk of a 1024-byte atom lands in each mode (tc::swizzle_address),
//                            the pattern the TMA probe checks on the GPU
//   07_wgmma_accumulator.svg which lane and register hold each element of an m64nNk16 accumulator, warp 0's rows and
//                            the first 16 columns (tc::wgmma_d_map, the map the accumulator probe checks)
//   07_ring_timeline.svg     step 3's ring: each slice's stage, the "full" parity its consumers wait for and the
//                            "empty" parity its producer waits for (tc::ring_slot, tc::ring_empty_wait_parity)
// docs/figures/07_*.svg are this function's output, written by 07_figures (or 07_wgmma_tma --svg DIR); a host test
// fails when the committed files differ from it. Host code; no GPU. Errors: none.
#pragma once

#include "tc/layout_maps.hpp"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc/main.hpp"  // tc::Figure
#include "tc/svg.hpp"

#include <string>
#include <vector>

namespace figures {

// Step3Tile::Stages (step3_ring.cuh is CUDA, this header plain C++); the chapter's tests hold the two equal.
inline constexpr int kRingStages = 4;

using tc::svg::rect;
using tc::svg::text;

// One panel per mode: the 8 rows of 128 bytes of an aligned 1024-byte atom, each row's 8 slots of 16 bytes labelled
// with the logical chunk (of the same row) stored there and coloured by it.
inline std::string swizzle_modes_figure() {
  constexpr int kCell = 26, kPanelW = 8 * kCell + 40, kLeft = 50, kTop = 84;
  const tc::Swizzle modes[] = {tc::Swizzle::None, tc::Swizzle::B32, tc::Swizzle::B64, tc::Swizzle::B128};
  const char* names[] = {"none", "32B", "64B", "128B"};
  std::string body = text(10, 20,
                          "TMA's swizzle modes: the logical 16-byte chunk each slot of a 1024-byte atom (8 rows of 128 "
                          "bytes) holds",
                          " font-size=\"13\"");
  body += text(10, 38, "slot = chunk ^ (row & mask): mask 0, 1, 3, 7 (tc::swizzle_address; probed on the GPU)");
  for (int m = 0; m < 4; ++m) {
    const int x0 = kLeft + m * kPanelW;
    body += text(x0 + 4 * kCell, kTop - 26, names[m], " text-anchor=\"middle\" font-size=\"13\"");
    for (int slot = 0; slot < 8; ++slot)
      body += text(x0 + slot * kCell + kCell / 2, kTop - 6, std::to_string(slot), " text-anchor=\"middle\"");
    for (int row = 0; row < 8; ++row) {
      if (m == 0) {
        body += text(kLeft - 8, kTop + row * kCell + 17, "row " + std::to_string(row), " text-anchor=\"end\"");
      }
      for (int slot = 0; slot < 8; ++slot) {
        const int physical = row * 128 + slot * 16;
        const int chunk = int(tc::swizzle_address(modes[m], std::uint32_t(physical))) % 128 / 16;
        body += rect(x0 + slot * kCell, kTop + row * kCell, kCell, kCell, tc::svg::colour(chunk));
        body += text(x0 + slot * kCell + kCell / 2, kTop + row * kCell + 17, std::to_string(chunk),
                     " text-anchor=\"middle\"");
      }
    }
  }
  const int h = kTop + 8 * kCell + 36;
  body += text(10, h - 14, "128B: one chunk's 8 rows lie in 8 different slots, all 32 banks, one wavefront; 64B spreads "
                           "them over 4 slots, 32B over 2");
  return tc::svg::document(kLeft + 4 * kPanelW, h, body);
}

// Slices 0 .. slices-1 of a ring of `stages`: a column each, coloured by stage, with the parity each wait uses.
inline std::string ring_timeline_figure(int stages, int slices) {
  constexpr int kColW = 64, kRowH = 22, kLeft = 250, kTop = 60;
  const char* rows[] = {"stage (slice % S)", "full: consumers wait parity", "empty: producer waits parity",
                        "... which completes when"};
  std::string body = text(10, 20,
                          "step 3's mbarrier ring, S = " + std::to_string(stages) +
                              " stages: slice s uses stage s % S in its (s / S)-th round",
                          " font-size=\"13\"");
  body += text(10, 38, "a phase completes on the full barrier when the TMA bytes land; on the empty barrier when both "
                       "warpgroups have arrived");
  for (int r = 0; r < 4; ++r) body += text(kLeft - 8, kTop + 24 + r * kRowH + 15, rows[r], " text-anchor=\"end\"");
  for (int s = 0; s < slices; ++s) {
    const int x = kLeft + s * kColW;
    const tc::RingSlot slot = tc::ring_slot(s, stages);
    body += text(x + kColW / 2, kTop + 15, "slice " + std::to_string(s), " text-anchor=\"middle\"");
    const std::string cells[] = {std::to_string(slot.stage), std::to_string(slot.parity),
                                 std::to_string(tc::ring_empty_wait_parity(s, stages)),
                                 s < stages ? "at once" : "s-" + std::to_string(stages) + " freed"};
    for (int r = 0; r < 4; ++r) {
      body += rect(x, kTop + 24 + r * kRowH, kColW, kRowH, tc::svg::colour(slot.stage));
      body += text(x + kColW / 2, kTop + 24 + r * kRowH + 15, cells[r], " text-anchor=\"middle\"");
    }
  }
  const int h = kTop + 24 + 4 * kRowH + 40;
  body += text(10, h - 14, "round 0's empty waits pass at once: parity 1 names the phase before phase 0, which counts "
                           "as complete");
  return tc::svg::document(kLeft + slices * kColW + 20, h, body);
}

}  // namespace figures

inline std::vector<tc::Figure> chapter_figures() {
  return {
      {"07_swizzle_modes.svg", figures::swizzle_modes_figure()},
      {"07_wgmma_accumulator.svg",
       tc::wgmma_d_map(16, 0).to_svg("wgmma m64nNk16 D, warp 0 (rows 0-15), columns 0-15: lane T holds register d[i]; "
                                     "warp w holds rows 16w..16w+15 alike, columns 8j..8j+7 in d[4j..4j+3]",
                                     "d")},
      {"07_ring_timeline.svg", figures::ring_timeline_figure(figures::kRingStages, 12)},
  };
}
