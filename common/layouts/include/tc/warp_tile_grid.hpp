// One warp per output tile: the launch geometry of the naive WMMA GEMMs (chapters 02 and 03).
//
// A block is WarpsM x WarpsN warps laid out as blockDim = (WarpsM * 32, WarpsN): x walks down M in whole warps (32
// consecutive threads share one tile row), y walks across N. Each warp computes one TileM x TileN tile of C, so a
// block covers a (WarpsM * TileM) x (WarpsN * TileN) patch, and the grid is rounded up to whole blocks (edge warps
// find their tile outside C and exit). The kernels, the host tests of the grid and the figure in docs/02 all use these
// functions. Units: tiles for warp_tile_of, elements for grid(). Source: Lei Mao, "NVIDIA Tensor Core Programming"
// (the grid arithmetic), after NVIDIA's "Programming Tensor Cores in CUDA 9".
#pragma once

#include "tc/layouts/lane_ids.hpp"  // tc::Coord, tc::kWarpSize

#include <cuda_runtime_api.h>

namespace tc {

// [doc:warp_tile_of]
// Which output tile (tile_m, tile_n) -- in units of tiles -- the warp of thread (block, thread) computes.
__host__ __device__ inline Coord warp_tile_of(dim3 block_index, dim3 block_dim, dim3 thread_index) {
  return {int((block_index.x * block_dim.x + thread_index.x) / kWarpSize),
          int(block_index.y * block_dim.y + thread_index.y)};
}
// [/doc:warp_tile_of]

template <int WarpsM, int WarpsN>
struct WarpPerTileGrid {
  static_assert(WarpsM >= 1 && WarpsN >= 1, "a block needs at least one warp");
  static_assert(WarpsM * WarpsN * kWarpSize <= 1024, "a block has at most 1024 threads");
  static constexpr int kWarpsM = WarpsM;
  static constexpr int kWarpsN = WarpsN;

  // [doc:warp_grid]
  static dim3 block() { return dim3(WarpsM * kWarpSize, WarpsN); }
  // Enough blocks to give every tile_m x tile_n tile of the m x n output a warp (rounded up; edge warps exit).
  static dim3 grid(int m, int n, int tile_m, int tile_n) {
    const int tiles_m = (m + tile_m - 1) / tile_m;
    const int tiles_n = (n + tile_n - 1) / tile_n;
    return dim3((tiles_m + WarpsM - 1) / WarpsM, (tiles_n + WarpsN - 1) / WarpsN);
  }
  // [/doc:warp_grid]
};

}  // namespace tc
