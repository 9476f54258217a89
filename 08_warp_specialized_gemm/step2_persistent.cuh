// Chapter 08, step 2 -- persistent: one block per SM walks the output tiles, and the ring never drains between them.
//
// What it adds over step 1: step 1 launches one block per tile, so each block fills its ring from empty, drains it,
// writes its tile and exits, and the SM idles while the next block starts. Here the grid is as many blocks as fit at
// once (one per SM), and block b takes tiles b, b + blocks, b + 2 blocks, ... in grouped order (tc::grouped_tile:
// a wave of tiles shares a few panels of A and B, which stay in L2). The ring's counter runs on across tiles, so while
// the consumers write tile t's results, the producer is already loading tile t + blocks's first slices: the epilogue
// overlaps the next tile's loads.
// The kernel is written once for steps 2 to 5: Tile::ClusterM > 1 adds step 3's multicast (step3_cluster.cuh), the
// Epilogue is step 4's (step4_tma_store.cuh) or the direct one (ws_tile.cuh), and Tile::kTwoHeights walks step 5's
// rows of tall and short tiles (step5_taller_tile.cuh, tc::HeightPlan); steps 2 to 4 walk rows of one height. How
// the host sizes the grid and plans the walk: persistent_grid.cuh.
#pragma once

#include <type_traits>

#include "persistent_grid.cuh"
#include "tc/cluster.cuh"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/tile_order.hpp"
#include "tc/mbarrier.cuh"
#include "tc/tma_store.cuh"
#include "tc/warpgroup.cuh"
#include "ws_tile.cuh"

