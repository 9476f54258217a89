// Chapter 08, step 3 -- clusters: two blocks stacked along M share one B tile through TMA multicast.
//
// What it adds over step 2: the two blocks of a cluster compute the M tiles 2r and 2r + 1 of the same N column, so
// both need the same 256 x 64 slice of B every K step. Each now loads only its half of it (128 rows) and multicasts
// that half into both blocks' shared memory: per block and slice, the TMA reads 16 KB of A and 16 KB of B from L2
// instead of 16 + 32, a third less, and L2 serves each B line once per cluster (tc/layouts/cluster.hpp).
// The price is coupling. A block's stage is written by both producers, so it may be refilled only when the consumers
// of both blocks have released it: each consumer arrives on the "empty" barrier of every block (a remote arrive
// through mapa), and "empty" expects 2 x 2 arrivals (tc::simulate_cluster_ring models it, and catches the version
// that releases only its own block). The barriers must exist before a peer's multicast completes on them
// (fence.mbarrier_init.release.cluster, then a cluster barrier), and a block must not exit while a peer may still
// multicast into it or arrive on its barriers (a cluster barrier at the end). The launch is step 2's, with clusters
// of Tile::ClusterM blocks along x (tc::launch_on_persistent_grid).
#pragma once

#include "ws_tile.cuh"

#include "tc/cluster.cuh"
#include "tc/layouts/cluster.hpp"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/tile_order.hpp"
#include "tc/mbarrier.cuh"
#include "tc/persistent_grid.cuh"
#include "tc/warpgroup.cuh"

