// The warp-specialized block: what every persistent, clustered GEMM kernel on tc::WsTile runs around its own slice
// loop and epilogue (chapter 08's step 5, chapter 09's steps, chapter 10's stream-K). Chapter 08's steps 1-4 build
// these parts up one at a time, written out; from step 5 on a kernel states only what is its own.
//
//   tc::ws_block<Tile>(smem, producer, consumer):
//     the ring's barriers (tc::ws_ring_init, cluster-wide), then the producer warpgroup gives up registers and its
//     thread 0 runs producer(); each consumer warpgroup takes them and runs consumer(index, ring); then the cluster
//     exit (tc::ws_cluster_finish).
//   tc::WsWalk<Tile> (tc/ws_producer.cuh): which cluster tiles of the plan this block walks, in grouped order.
//   tc::WsStageOperands<Tile>: a consumer's wgmma descriptors of its part of A and B in any stage.
//   tc::ws_gemm_block<Tile, Input>(smem, maps, plan, k, consumer): ws_block with common's producer; the kernel gives
//     only its consumer loop, which gets a tc::WsConsumer (index, ring, walk, stage operands).
//
// Preconditions: sm_90a; launched in clusters of Tile::ClusterM blocks along x with Tile::kThreads threads a block
// (warpgroup 0 the producer, 1 .. kConsumers the consumers) and the shared memory tc::WsSmem<Tile> lays out. Errors:
// none reported; misuse hangs. Source: PTX ISA, "setmaxnreg", "mbarrier", "barrier.cluster", "wgmma.mma_async"
// (matrix descriptor); CUDA C++ Programming Guide, "Thread Block Clusters".
#pragma once

#include "tc/cluster.cuh"
#include "tc/layouts/tile_order.hpp"
#include "tc/persistent_grid.cuh"
#include "tc/shared_address.cuh"
#include "tc/warpgroup.cuh"
#include "tc/wgmma.cuh"
#include "tc/wgmma_slice.cuh"
#include "tc/ws_pipeline.cuh"
#include "tc/ws_producer.cuh"
#include "tc/ws_tile.cuh"

#include <cstdint>

namespace tc {

// [doc:ws_block]
// Every thread of the block: producer() is called by thread 0 of warpgroup 0 alone (the other 127 threads of the
// producer warpgroup only lend their registers), consumer(index, ring) by every thread of consumer warpgroup index
// (0-based), with its view of the ring. Both are inlined, so a kernel's lambdas cost nothing.
template <typename Tile, typename Producer, typename Consumer>
__device__ __forceinline__ void ws_block(const WsSmem<Tile>& smem, Producer&& producer, Consumer&& consumer) {
  ws_ring_init<Tile::Stages, Tile::kConsumers, Tile::ClusterM>(smem.full, smem.empty);  // tc/ws_pipeline.cuh
  ws_cluster_start();
  const int warpgroup = warpgroup_index();
  if (warpgroup == 0) {
    setmaxnreg_dec<Tile::kProducerRegisters>();  // all 128 threads: setmaxnreg is warpgroup-wide
    if (threadIdx.x == 0) producer();
  } else {
    setmaxnreg_inc<Tile::kConsumerRegisters>();
    consumer(warpgroup - 1, WsConsumerRing<Tile::Stages, Tile::ClusterM>(smem.full, smem.empty));
  }
  ws_cluster_finish();  // no block leaves while a peer can still multicast into it or arrive on its barriers
}
// [/doc:ws_block]

// [doc:ws_stage_operands]
// A consumer's part of a stage, as wgmma descriptors (128B swizzle, tc::slice_descriptor): split along N
// (Tile::kSplitN), all the rows of A and its half of B; along M, its rows of A and all of B. Stage 0's are computed
// once; a stage's are kStageBytes further (tc::advance_wgmma_descriptor: an add, in the slice loop).
template <typename Tile>
struct WsStageOperands {
  std::uint64_t a_first, b_first;
  __device__ WsStageOperands(const WsSmem<Tile>& smem, int consumer)
      : a_first(slice_descriptor(
            shared_address(smem.a(0)) + (Tile::kSplitN ? 0 : consumer * Tile::kConsumerRows * Tile::kRowBytes), 0)),
        b_first(slice_descriptor(
            shared_address(smem.b(0)) + (Tile::kSplitN ? consumer * Tile::kConsumerCols * Tile::kRowBytes : 0), 0)) {}
  __device__ std::uint64_t a(int stage) const {
    return advance_wgmma_descriptor(a_first, std::uint32_t(stage) * Tile::kStageBytes);
  }
  __device__ std::uint64_t b(int stage) const {
    return advance_wgmma_descriptor(b_first, std::uint32_t(stage) * Tile::kStageBytes);
  }
};
// [/doc:ws_stage_operands]

// [doc:ws_gemm_block]
// What a consumer warpgroup's loop works with: which consumer it is (0-based), its view of the ring, the tiles its
// block walks, and its part of a stage as wgmma descriptors.
template <typename Tile>
struct WsConsumer {
  int index;
  WsConsumerRing<Tile::Stages, Tile::ClusterM> ring;
  WsWalk<Tile> walk;
  WsStageOperands<Tile> operands;
};

// The persistent warp-specialized GEMM block: ws_block with common's producer (tc::ws_load_tiles: per slice of each
// of the block's tiles, its A boxes, its part of B multicast, and extra's loads, Extra as tc::ws_load_slices takes
// it), and consumer(WsConsumer) run by each consumer warpgroup. Shapes, maps and plan as tc::ws_load_tiles takes
// them; k in Input's elements. The walk is made on each side after setmaxnreg: held across it, its registers would
// count against the producer's few (chapter 10's stream-K spilled so).
template <typename Tile, typename Input, typename Extra, typename Consumer>
__device__ __forceinline__ void ws_gemm_block(const WsSmem<Tile>& smem, const CUtensorMap& map_a,
                                              const CUtensorMap& map_b, const HeightPlan& plan, int k,
                                              const Extra& extra, Consumer&& consumer) {
  ws_block<Tile>(
      smem,
      [&] {
        ws_load_tiles<Tile, Input>(smem, map_a, map_b, plan, WsWalk<Tile>(k, kSliceElements<Input>), extra);
      },
      [&](int index, const WsConsumerRing<Tile::Stages, Tile::ClusterM>& ring) {
        const WsConsumer<Tile> self{index, ring, WsWalk<Tile>(k, kSliceElements<Input>),
                                    WsStageOperands<Tile>(smem, index)};
        consumer(self);
      });
}

// With no loads beyond A's and B's.
template <typename Tile, typename Input, typename Consumer>
__device__ __forceinline__ void ws_gemm_block(const WsSmem<Tile>& smem, const CUtensorMap& map_a,
                                              const CUtensorMap& map_b, const HeightPlan& plan, int k,
                                              Consumer&& consumer) {
  ws_gemm_block<Tile, Input>(smem, map_a, map_b, plan, k, NoExtraLoads{}, consumer);
}
// [/doc:ws_gemm_block]

}  // namespace tc