// [doc:persistent_kernel]
// gridDim.x blocks (a multiple of Tile::ClusterM) walk the tiles of the m x n C as `plan` cuts it (one height for
// steps 2 to 4, two for step 5); Epilogue::store writes each 64-row accumulator. Preconditions: maps made by
// operand_maps; plan.tall_m == Tile::BlockM and plan.short_m == Tile::ShortM; launched with clusters of Tile::ClusterM
// along x. Errors: none reported.
// Source: PTX ISA, "setmaxnreg", "mbarrier", "cp.async.bulk.tensor" (.multicast::cluster), "barrier.cluster",
// "wgmma.mma_async"; CUDA C++ Programming Guide, "Thread Block Clusters".
template <typename Tile, typename Input, typename Epilogue>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    persistent_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int m,
                           int n, int k, float alpha, float beta,
                           const __grid_constant__ typename Epilogue::Params out, const tc::HeightPlan plan) {
  constexpr int S = Tile::Stages, kCluster = Tile::ClusterM;
  extern __shared__ unsigned char smem_raw[];
  const WsSmem<Tile> smem(smem_raw);
  const int warpgroup = threadIdx.x / 128, slices = ceil_div(k, Tile::BlockK);
  const int rank = kCluster > 1 ? tc::cluster_ctarank() : 0;
  // The cluster tiles (kCluster M tiles by one N tile), walked by the clusters in grouped order.
  const int first = blockIdx.x / kCluster, stride = gridDim.x / kCluster;
  auto tile_at = [&](int t) { return tc::planned_tile(plan, kGroupClusterRows<Tile>, rank, t); };
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
      // One tile's slices: `a_boxes` boxes of A (Tile::kABoxRows rows each: the whole tile, or 64-row boxes of step
      // 5's tall or short tile; a compile-time count, as a runtime loop's addresses took the producer past its 24
      // registers) and this block's part of B.
      auto load_tile = [&](const tc::PlannedTile& tile, auto a_boxes) {
        constexpr int kABytes = decltype(a_boxes)::value * Tile::kABoxRows * Tile::kRowBytes;
        for (int s = 0; s < slices; ++s, ++it) {
          const tc::RingSlot slot = tc::ring_slot(it, S);
          tc::mbarrier_wait_parity(&smem.empty[slot.stage], tc::ring_empty_wait_parity(it, S));
          // This block's A boxes and all of B, whoever loads each part (tc/layouts/cluster.hpp).
          tc::mbarrier_arrive_expect_tx(&smem.full[slot.stage], tc::cluster_full_bytes(kABytes, Tile::kSliceBBytes));
#pragma unroll
          for (int r = 0; r < decltype(a_boxes)::value; ++r)
            tc::cp_async_bulk_tensor_2d_global_to_shared(smem.a(slot.stage) + r * Tile::kABoxRows * Tile::kRowBytes,
                                                         &map_a, s * Tile::BlockK, a_box_row<Tile>(tile.row, r),
                                                         &smem.full[slot.stage]);
          if constexpr (kCluster > 1) {  // step 3: this block's part of B, into every block of the cluster
            const int part = tc::cluster_b_part_first_row(rank, Tile::BlockN, kCluster);
            tc::cp_async_bulk_tensor_2d_global_to_shared_multicast(
                smem.b(slot.stage) + part * Tile::kRowBytes, &map_b, s * Tile::BlockK, tile.col + part,
                &smem.full[slot.stage], tc::cluster_multicast_mask(kCluster));
          } else {
            tc::cp_async_bulk_tensor_2d_global_to_shared(smem.b(slot.stage), &map_b, s * Tile::BlockK, tile.col,
                                                         &smem.full[slot.stage]);
          }
        }
      };
      using TallBoxes = std::integral_constant<int, Tile::BlockM / Tile::kABoxRows>;
      for (int t = first; t < plan.count(); t += stride) {
        const tc::PlannedTile tile = tile_at(t);
        if constexpr (Tile::kTwoHeights) {  // step 5: a short tile has fewer rows of A
          if (tile.height == Tile::ShortM)
            load_tile(tile, std::integral_constant<int, Tile::ShortM / Tile::kABoxRows>{});
          else
            load_tile(tile, TallBoxes{});
        } else {
          load_tile(tile, TallBoxes{});
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
    // This consumer's part of the tile (ws_tile.cuh): 64 rows of A and all of B, or (step 5) all of A and half of B.
    const int row0 = Tile::kSplitN ? 0 : consumer * Tile::kConsumerRows;
    const int col0 = Tile::kSplitN ? consumer * Tile::kConsumerCols : 0;
    const std::uint64_t a_first = tc::slice_descriptor(tc::shared_address(smem.a(0)) + row0 * Tile::kRowBytes, 0);
    const std::uint64_t b_first = tc::slice_descriptor(tc::shared_address(smem.b(0)) + col0 * Tile::kRowBytes, 0);
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
    // Cluster tile t: its slices through the ring, then its epilogue. `it` counts slices over all this block's tiles.
    // Step 5's short tile uses the first kShortRowBlocks of the tall tile's accumulators, on the same code path: with
    // a path per height ptxas spilled. Step 5 stages its epilogue in the tile's last stage (WsTile::kStageStaging) and
    // releases that stage during the next tile's first slice, once the TMA stores have read it.
    int it = 0;
    int held = -1;  // the stage this consumer's last epilogue staged C in and has not released yet; -1: none
    auto run_tile = [&](int t) {
      constexpr int RB = Tile::kRowBlocks, kShort = Tile::kShortRowBlocks;
      const bool tall = !Tile::kTwoHeights || t < plan.tall_count();
      float acc[RB][Tile::kConsumerCols / 2] = {};
      for (int s = 0; s < slices; ++s, ++it) {
        const tc::RingSlot slot = tc::ring_slot(it, S);
        tc::mbarrier_wait_parity_at(full_first + 8u * slot.stage, slot.parity);
        const std::uint32_t stage_offset = slot.stage * Tile::kStageBytes;
        const std::uint64_t a = tc::advance_wgmma_descriptor(a_first, stage_offset);
        const std::uint64_t b = tc::advance_wgmma_descriptor(b_first, stage_offset);
        if (Tile::kTwoHeights && !tall)  // acc's first kShort rows, as an array of their own
          tc::mma_slice_row_blocks<kShort, Tile::kConsumerCols, Input>(
              reinterpret_cast<float(&)[kShort][Tile::kConsumerCols / 2]>(acc), a, b);
        else
          tc::mma_slice_row_blocks<RB, Tile::kConsumerCols, Input>(acc, a, b);
        tc::wgmma_wait_group<1>();  // slice s - 1's group is done: its stage is no longer read by this warpgroup
        if (s > 0 && leader) release(tc::ring_slot(it - 1, S).stage);
        if (Tile::kStageStaging && s == 0 && held >= 0) {
          // The previous tile's staging stage goes back once the TMA stores have read it (the leader issued them
          // all, so its wait covers them). Here, a slice into the next tile, the stores have drained meanwhile.
          if (leader) {
            tc::cp_async_bulk_wait_group_read<0>();
            release(held);
          }
          held = -1;
        }
      }
      tc::wgmma_wait_group<0>();  // the tile's last group has written acc, and read its stage
      unsigned char* staging = smem.epilogue;
      if (slices > 0) {
        const int last = tc::ring_slot(it - 1, S).stage;
        if constexpr (Tile::kStageStaging) {
          staging = smem.b(last);  // + consumer x kBytesPerConsumer: this consumer's half of B, which it alone read
          held = last;
        } else if (leader) {
          release(last);
        }
      } else if constexpr (Tile::kStageStaging) {
        staging = smem.b(0);  // k = 0: no slice is ever loaded, so any stage is free
      }
      const tc::PlannedTile tile = tile_at(t);
#pragma unroll
      for (int r = 0; r < RB; ++r)
        if (r < kShort || tall)
          Epilogue::template store<Tile::kConsumerCols>(out, acc[r], m, n, tile.row + row0 + 64 * r, tile.col + col0,
                                                        alpha, beta, consumer, staging, r);
    };
    for (int t = first; t < plan.count(); t += stride) run_tile(t);
    Epilogue::finish(out, consumer);
  }
  // A block leaves only when no peer can still multicast into it or arrive on its barriers: after every peer's
  // consumers have made their last release (their arrivals precede the barrier; step 5's last staging stage is never
  // released, as no load waits for it).
  if constexpr (kCluster > 1) {
    __syncwarp();  // warp 0 reconverges after thread 0's loop: barrier.cluster is .aligned
    tc::cluster_sync();
  }
}
// [/doc:persistent_kernel]

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