// [doc:step3_kernel]
// gridDim.x blocks (a multiple of Tile::ClusterM) walk the cluster tiles of the m x n C as `plan` cuts it (ClusterM
// tiles along M by one along N); each consumer writes its 64 x 256 part of a tile with DirectEpilogue. Preconditions:
// maps made by tc::operand_maps; plan made by tc::tile_plan<Tile>; launched with clusters of Tile::ClusterM along x.
// Errors: none reported. Source: PTX ISA, "setmaxnreg", "mbarrier", "cp.async.bulk.tensor" (.multicast::cluster),
// "barrier.cluster", "mapa", "wgmma.mma_async"; CUDA C++ Programming Guide, "Thread Block Clusters".
template <typename Tile, typename Input>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    cluster_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int m,
                        int n, int k, float alpha, float beta, const __grid_constant__ DirectEpilogue::Params out,
                        const tc::HeightPlan plan) {
  constexpr int S = Tile::Stages, kCluster = Tile::ClusterM;
  static_assert(kCluster == 2, "step 3 is the 2-block cluster");
  extern __shared__ unsigned char smem_raw[];
  const tc::WsSmem<Tile> smem(smem_raw);
  const int warpgroup = tc::warpgroup_index(), slices = tc::ceil_div(k, Tile::BlockK), rank = tc::cluster_ctarank();
  // The cluster tiles (kCluster M tiles by one N tile), walked by the clusters in grouped order.
  const int first = blockIdx.x / kCluster, stride = gridDim.x / kCluster;
  auto tile_at = [&](int t) { return tc::planned_tile(plan, tc::kGroupClusterRows<Tile>, rank, t); };
  if (threadIdx.x == 0) {
    for (int i = 0; i < S; ++i) {
      tc::mbarrier_init(&smem.full[i], 1);  // the producer's arrival, plus every part's bytes
      tc::mbarrier_init(&smem.empty[i], tc::cluster_empty_arrivals(Tile::kConsumers, kCluster));
    }
    tc::fence_mbarrier_init_release_cluster();  // visible to the TMA unit and to the peers' remote arrivals
  }
  // No thread waits on a barrier before it exists, and no peer multicasts into this block or arrives on its barriers
  // before they exist either: the cluster barrier orders the peers' first use after the init.
  tc::cluster_sync();

  if (warpgroup == 0) {
    tc::setmaxnreg_dec<Tile::kProducerRegisters>();  // all 128 threads: setmaxnreg is warpgroup-wide
    if (threadIdx.x == 0) {
      int it = 0;  // slices this block has loaded, over all its tiles: the ring's counter
      for (int t = first; t < plan.count(); t += stride) {
        const tc::PlannedTile tile = tile_at(t);
        for (int s = 0; s < slices; ++s, ++it) {
          const tc::RingSlot slot = tc::ring_slot(it, S);
          tc::mbarrier_wait_parity(&smem.empty[slot.stage], tc::ring_empty_wait_parity(it, S));
          // This block's A and all of B, whoever loads each part (tc/layouts/cluster.hpp).
          tc::mbarrier_arrive_expect_tx(&smem.full[slot.stage],
                                        tc::cluster_full_bytes(Tile::kSliceABytes, Tile::kSliceBBytes));
          tc::cp_async_bulk_tensor_2d_global_to_shared(smem.a(slot.stage), &map_a, s * Tile::BlockK, tile.row,
                                                       &smem.full[slot.stage]);
          // This block's part of B, into every block of the cluster.
          const int part = tc::cluster_b_part_first_row(rank, Tile::BlockN, kCluster);
          tc::cp_async_bulk_tensor_2d_global_to_shared_multicast(
              smem.b(slot.stage) + part * Tile::kRowBytes, &map_b, s * Tile::BlockK, tile.col + part,
              &smem.full[slot.stage], tc::cluster_multicast_mask(kCluster));
        }
      }
    }
  } else {
    tc::setmaxnreg_inc<Tile::kConsumerRegisters>();
    const int consumer = warpgroup - 1;
    const bool leader = threadIdx.x % 128 == 0;  // one thread per warpgroup releases its stages
    // What the slice loop would otherwise recompute every slice, computed once: stage 0's descriptors (a stage's are
    // kStageBytes further: tc::advance_wgmma_descriptor), the "full" barriers' address, and every rank's "empty"
    // barriers (barriers are 8 bytes apart).
    // This consumer's part of the tile: its 64 rows of A, and all of B.
    const int row0 = consumer * Tile::kConsumerRows;
    const std::uint64_t a_first = tc::slice_descriptor(tc::shared_address(smem.a(0)) + row0 * Tile::kRowBytes, 0);
    const std::uint64_t b_first = tc::slice_descriptor(tc::shared_address(smem.b(0)), 0);
    const std::uint32_t full_first = tc::shared_address(&smem.full[0]);
    std::uint32_t empty_first[kCluster];
#pragma unroll
    for (int r = 0; r < kCluster; ++r) empty_first[r] = tc::mapa_shared_cluster(&smem.empty[0], r);
    auto release = [&](int stage) {  // to this block's producer and to every peer's
#pragma unroll
      for (int r = 0; r < kCluster; ++r) tc::mbarrier_arrive_cluster(empty_first[r] + 8u * stage);
    };
    // Cluster tile t: its slices through the ring, then its epilogue. `it` counts slices over all this block's tiles.
    int it = 0;
    for (int t = first; t < plan.count(); t += stride) {
      constexpr int RB = Tile::kRowBlocks;  // 64-row accumulators a consumer holds: one (mma_slice_row_blocks)
      float acc[RB][Tile::kConsumerCols / 2] = {};
      for (int s = 0; s < slices; ++s, ++it) {
        const tc::RingSlot slot = tc::ring_slot(it, S);
        tc::mbarrier_wait_parity_at(full_first + 8u * slot.stage, slot.parity);
        const std::uint32_t stage_offset = slot.stage * Tile::kStageBytes;
        const std::uint64_t a = tc::advance_wgmma_descriptor(a_first, stage_offset);
        const std::uint64_t b = tc::advance_wgmma_descriptor(b_first, stage_offset);
        tc::mma_slice_row_blocks<RB, Tile::kConsumerCols, Input>(acc, a, b);
        tc::wgmma_wait_group<1>();  // slice s - 1's group is done: its stage is no longer read by this warpgroup
        if (s > 0 && leader) release(tc::ring_slot(it - 1, S).stage);
      }
      tc::wgmma_wait_group<0>();  // the tile's last group has written acc, and read its stage
      if (slices > 0 && leader) release(tc::ring_slot(it - 1, S).stage);
      const tc::PlannedTile tile = tile_at(t);
#pragma unroll
      for (int r = 0; r < RB; ++r)
        DirectEpilogue::store<Tile::kConsumerCols>(out, acc[r], m, n, tile.row + row0 + 64 * r, tile.col, alpha,
                                                   beta);
    }
  }
  // A block leaves only when no peer can still multicast into it or arrive on its barriers: after every peer's
  // consumers have made their last release (their arrivals precede the barrier).
  __syncwarp();  // warp 0 reconverges after thread 0's loop: barrier.cluster is .aligned
  tc::cluster_sync();
}
// [/doc:step3_kernel]

// [doc:step3_launch]
// Enqueues cluster_gemm_kernel on tc::persistent_blocks blocks in clusters of Tile::ClusterM.
struct Step3Cluster {
  static constexpr const char* name = "3 2-block clusters";
  static constexpr tc::OperandRule kCRule = tc::kScalarF32OperandRule;
  template <typename Tile, typename Precision>
  static void launch_kernel(int m, int n, int k, float alpha, const typename Precision::Input* A, int lda,
                            const typename Precision::Input* B, int ldb, float beta, float* C, int ldc,
                            cudaStream_t stream) {
    using Input = typename Precision::Input;
    tc::launch_on_persistent_grid<Tile, cluster_gemm_kernel<Tile, Input>>(name, m, n, k, alpha, A, lda, B, ldb, beta,
                                                                         DirectEpilogue::Params{C, ldc}, stream);
  }
};
using Step3Tile = tc::WsTile<4, 2>;
// [/doc:step3_launch]
