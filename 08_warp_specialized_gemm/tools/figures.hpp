// Chapter 08's figures, drawn from the functions the kernels use:
//   08_producer_consumer.svg  steps 1-2's pipeline as a timeline: the producer's loads, each consumer's slices and
//                             epilogues, over two tiles of a persistent block. The stage of each slice is
//                             tc::ring_slot's; a load waits for both consumers to release its stage's previous slice
//                             (tc::ring_empty_wait_parity), a slice for its load. Durations are model units (a load
//                             lands 3 units after it is issued, a slice's wgmmas take 2, an epilogue 5), not
//                             measurements: the figure shows the order the barriers allow, and that the producer
//                             fills the next tile's stages while the consumers write the last one.
//   08_tile_order.svg         step 4's scheduler at 4096^3 on an H200: the 16 x 16 cluster tiles (256 x 256 of C
//                             each) in grouped order (tc::grouped_tile, groups of 8 cluster rows), numbered by visit,
//                             coloured by the wave of 64 clusters (persistent_blocks) that takes them.
// docs/figures/08_*.svg are this function's output, written by 08_figures; a host test fails when the committed files
// differ from it. Host code; no GPU. Errors: none.
#pragma once

#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/tile_order.hpp"
#include "tc/main.hpp"  // tc::Figure
#include "tc/svg.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace figures {

// The kernels' constants (their headers are CUDA, this one plain C++); the chapter's tests hold them equal.
inline constexpr int kStages = 4;           // WsTile's Stages
inline constexpr int kGroupTiles = 16;      // persistent_grid.cuh's kGroupTiles
inline constexpr int kClusterM = 2;         // Step4Tile::ClusterM
inline constexpr int kWaveClusters = 64;    // persistent_blocks on 132 SMs, in clusters

using tc::svg::rect;
using tc::svg::text;

// The timeline of one persistent block over `tiles` tiles of `slices` slices each (see above).
inline std::string producer_consumer_figure(int tiles, int slices) {
  constexpr int kLand = 3, kMath = 2, kEpilogue = 5, kIssue = 1, kUnit = 20, kLeft = 130, kTop = 70, kRowH = 26;
  const int total = tiles * slices;
  std::vector<int> issue(total), land(total), start(total), end(total), released(total);
  int consumer_free = 0, producer_free = 0;
  for (int i = 0; i < total; ++i) {  // slice i's load needs slice i - S released, which came earlier in this loop
    issue[i] = std::max(producer_free, i < kStages ? 0 : released[i - kStages]);
    producer_free = issue[i] + kIssue;
    land[i] = issue[i] + kLand;
    start[i] = std::max(consumer_free, land[i]);  // both consumers run in step: each its 64 rows of the same slice
    end[i] = start[i] + kMath;
    released[i] = end[i];
    consumer_free = end[i] + ((i + 1) % slices == 0 ? kEpilogue : 0);
  }
  const int horizon = consumer_free + 2;
  std::string body = text(10, 20,
                          "steps 1-2: one producer, two consumers, " + std::to_string(kStages) +
                              " stages, two tiles of 6 slices; colour: the slice's stage (tc::ring_slot)",
                          " font-size=\"13\"");
  body += text(10, 38, "a load waits on \"empty\" (both consumers released the stage's previous slice); a slice on "
                       "\"full\" (its load landed, " + std::to_string(kLand) + " units later)");
  body += text(10, 52, "model time units, not measurements");
  const char* rows[] = {"producer issues", "consumer 1", "consumer 2"};
  for (int r = 0; r < 3; ++r) body += text(kLeft - 8, kTop + r * kRowH + 17, rows[r], " text-anchor=\"end\"");
  for (int i = 0; i < total; ++i) {
    const tc::RingSlot slot = tc::ring_slot(i, kStages);
    const std::string label = std::to_string(i % slices);
    body += rect(kLeft + issue[i] * kUnit, kTop, kIssue * kUnit, kRowH - 4, tc::svg::colour(slot.stage));
    body += text(kLeft + issue[i] * kUnit + 4, kTop + 15, label);
    for (int c = 0; c < 2; ++c) {
      const int y = kTop + (1 + c) * kRowH;
      body += rect(kLeft + start[i] * kUnit, y, kMath * kUnit, kRowH - 4, tc::svg::colour(slot.stage));
      body += text(kLeft + start[i] * kUnit + 4, y + 15, label);
      if ((i + 1) % slices == 0) {
        body += rect(kLeft + end[i] * kUnit, y, kEpilogue * kUnit, kRowH - 4, "#dddddd");
        body += text(kLeft + end[i] * kUnit + 4, y + 15, "epilogue t" + std::to_string(i / slices));
      }
    }
  }
  const int h = kTop + 3 * kRowH + 40;
  body += text(10, h - 14, "while the consumers write tile 0 (grey), the producer has already loaded tile 1's first "
                           "stages: the persistent ring never drains");
  return tc::svg::document(std::max(kLeft + horizon * kUnit + 20, 960), h, body);
}

// The grouped order of a tiles_m x tiles_n grid of cluster tiles, each cell its visit index, coloured by its wave.
inline std::string tile_order_figure(int tiles_m, int tiles_n) {
  constexpr int kCell = 30, kLeft = 40, kTop = 70;
  const tc::TileGrid g{tiles_m, tiles_n};
  const int group = kGroupTiles / kClusterM;
  std::string body = text(10, 20,
                          "step 4's tile order at 4096^3: 16 x 16 cluster tiles (256 x 256 of C), grouped by " +
                              std::to_string(group) + " rows (tc::grouped_tile)",
                          " font-size=\"13\"");
  body += text(10, 38, "number: visit index t; colour: the wave of " + std::to_string(kWaveClusters) +
                           " clusters that takes it (cluster c takes t = c, c + 64, ...)");
  std::vector<int> at(g.count());
  for (int t = 0; t < g.count(); ++t) {
    const tc::Coord c = tc::grouped_tile(g, group, t);
    at[c.row * tiles_n + c.col] = t;
  }
  for (int r = 0; r < tiles_m; ++r)
    for (int c = 0; c < tiles_n; ++c) {
      const int t = at[r * tiles_n + c];
      body += rect(kLeft + c * kCell, kTop + r * kCell, kCell, kCell, tc::svg::colour(t / kWaveClusters));
      body += text(kLeft + c * kCell + kCell / 2, kTop + r * kCell + 19, std::to_string(t), " text-anchor=\"middle\"");
    }
  const int h = kTop + tiles_m * kCell + 40;
  body += text(10, h - 14, "a wave covers 8 rows x 8 columns of cluster tiles: 16 A panels and 8 B panels, where "
                           "row-major order would read 16 B panels");
  return tc::svg::fitted_document(kLeft + tiles_n * kCell + 20, h, body);
}

}  // namespace figures

inline std::vector<tc::Figure> chapter_figures() {
  return {
      {"08_producer_consumer.svg", figures::producer_consumer_figure(2, 6)},
      {"08_tile_order.svg", figures::tile_order_figure(16, 16)},
  };
}
