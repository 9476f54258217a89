// Chapter 08, step 2 -- persistent: one block per SM walks the output tiles, and the ring never drains between them.
//
// What it adds over step 1: step 1 launches one block per tile, so each block fills its ring from empty, drains it,
// writes its tile and exits, and the SM idles while the next block starts. Here the grid is as many blocks as fit at
// once (one per SM), and block b takes tiles b, b + blocks, b + 2 blocks, ... in grouped order (tc::grouped_tile:
// a wave of tiles shares a few panels of A and B, which stay in L2). The ring's counter runs on across tiles, so while
// the consumers write tile t's results, the producer is already loading tile t + blocks's first slices: the epilogue
// overlaps the next tile's loads.
// The kernel is written once for steps 2 to 4: Tile::ClusterM > 1 adds step 3's multicast (step3_cluster.cuh) and
// the Epilogue is step 4's (step4_tma_store.cuh) or the direct one (ws_tile.cuh).
#pragma once

#include <algorithm>

#include "tc/cluster.cuh"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/tile_order.hpp"
#include "tc/mbarrier.cuh"
#include "tc/warpgroup.cuh"
#include "ws_tile.cuh"

// Tile rows walked together (tc::grouped_tile): 16 A panels and 8 B panels per wave of 128 tiles. A sweep on the H200
// at 8192^3 (docs/08, "The tile order") measured groups of 4, 8, 16 and 32 rows; 16 was fastest.
inline constexpr int kGroupTiles = 16;

// The cluster tiles of the m x n C (Tile::ClusterM M tiles by one N tile), which the clusters walk in grouped order.
template <typename Tile>
__host__ __device__ tc::TileGrid cluster_tiles(int m, int n) {
  return {tc::cluster_tile_rows(ceil_div(m, Tile::BlockM), Tile::ClusterM), ceil_div(n, Tile::BlockN)};
}

// (row0, col0) of block `rank`'s tile of cluster tile t, the t-th in grouped order (kGroupTiles tile rows a group).
template <typename Tile>
__device__ tc::Coord persistent_tile_origin(const tc::TileGrid& tiles, int rank, int t) {
  constexpr int group = kGroupTiles / Tile::ClusterM > 1 ? kGroupTiles / Tile::ClusterM : 1;  // in cluster-tile rows
  const tc::Coord c = tc::grouped_tile(tiles, group, t);
  return {tc::cluster_tile_m(c.row, rank, Tile::ClusterM) * Tile::BlockM, c.col * Tile::BlockN};
}

