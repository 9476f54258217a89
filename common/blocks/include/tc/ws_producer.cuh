// The producer of chapter 08's step 5 and of chapter 09's kernels: one thread that walks its block's tiles and loads
// every slice of each into the ring, in a cluster whose blocks share B.
//
// Per slice it waits until the stage is free (every consumer of every block of the cluster released it), announces
// the bytes that will land (this block's A boxes, all of B, and whatever `extra` loads), and issues the TMA loads:
// A's boxes into this block alone, this block's part of B multicast into every block of the cluster (tc/layouts/
// cluster.hpp), then extra's. Shapes: a tile is Tile::BlockM (or ShortM) rows of A and Tile::BlockN of B; a slice is
// kSliceElements<Input> values of K. Preconditions: sm_90a; thread 0 of the producer warpgroup calls it, once, after
// the ring's barriers exist cluster-wide; maps made by tc::operand_maps; plan made by tc::tile_plan<Tile>. Errors:
// none reported. Source: PTX ISA, "mbarrier" (expect_tx, try_wait.parity), "cp.async.bulk.tensor"
// (.multicast::cluster).
#pragma once

#include "tc/cluster.cuh"
#include "tc/layouts/cluster.hpp"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/tile_order.hpp"
#include "tc/mbarrier.cuh"
#include "tc/mutation_point.cuh"
#include "tc/persistent_grid.cuh"
#include "tc/ws_tile.cuh"

#include <cuda.h>

#include <cstdint>
#include <type_traits>

namespace tc {

// No loads beyond A's and B's.
struct NoExtraLoads {
  static constexpr std::uint32_t kBytes = 0;
  __device__ void operator()(int /*stage*/, int /*slice*/, const PlannedTile& /*tile*/,
                             std::uint64_t* /*full*/) const {}
};

// [doc:ws_walk]
// The cluster tiles this block walks: tiles first, first + stride, ... of `plan` (every cluster takes every
// stride-th, gridDim.x / ClusterM clusters in all), each slices = ceil(k / slice) slices deep, this block's rows of a
// cluster tile given by its rank.
template <typename Tile>
struct WsWalk {
  int first, stride, slices, rank;
  __device__ WsWalk(int k, int slice_k)
      : first(blockIdx.x / Tile::ClusterM),
        stride(gridDim.x / Tile::ClusterM),
        slices(ceil_div(k, slice_k)),
        rank(cluster_ctarank()) {}
  __device__ PlannedTile tile(const HeightPlan& plan, int t) const {
    return planned_tile(plan, kGroupClusterRows<Tile>, rank, t);
  }
};
// [/doc:ws_walk]

// [doc:producer]
// Loads slices [s_first, s_last) of K (of `slices` in all) of one planned tile into the ring, `it` counting the slices
// this block has loaded over all its tiles (the ring's counter, advanced here): per slice it waits until the stage is
// free, announces the bytes, and issues this block's A boxes, its part of B (multicast to the cluster) and extra's.
// Extra: a callable extra(stage, slice, tile, full) that issues Extra::kBytes more of TMA loads onto barrier `full`
// (chapter 09's block scales); NoExtraLoads for none.
template <typename Tile, typename Input, typename Extra = NoExtraLoads>
__device__ inline void ws_load_slices(const WsSmem<Tile>& smem, const CUtensorMap& map_a, const CUtensorMap& map_b,
                                      const PlannedTile& tile, int rank, int s_first, int s_last, int slices, int& it,
                                      const Extra& extra = {}) {
  constexpr int S = Tile::Stages, kCluster = Tile::ClusterM, kSliceK = tc::kSliceElements<Input>;
  // `a_boxes` boxes of A (for chapter 08's step 5, three 64-row boxes for a tall tile and two for a short one: a
  // compile-time count, as a runtime loop's addresses took the producer past its 24 registers) and this block's part
  // of B.
  auto load = [&](auto a_boxes) {
    constexpr int kABytes = decltype(a_boxes)::value * Tile::kABoxRows * Tile::kRowBytes;
    for (int s = s_first; s < s_last; ++s, ++it) {
      const tc::RingSlot slot = tc::ring_slot(it, S);
      tc::mbarrier_wait_parity(&smem.empty[slot.stage], tc::ring_empty_wait_parity(it, S));
      // This block's A boxes and all of B, whoever loads each part (tc/layouts/cluster.hpp), and the extra loads.
      tc::mbarrier_arrive_expect_tx(&smem.full[slot.stage],
                                    tc::cluster_full_bytes(kABytes, Tile::kSliceBBytes) + Extra::kBytes);
#pragma unroll
      for (int r = 0; r < decltype(a_boxes)::value; ++r)
        tc::cp_async_bulk_tensor_2d_global_to_shared(smem.a(slot.stage) + r * Tile::kABoxRows * Tile::kRowBytes,
                                                     &map_a, s * kSliceK, tc::a_box_row<Tile>(tile.row, r),
                                                     &smem.full[slot.stage]);
      // This block's part of B, into every block of the cluster. (B's slice is a mutation point, as A's box index in
      // tc::a_box_row: a test loads the middle slice's neighbour, tc_test/planted_bugs.cuh.)
      const int part = tc::cluster_b_part_first_row(rank, Tile::BlockN, kCluster);
      const int b_k = tc::mutation_point(tc::MutationSite::KSlice, s, slices) * kSliceK;
      tc::cp_async_bulk_tensor_2d_global_to_shared_multicast(smem.b(slot.stage) + part * Tile::kRowBytes, &map_b, b_k,
                                                             tile.col + part, &smem.full[slot.stage],
                                                             tc::cluster_multicast_mask(kCluster));
      extra(slot.stage, s, tile, &smem.full[slot.stage]);
    }
  };
  if (tile.height == Tile::ShortM)  // a short tile has fewer rows of A
    load(std::integral_constant<int, Tile::ShortM / Tile::kABoxRows>{});
  else
    load(std::integral_constant<int, Tile::BlockM / Tile::kABoxRows>{});
}

// Loads this block's tiles (walk: first, first + stride, ... of `plan`, cluster tiles in grouped order), every slice
// of K.
template <typename Tile, typename Input, typename Extra = NoExtraLoads>
__device__ inline void ws_load_tiles(const WsSmem<Tile>& smem, const CUtensorMap& map_a, const CUtensorMap& map_b,
                                     const HeightPlan& plan, const WsWalk<Tile>& walk, const Extra& extra = {}) {
  int it = 0;  // slices this block has loaded, over all its tiles: the ring's counter
  for (int t = walk.first; t < plan.count(); t += walk.stride)
    ws_load_slices<Tile, Input>(smem, map_a, map_b, walk.tile(plan, t), walk.rank, 0, walk.slices, walk.slices, it,
                                extra);
}
// [/doc:producer]

}  // namespace tc
