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
// "grouped ordering" in the Triton matrix-multiplication tutorial; written here from the definition above. The plan of
// two tile heights (HeightPlan) is this project's own, from chapter 08's measurements (docs/08, step 5).
#pragma once

#include "tc/layouts/cluster.hpp"   // tc::cluster_tile_m, tc::cluster_tile_rows
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

// Two tile heights (chapter 08, step 5). A tall tile loads fewer bytes per multiply, but where its height does not
// divide M the last row of tiles is partly empty and the waves come out uneven. So M is cut into rows of cluster
// tiles of two heights: `tall_rows` rows of tall tiles from row 0, then `short_rows` rows of short ones (a cluster
// tile is `cluster` block tiles stacked along M). The blocks walk the tall region first, then the short one, each in
// grouped order. Units: rows and columns of C (elements), tile rows and columns. Host and device code.
struct HeightPlan {
  int tall_m = 1, short_m = 1;  // rows of one block tile of each height
  int block_n = 1;              // columns of a block tile
  int cluster = 1;              // block tiles a cluster tile stacks along M
  int tall_rows = 0, short_rows = 0;  // cluster-tile rows of each height
  int tile_cols = 1;                  // tile columns along N
  __host__ __device__ constexpr int tall_count() const { return tall_rows * tile_cols; }
  __host__ __device__ constexpr int count() const { return (tall_rows + short_rows) * tile_cols; }
  __host__ __device__ constexpr int short_row0() const { return tall_rows * cluster * tall_m; }  // C's row
};

// One block's tile of a plan: its first row and column of C, and its height (rows).
struct PlannedTile {
  int row = 0, col = 0, height = 0;
  constexpr bool operator==(const PlannedTile& o) const { return row == o.row && col == o.col && height == o.height; }
};

// Block `rank`'s tile of cluster tile t (0 <= t < p.count()): the tall region's tiles first, each region in grouped
// order with groups of `group` cluster-tile rows (grouped_tile).
__host__ __device__ constexpr PlannedTile planned_tile(const HeightPlan& p, int group, int rank, int t) {
  const bool tall = t < p.tall_count();
  const TileGrid region{tall ? p.tall_rows : p.short_rows, p.tile_cols};
  const Coord c = grouped_tile(region, group, tall ? t : t - p.tall_count());
  const int height = tall ? p.tall_m : p.short_m;
  return {(tall ? 0 : p.short_row0()) + cluster_tile_m(c.row, rank, p.cluster) * height, c.col * p.block_n, height};
}

// One height everywhere (steps 2 to 4): the cluster-tile rows that cover M, the last one perhaps over the edge.
__host__ __device__ constexpr HeightPlan uniform_height_plan(int m, int n, int block_m, int block_n, int cluster) {
  const int rows = cluster_tile_rows((m + block_m - 1) / block_m, cluster);
  return {block_m, block_m, block_n, cluster, rows, 0, (n + block_n - 1) / block_n};
}

// The rows of C that the busiest of `clusters` clusters computes when cluster c takes cluster tiles c, c + clusters,
// ... of the plan: the time of the launch, if a tile's time grows with its height. Host only.
inline int busiest_cluster_rows(const HeightPlan& p, int clusters) {
  int busiest = 0;
  for (int c = 0; c < clusters; ++c) {
    int rows = 0;
    for (int t = c; t < p.count(); t += clusters) rows += (t < p.tall_count() ? p.tall_m : p.short_m) * p.cluster;
    busiest = rows > busiest ? rows : busiest;
  }
  return busiest;
}

// [doc:plan_tile_heights]
// The plan for an m x n C on `clusters` clusters: of every split of M into tall rows then short rows (the last row
// perhaps over the edge), the one whose busiest cluster computes the fewest rows; among those, the one with the most
// tall rows, since a tall tile's rows cost less. Preconditions: m, n, clusters >= 1; short_m <= tall_m. Host only.
inline HeightPlan plan_tile_heights(int m, int n, int tall_m, int short_m, int block_n, int cluster, int clusters) {
  const int tall_height = tall_m * cluster, short_height = short_m * cluster;  // rows of C a cluster-tile row covers
  const int cols = (n + block_n - 1) / block_n;
  auto split = [&](int tall_rows) {  // tall_rows rows of tall tiles, then as many short rows as the rest of M needs
    const int left = m - tall_rows * tall_height;
    return HeightPlan{tall_m, short_m, block_n, cluster, tall_rows,
                      left > 0 ? (left + short_height - 1) / short_height : 0, cols};
  };
  HeightPlan best = split(0);
  int best_rows = busiest_cluster_rows(best, clusters);
  for (int tall_rows = 1; (tall_rows - 1) * tall_height < m; ++tall_rows) {
    const HeightPlan p = split(tall_rows);
    const int rows = busiest_cluster_rows(p, clusters);
    if (rows <= best_rows) best = p, best_rows = rows;  // <=: a tie goes to the plan with more tall rows
  }
  return best;
}
// [/doc:plan_tile_heights]

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
