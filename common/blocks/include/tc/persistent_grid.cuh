// The persistent grid of chapter 08's steps 2 to 5 (and of the chapters that take its kernel): how the host sizes it
// and plans its walk over the tiles of C.
//
// A persistent launch is as many blocks as fit at once, in clusters of Tile::ClusterM (resident_blocks), rounded
// down to whole groups of the tile order (persistent_blocks); the host plans which tiles the clusters walk
// (tile_plan: rows of one tile height, or of two for a tile with ShortM < BlockM) and enqueues the kernel
// (launch_on_persistent_grid). Host code; the kernels walk the plan with planned_tile. Preconditions: an SM 9.0
// GPU for the launch. Source: CUDA C++ Programming Guide, "Thread Block Clusters"; CUDA Runtime API,
// "cudaLaunchKernelEx", "cudaOccupancyMaxActiveClusters".
#pragma once

#include "tc/check.hpp"
#include "tc/dynamic_smem.hpp"
#include "tc/layouts/tile_order.hpp"
#include "tc/ws_tile.cuh"

#include <cuda_runtime.h>

#include <algorithm>

namespace tc {

// Tile rows walked together (grouped_tile): 16 A panels and 8 B panels per wave of 128 tiles. A sweep on the H200
// at 8192^3 (docs/08_warp_specialized_gemm.md, "The tile order") measured groups of 4, 8, 16 and 32 rows; 16 was
// fastest.
inline constexpr int kGroupTiles = 16;

// The walk of a tile of one height: cluster tiles of Tile::ClusterM M tiles by one N tile, one height, grouped order.
template <typename Tile>
HeightPlan uniform_plan(int m, int n) {
  return uniform_height_plan(m, n, Tile::BlockM, Tile::BlockN, Tile::ClusterM);
}

// Groups of kGroupTiles tile rows, counted in cluster-tile rows.
template <typename Tile>
inline constexpr int kGroupClusterRows = kGroupTiles / Tile::ClusterM > 1 ? kGroupTiles / Tile::ClusterM : 1;

// A launch of `blocks` blocks in clusters of Tile::ClusterM along x, with Tile's threads and shared memory: the
// configuration cudaLaunchKernelEx and cudaOccupancyMaxActiveClusters take. The attribute lives in the struct, which
// the configuration points into, so the struct is not copied once made.
template <typename Tile>
struct ClusterLaunch {
  cudaLaunchConfig_t config{};
  cudaLaunchAttribute cluster{};
  ClusterLaunch(int blocks, cudaStream_t stream) {
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(Tile::kThreads);
    config.dynamicSmemBytes = Tile::kSmemBytes;
    config.stream = stream;
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = Tile::ClusterM;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// How many blocks of kKernel run at once: as many clusters as the GPU can hold (cudaOccupancyMaxActiveClusters, which
// knows that a cluster must fit in one GPC), times the cluster size. Opts the kernel in to Tile's shared memory first
// (without it, above 48 KB, nothing fits). Cached per kernel (a template on the kernel itself: kernels of different
// input types share one signature). Errors: std::runtime_error when the GPU has too little shared memory;
// CudaError.
template <typename Tile, auto kKernel>
int resident_blocks(const char* name) {
  static const int blocks = [&] {
    opt_in_dynamic_shared_memory(kKernel, Tile::kSmemBytes, name);
    const ClusterLaunch<Tile> launch(Tile::ClusterM, nullptr);
    int clusters = 0;
    TC_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kKernel, &launch.config));
    return clusters * Tile::ClusterM;
  }();
  return blocks;
}

// The persistent grid: the resident clusters rounded down to whole group heights (kGroupTiles tile rows, in clusters),
// so that each wave of the strided walk covers a group's rows for a whole number of columns (8 x 8 cluster tiles on
// an H200, 16 x 8 tiles without clusters) instead of ending part-way down a column; then at most one block a tile.
// 132 SMs give 128 blocks: 4 SMs idle, and measured faster (docs/08_warp_specialized_gemm.md, "The tile order").
template <typename Tile>
int persistent_blocks(int resident, int cluster_tiles) {
  constexpr int kGroupClusters = kGroupTiles / Tile::ClusterM;
  const int clusters = resident / Tile::ClusterM;
  const int whole = clusters >= kGroupClusters ? clusters / kGroupClusters * kGroupClusters : clusters;
  return std::min(whole, cluster_tiles) * Tile::ClusterM;
}

// The walk of the m x n C for Tile on `clusters` clusters: one height, or two where Tile::ShortM < Tile::BlockM
// (plan_tile_heights).
template <typename Tile>
HeightPlan tile_plan(int m, int n, int clusters) {
  if constexpr (Tile::kTwoHeights)
    return plan_tile_heights(m, n, Tile::BlockM, Tile::ShortM, Tile::BlockN, Tile::ClusterM, clusters);
  else
    return uniform_plan<Tile>(m, n);
}

// Enqueues kKernel, a kernel taking (map_a, map_b, m, n, k, alpha, beta, out, plan) as chapter 08's steps 2 to 5 do,
// then `extra` (chapter 09's block scales), on persistent_blocks blocks in clusters of Tile::ClusterM, walking
// tile_plan. Shapes and preconditions: as that kernel's. Errors: std::runtime_error when the GPU has too little shared
// memory; std::invalid_argument from the tensor maps; CudaError when the launch fails.
template <typename Tile, auto kKernel, typename Scalar, typename Input, typename Params, typename... Extra>
void launch_on_persistent_grid(const char* name, int m, int n, int k, Scalar alpha, const Input* A, int lda,
                               const Input* B, int ldb, Scalar beta, const Params& out, cudaStream_t stream,
                               const Extra&... extra) {
  const int resident = resident_blocks<Tile, kKernel>(name);
  const auto [map_a, map_b] = operand_maps<Tile>(m, n, k, A, lda, B, ldb);
  const HeightPlan plan = tile_plan<Tile>(m, n, persistent_blocks<Tile>(resident, 1 << 30) / Tile::ClusterM);
  const int blocks = persistent_blocks<Tile>(resident, plan.count());
  const ClusterLaunch<Tile> launch(blocks, stream);
  TC_CHECK(cudaLaunchKernelEx(&launch.config, kKernel, map_a, map_b, m, n, k, alpha, beta, out, plan, extra...));
}

}  // namespace tc
