// Chapter 08, step 2 -- persistent: one block per SM walks the output tiles, and the ring never drains between them.
//
// What it adds over step 1: step 1 launches one block per tile, so each block fills its ring from empty, drains it,
// writes its tile and exits, and the SM idles while the next block starts. Here the grid is as many blocks as fit at
// once (one per SM), and block b takes tiles b, b + blocks, b + 2 blocks, ... in grouped order (tc::grouped_tile:
// a wave of tiles shares a few panels of A and B, which stay in L2). The ring's counter runs on across tiles, so while
// the consumers write tile t's results, the producer is already loading tile t + blocks's first slices: the epilogue
// overlaps the next tile's loads. The consumers also stop encoding descriptors every slice: they encode stage 0's
// once and advance them by the stage's offset (tc::mma_slice_row_blocks). How the host sizes the grid and plans the
// walk: tc/persistent_grid.cuh.
#pragma once

#include "ws_tile.cuh"

#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/tile_order.hpp"
#include "tc/mbarrier.cuh"
#include "tc/persistent_grid.cuh"
#include "tc/warpgroup.cuh"

// [doc:step2_kernel]
// gridDim.x blocks walk the tiles of the m x n C as `plan` cuts it (rows of BlockM-high tiles, tc::uniform_plan);
// each consumer writes its 64 x 256 part of a tile with DirectEpilogue. Preconditions: Tile::ClusterM == 1; maps made
// by tc::operand_maps; plan made by tc::tile_plan<Tile>. Errors: none reported. Source: PTX ISA, "setmaxnreg",
// "mbarrier", "cp.async.bulk.tensor", "wgmma.mma_async".
template <typename Tile, typename Input>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    persistent_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int m,
                           int n, int k, float alpha, float beta, const __grid_constant__ DirectEpilogue::Params out,
                           const tc::HeightPlan plan) {
  static_assert(Tile::ClusterM == 1, "step 2 has no clusters");
  constexpr int S = Tile::Stages;
  extern __shared__ unsigned char smem_raw[];
  const tc::WsSmem<Tile> smem(smem_raw);
  const int warpgroup = tc::warpgroup_index(), slices = tc::ceil_div(k, Tile::BlockK);
  // The tiles, walked by the blocks in grouped order: block b takes b, b + gridDim.x, ...
  const int first = blockIdx.x, stride = gridDim.x;
  auto tile_at = [&](int t) { return tc::planned_tile(plan, tc::kGroupClusterRows<Tile>, 0, t); };
  if (threadIdx.x == 0) {
    for (int i = 0; i < S; ++i) {
      tc::mbarrier_init(&smem.full[i], 1);                  // the producer's arrival, plus the bytes
      tc::mbarrier_init(&smem.empty[i], Tile::kConsumers);  // one arrival per consumer warpgroup
    }
    tc::fence_mbarrier_init_release_cluster();  // initialised before the TMA unit completes on them
  }
  __syncthreads();  // no thread waits on a barrier before it exists

  if (warpgroup == 0) {
    tc::setmaxnreg_dec<Tile::kProducerRegisters>();  // all 128 threads: setmaxnreg is warpgroup-wide
    if (threadIdx.x == 0) {
      int it = 0;  // slices this block has loaded, over all its tiles: the ring's counter
      for (int t = first; t < plan.count(); t += stride) {
        const tc::PlannedTile tile = tile_at(t);
        for (int s = 0; s < slices; ++s, ++it) {
          const tc::RingSlot slot = tc::ring_slot(it, S);
          tc::mbarrier_wait_parity(&smem.empty[slot.stage], tc::ring_empty_wait_parity(it, S));
          tc::mbarrier_arrive_expect_tx(&smem.full[slot.stage], Tile::kStageBytes);
          tc::cp_async_bulk_tensor_2d_global_to_shared(smem.a(slot.stage), &map_a, s * Tile::BlockK, tile.row,
                                                       &smem.full[slot.stage]);
          tc::cp_async_bulk_tensor_2d_global_to_shared(smem.b(slot.stage), &map_b, s * Tile::BlockK, tile.col,
                                                       &smem.full[slot.stage]);
        }
      }
    }
  } else {
    tc::setmaxnreg_inc<Tile::kConsumerRegisters>();
    const int consumer = warpgroup - 1;
    const bool leader = threadIdx.x % 128 == 0;  // one thread per warpgroup releases its stages
    // What the slice loop would otherwise recompute every slice, computed once: stage 0's descriptors (a stage's are
    // kStageBytes further: tc::advance_wgmma_descriptor) and the "full" barriers' address (8 bytes apart).
    // This consumer's part of the tile: its 64 rows of A, and all of B.
    const int row0 = consumer * Tile::kConsumerRows;
    const std::uint64_t a_first = tc::slice_descriptor(tc::shared_address(smem.a(0)) + row0 * Tile::kRowBytes, 0);
    const std::uint64_t b_first = tc::slice_descriptor(tc::shared_address(smem.b(0)), 0);
    const std::uint32_t full_first = tc::shared_address(&smem.full[0]);
    // Tile t: its slices through the ring, then its epilogue. `it` counts slices over all this block's tiles.
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
        if (s > 0 && leader) tc::mbarrier_arrive(&smem.empty[tc::ring_slot(it - 1, S).stage]);
      }
      tc::wgmma_wait_group<0>();  // the tile's last group has written acc, and read its stage
      if (slices > 0 && leader) tc::mbarrier_arrive(&smem.empty[tc::ring_slot(it - 1, S).stage]);
      const tc::PlannedTile tile = tile_at(t);
#pragma unroll
      for (int r = 0; r < RB; ++r)
        DirectEpilogue::store<Tile::kConsumerCols>(out, acc[r], m, n, tile.row + row0 + 64 * r, tile.col, alpha,
                                                   beta);
    }
  }
}
// [/doc:step2_kernel]

// [doc:step2_launch]
// Enqueues persistent_gemm_kernel on tc::persistent_blocks blocks (tc::launch_on_persistent_grid).
struct Step2Persistent {
  static constexpr const char* name = "2 persistent";
  static constexpr tc::OperandRule kCRule = tc::kScalarF32OperandRule;
  template <typename Tile, typename Precision>
  static void launch_kernel(int m, int n, int k, float alpha, const typename Precision::Input* A, int lda,
                            const typename Precision::Input* B, int ldb, float beta, float* C, int ldc,
                            cudaStream_t stream) {
    using Input = typename Precision::Input;
    tc::launch_on_persistent_grid<Tile, persistent_gemm_kernel<Tile, Input>>(name, m, n, k, alpha, A, lda, B, ldb,
                                                                            beta, DirectEpilogue::Params{C, ldc},
                                                                            stream);
  }
};
using Step2Tile = tc::WsTile<4>;
// [/doc:step2_launch]
