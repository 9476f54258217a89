// Chapter 10 -- the grouped GEMM's schedule (step 6): the tiles of every expert's GEMM in one numbering, so that one
// persistent launch walks them all.
//
// Sorted by expert, the routed rows make one GEMM per group: group g multiplies its M_g tokens (rows first_row[g] ..
// first_row[g + 1] - 1 of the sorted tokens) by its own weight W_g (weights x K, one shape for every expert). In the
// chapter's swap-AB form (suite.hpp) the weights are the kernel's M and the tokens its N, so group g is a
// weights x M_g GEMM, cut into ceil(weights / block_m) x ceil(M_g / block_n) tiles. The plan numbers the tiles group
// by group (prefix sums: group g's are first_tile[g] .. first_tile[g + 1] - 1), and group_tile turns a number back
// into the group and the tile's place: a binary search over the prefix sums, so that a block that takes tiles b,
// b + grid, ... finds each one in log2(groups) steps. An empty group has no tiles, and no block ever visits it.
// The plan is a kernel parameter (__grid_constant__), so its table has a fixed size: kMaxGroups groups.
// Host and device, pure. Errors (make_plan): std::invalid_argument for more than kMaxGroups groups, a negative size,
// or a weights or tile size below 1.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace grouped {

// The most groups one launch takes: 2 x 65 ints of prefix sums in the kernel's parameters (4 KB at most), enough
// for the suite's 64 experts.
inline constexpr int kMaxGroups = 64;

struct Plan {
  int groups = 0;
  int weights = 0;  // the kernel's M: the weights' rows, every group's
  int block_m = 64, block_n = 64;
  int row_tiles = 0;                   // ceil(weights / block_m)
  int first_row[kMaxGroups + 1] = {};  // group g's tokens: [first_row[g], first_row[g + 1])
  int first_tile[kMaxGroups + 1] = {}; // group g's tiles: [first_tile[g], first_tile[g + 1])
  __host__ __device__ constexpr int tiles() const { return first_tile[groups]; }
  __host__ __device__ constexpr int rows(int g) const { return first_row[g + 1] - first_row[g]; }
};

// One tile of the plan: its group, its first weight row (within the group's weight), its first token (in the sorted
// tokens) and how many of its block_n columns are the group's own tokens (the rest belong to the next group, or lie
// past the end: computed, never stored).
struct GroupTile {
  int group = 0;
  int row = 0;
  int col = 0;
  int cols = 0;
};

inline Plan make_plan(const std::vector<int>& sizes, int weights, int block_m, int block_n) {
  if (int(sizes.size()) > kMaxGroups)
    throw std::invalid_argument("grouped::make_plan: " + std::to_string(sizes.size()) + " groups, more than " +
                                std::to_string(kMaxGroups));
  if (weights < 1 || block_m < 1 || block_n < 1)
    throw std::invalid_argument("grouped::make_plan: weights and tile sizes must be >= 1");
  Plan p;
  p.groups = int(sizes.size());
  p.weights = weights;
  p.block_m = block_m;
  p.block_n = block_n;
  p.row_tiles = (weights + block_m - 1) / block_m;
  for (int g = 0; g < p.groups; ++g) {
    if (sizes[g] < 0) throw std::invalid_argument("grouped::make_plan: a group size below 0");
    p.first_row[g + 1] = p.first_row[g] + sizes[g];
    p.first_tile[g + 1] = p.first_tile[g] + p.row_tiles * ((sizes[g] + block_n - 1) / block_n);
  }
  return p;
}

// [doc:group_tile]
// Tile t of the plan (0 <= t < p.tiles()): the group whose range holds t (the last g with first_tile[g] <= t, which
// skips empty groups: their range is empty), then row-major within the group: the tile columns of a row of weights
// one after another, so that consecutive tiles share a weight panel in L2.
__host__ __device__ constexpr GroupTile group_tile(const Plan& p, int t) {
  int lo = 0, hi = p.groups - 1;  // invariant: first_tile[lo] <= t < first_tile[hi + 1]
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (p.first_tile[mid] <= t) lo = mid;
    else hi = mid - 1;
  }
  const int local = t - p.first_tile[lo];
  const int col_tiles = (p.rows(lo) + p.block_n - 1) / p.block_n;
  const int col_tile = local % col_tiles, row_tile = local / col_tiles;
  const int col = col_tile * p.block_n, left = p.rows(lo) - col;
  return {lo, row_tile * p.block_m, p.first_row[lo] + col, left < p.block_n ? left : p.block_n};
}
// [/doc:group_tile]

}  // namespace grouped