// [doc:persistent_kernel]
// gridDim.x blocks (a multiple of Tile::ClusterM) walk the tiles of the m x n C; Epilogue::store writes each.
// Preconditions: maps made by operand_maps; launched with clusters of Tile::ClusterM along x. Errors: none reported.
// Source: PTX ISA, "setmaxnreg", "mbarrier", "cp.async.bulk.tensor" (.multicast::cluster), "barrier.cluster",
// "wgmma.mma_async"; CUDA C++ Programming Guide, "Thread Block Clusters".
template <typename Tile, typename Input, typename Epilogue>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    persistent_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int m,
                           int n, int k, float alpha, float beta,
                           const __grid_constant__ typename Epilogue::Params out) {
  constexpr int S = Tile::Stages, kCluster = Tile::ClusterM;
  extern __shared__ unsigned char smem_raw[];
  const WsSmem<Tile> smem(smem_raw);
  const int warpgroup = threadIdx.x / 128, slices = ceil_div(k, Tile::BlockK);
  const int rank = kCluster > 1 ? tc::cluster_ctarank() : 0;
  // The cluster tiles (kCluster M tiles by one N tile), walked by the clusters in grouped order.
  const tc::TileGrid tiles = cluster_tiles<Tile>(m, n);
  const int first = blockIdx.x / kCluster, stride = gridDim.x / kCluster;
  auto tile_origin = [&](int t) { return persistent_tile_origin<Tile>(tiles, rank, t); };
  if (threadIdx.x == 0) {
    for (int i = 0; i < S; ++i) {
      tc::mbarrier_init(&smem.full[i], 1);  // the producer's arrival, plus every part's bytes
      tc::mbarrier_init(&smem.empty[i], tc::cluster_empty_arrivals(Tile::kConsumers, kCluster));
    }
    tc::fence_mbarrier_init_release_cluster();  // visible to the TMA unit and to the peers' remote arrivals
  }
  // No thread waits on a barrier before it exists; with clusters, no peer multicasts into this block or arrives on
  // its barriers before they exist either (the cluster barrier orders the peers' first use after the init).
  if constexpr (kCluster > 1)
    tc::cluster_sync();
  else
    __syncthreads();

  if (warpgroup == 0) {
    tc::setmaxnreg_dec<Tile::kProducerRegisters>();
    if (threadIdx.x == 0) {
      int it = 0;  // slices this block has loaded, over all its tiles: the ring's counter
      for (int t = first; t < tiles.count(); t += stride) {
        const tc::Coord origin = tile_origin(t);
        for (int s = 0; s < slices; ++s, ++it) {
          const tc::RingSlot slot = tc::ring_slot(it, S);
          tc::mbarrier_wait_parity(&smem.empty[slot.stage], tc::ring_empty_wait_parity(it, S));
          // This block's A box and all of B, whoever loads each part (tc/layouts/cluster.hpp).
          tc::mbarrier_arrive_expect_tx(&smem.full[slot.stage],
                                        tc::cluster_full_bytes(Tile::kSliceABytes, Tile::kSliceBBytes));
          tc::cp_async_bulk_tensor_2d_global_to_shared(smem.a(slot.stage), &map_a, s * Tile::BlockK, origin.row,
                                                       &smem.full[slot.stage]);
          const int part = tc::cluster_b_part_first_row(rank, Tile::BlockN, kCluster);
          if constexpr (kCluster > 1) {  // step 3: this block's part of B, into every block of the cluster
            tc::cp_async_bulk_tensor_2d_global_to_shared_multicast(
                smem.b(slot.stage) + part * Tile::kRowBytes, &map_b, s * Tile::BlockK, origin.col + part,
                &smem.full[slot.stage], tc::cluster_multicast_mask(kCluster));
          } else {
            tc::cp_async_bulk_tensor_2d_global_to_shared(smem.b(slot.stage), &map_b, s * Tile::BlockK, origin.col,
                                                         &smem.full[slot.stage]);
          }
        }
      }
    }
  } else {
    tc::setmaxnreg_inc<Tile::kConsumerRegisters>();
    const int consumer = warpgroup - 1;
    const bool leader = threadIdx.x % 128 == 0;  // one thread per warpgroup releases its stages
    // What the slice loop would otherwise recompute every slice, computed once: stage 0's descriptors (a stage's are
    // kStageBytes further: tc::advance_wgmma_descriptor), the "full" barriers' address, and with clusters every
    // rank's "empty" barriers (barriers are 8 bytes apart).
    const std::uint64_t a_first =
        tc::slice_descriptor(tc::shared_address(smem.a(0)) + consumer * 64 * Tile::kRowBytes, 0);
    const std::uint64_t b_first = tc::slice_descriptor(tc::shared_address(smem.b(0)), 0);
    const std::uint32_t full_first = tc::shared_address(&smem.full[0]);
    std::uint32_t empty_first[kCluster];
#pragma unroll
    for (int r = 0; r < kCluster; ++r) empty_first[r] = kCluster > 1 ? tc::mapa_shared_cluster(&smem.empty[0], r) : 0;
    auto release = [&](int stage) {  // to this block's producer and, with clusters, to every peer's
      if constexpr (kCluster > 1) {
#pragma unroll
        for (int r = 0; r < kCluster; ++r) tc::mbarrier_arrive_cluster(empty_first[r] + 8u * stage);
      } else {
        tc::mbarrier_arrive(&smem.empty[stage]);
      }
    };
    int it = 0;
    for (int t = first; t < tiles.count(); t += stride) {
      const tc::Coord origin = tile_origin(t);
      float acc[Tile::kAccumulators] = {};
      for (int s = 0; s < slices; ++s, ++it) {
        const tc::RingSlot slot = tc::ring_slot(it, S);
        tc::mbarrier_wait_parity_at(full_first + 8u * slot.stage, slot.parity);
        const std::uint32_t stage_offset = slot.stage * Tile::kStageBytes;
        tc::mma_slice_descriptors<Tile::BlockN, Input>(acc, tc::advance_wgmma_descriptor(a_first, stage_offset),
                                                       tc::advance_wgmma_descriptor(b_first, stage_offset));
        tc::wgmma_wait_group<1>();  // slice s - 1's group is done: its stage is no longer read by this warpgroup
        if (s > 0 && leader) release(tc::ring_slot(it - 1, S).stage);
      }
      tc::wgmma_wait_group<0>();  // the tile's last group has written acc, and read its stage
      if (slices > 0 && leader) release(tc::ring_slot(it - 1, S).stage);
      Epilogue::template store<Tile::BlockN>(out, acc, m, n, origin.row + consumer * 64, origin.col, alpha, beta,
                                             consumer, smem.epilogue);
    }
    Epilogue::finish(out, consumer);
  }
  // A block leaves only when no peer can still multicast into it or arrive on its barriers: after every peer's
  // consumers have released their last stage (their arrivals precede the barrier).
  if constexpr (kCluster > 1) {
    __syncwarp();  // warp 0 reconverges after thread 0's loop: barrier.cluster is .aligned
    tc::cluster_sync();
  }
}
// [/doc:persistent_kernel]

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
// tc::CudaError.
template <typename Tile, auto kKernel>
int resident_blocks(const char* name) {
  static const int blocks = [&] {
    tc::opt_in_dynamic_shared_memory(kKernel, Tile::kSmemBytes, name);
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
// 132 SMs give 128 blocks: 4 SMs idle, and measured faster (docs/08, "The tile order").
template <typename Tile>
int persistent_blocks(int resident, int cluster_tiles) {
  constexpr int kGroupClusters = kGroupTiles / Tile::ClusterM;
  const int clusters = resident / Tile::ClusterM;
  const int whole = clusters >= kGroupClusters ? clusters / kGroupClusters * kGroupClusters : clusters;
  return std::min(whole, cluster_tiles) * Tile::ClusterM;
}

// Enqueues kKernel, a kernel of persistent_gemm_kernel's parameters (step 2-4's, or the ablation's), on
// persistent_blocks blocks in clusters of Tile::ClusterM. Shapes and preconditions: as that kernel's. Errors:
// std::runtime_error when the GPU has too little shared memory; std::invalid_argument from the tensor maps;
// tc::CudaError when the launch fails.
template <typename Tile, auto kKernel, typename Input, typename Params>
void launch_on_persistent_grid(const char* name, int m, int n, int k, float alpha, const Input* A, int lda,
                               const Input* B, int ldb, float beta, const Params& out, cudaStream_t stream) {
  const int resident = resident_blocks<Tile, kKernel>(name);
  const auto [map_a, map_b] = operand_maps<Tile>(m, n, k, A, lda, B, ldb);
  const int blocks = persistent_blocks<Tile>(resident, cluster_tiles<Tile>(m, n).count());
  const ClusterLaunch<Tile> launch(blocks, stream);
  TC_CHECK(cudaLaunchKernelEx(&launch.config, kKernel, map_a, map_b, m, n, k, alpha, beta, out));
}

// [doc:persistent_launch]
// Enqueues persistent_gemm_kernel<Tile, Input, Epilogue> on persistent_blocks blocks.
template <typename Tile, typename Input, typename Epilogue>
void launch_persistent(const char* name, int m, int n, int k, float alpha, const Input* A, int lda, const Input* B,
                       int ldb, float beta, const typename Epilogue::Params& out, cudaStream_t stream) {
  launch_on_persistent_grid<Tile, persistent_gemm_kernel<Tile, Input, Epilogue>>(name, m, n, k, alpha, A, lda, B, ldb,
                                                                                 beta, out, stream);
}

struct Step2Persistent {
  static constexpr const char* name = "2 persistent";
  static constexpr tc::OperandRule kCRule = tc::kScalarF32OperandRule;
  template <typename Tile, typename Precision>
  static void launch_kernel(int m, int n, int k, float alpha, const typename Precision::Input* A, int lda,
                            const typename Precision::Input* B, int ldb, float beta, float* C, int ldc,
                            cudaStream_t stream) {
    launch_persistent<Tile, typename Precision::Input, DirectEpilogue>(name, m, n, k, alpha, A, lda, B, ldb, beta,
                                                                       {C, ldc}, stream);
  }
};
using Step2Tile = WsTile<4>;
// [/doc:persistent_launch]
