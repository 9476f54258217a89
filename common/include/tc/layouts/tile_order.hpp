// The order in which a persistent kernel visits the output tiles of C: grouped ("swizzled") rasterisation, and what
// an order costs in L2.
//
// C of M x N is cut into tiles_m x tiles_n block tiles. A persistent kernel launches one block per SM; block b takes
// linear tiles b, b + blocks, b + 2 blocks, ... and grouped_tile(t) says which tile linear index t is. In row-major
// order one wave of `blocks` consecutive tiles spans whole rows of tiles: each tile row re-reads all of B. Grouped
// order walks `group` tile rows together, column by column (t = 0 is (0, 0), t = 1 is (1, 0), ..., t = group is
// (0, 1)), so a wave touches `group` panels of A and about blocks / group panels of B, and they stay in L2. The last
// group holds the tile_rows % group rows left over, walked the same way.
// Units: tiles (rows tile_m, columns tile_n of the tile grid); bytes for the footprint. Preconditions: tiles_m,
// tiles_n, group >= 1; 0 <= t < tiles_m * tiles_n. Errors: none (host and device code).
// Source: the rasterisation CUTLASS calls "swizzle" (cutlass/gemm/threadblock/threadblock_swizzle.h) and NVIDIA's
// "grouped ordering" in the Triton matrix-multiplication tutorial; written here from the definition above.
#pragma once

#include "tc/layouts/lane_ids.hpp"  // tc::Coord

#include <cuda_runtime_api.h>

#include <cstdint>
#include <set>

namespace tc {

struct TileGrid {
  int tiles_m = 1, tiles_n = 1;  // tile rows (along M) and tile columns (along N)
  __host__ __device__ constexpr int count() const { return tiles_m * tiles_n; }
};

// Tile (row, col) = (tile_m, tile_n) of linear index t in grouped order with groups of `group` tile rows.
__host__ __device__ constexpr Coord grouped_tile(TileGrid g, int group, int t) {
  const int per_group = group * g.tiles_n;          // tiles in one full group
  const int first_row = t / per_group * group;      // the group's first tile row
  const int rows = g.tiles_m - first_row < group ? g.tiles_m - first_row : group;  // the last group may be shorter
  const int in_group = t - first_row * g.tiles_n;   // position within the group, column by column
  return {first_row + in_group % rows, in_group / rows};
}

// Row-major order, for comparison: t = 0 is (0, 0), t = 1 is (0, 1), ...
__host__ __device__ constexpr Coord row_major_tile(TileGrid g, int t) { return {t / g.tiles_n, t % g.tiles_n}; }

// The L2 footprint of the wave of `blocks` tiles starting at linear index `first` under `order`: the bytes of the A
// row panels (tile_rows x K) and B column panels (tile_cols x K) its tiles read, each counted once.
// `panel_a_bytes` and `panel_b_bytes` are the bytes of one panel (BlockM x K and BlockN x K elements). Host only.
template <typename Order>
std::int64_t wave_footprint_bytes(Order order, int first, int blocks, int count, std::int64_t panel_a_bytes,
                                  std::int64_t panel_b_bytes) {
  std::set<int> rows, cols;
  for (int t = first; t < first + blocks && t < count; ++t) {
    const Coord c = order(t);
    rows.insert(c.row);
    cols.insert(c.col);
  }
  return std::int64_t(rows.size()) * panel_a_bytes + std::int64_t(cols.size()) * panel_b_bytes;
}

}  // namespace tc
