// Chapter 10 -- the narrow tile: 64 weights by the tokens (or 128, two consumer warpgroups over one token slice), as
// many stages as fit, and its ring in shared memory. Step 2 introduces it (step2_small_m.cuh: its kernel and plan);
// steps 3, 5 and 6 run their own kernels on the same tile and ring, so they live here, in no step's file. Shapes and
// layouts: as step 1 (suite.hpp). Source: PTX ISA, "wgmma.mma_async" (.m64nNk16), "mbarrier", "cp.async.bulk.tensor";
// CUDA C++ Programming Guide, "Shared Memory" (228 KB an SM, 1 KB of it reserved per block).
#pragma once

#include "tc/dynamic_smem.hpp"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc/mbarrier.cuh"
#include "tc/shared_address.cuh"
#include "tc/wgmma.cuh"
#include "tc/wgmma_slice.cuh"
#include "tc/ws_tile.cuh"  // tc::ceil_div

#include <cuda.h>
#include <cuda_bf16.h>

#include <cstdint>

// [doc:small_m_tile]
// The tile: 64 weights by BlockN tokens, K in slices of 64 (128 bytes a row, the 128-byte swizzle), Stages slices in
// flight. BlocksPerSm blocks share an SM and split its 228 KB, less the 1 KB the hardware keeps per block. Two while
// the stages are small: one block's first loads and last stores run under the other's stream. One past BlockN = 128,
// where a stage is 28 to 40 KB.
constexpr int small_m_blocks_per_sm(int block_n) { return block_n <= 128 ? 2 : 1; }
// The slices in flight: as many as fit the block's share, each block_m + block_n rows of 128 bytes plus its two
// barriers, after the 1 KB the 128B swizzle's alignment may take.
constexpr int small_m_stages(int block_n, int blocks_per_sm, int block_m = 64) {
  return (228 * 1024 / blocks_per_sm - 1024 - 1024) / ((block_m + block_n) * tc::kSliceBytes + 16);
}
// And one block an SM where half an SM's ring is shallow (fewer than kShallowRing stages: at BlockN = 128 it holds 4)
// and the grid does not outnumber the SMs: the blocks spread one an SM before any SM takes a second, so the second
// slot would sit empty, and the one block may as well take the whole SM's ring (9 stages at BlockN = 128). Where half
// an SM already holds 6 stages or more, the deeper ring did not pay on an H200 (docs/results/10_ring_depth_h200.txt).
inline constexpr int kShallowRing = 6;
constexpr int small_m_blocks_per_sm(int block_n, int blocks, int sms) {
  return blocks <= sms && small_m_stages(block_n, 2) < kShallowRing ? 1 : small_m_blocks_per_sm(block_n);
}
// The narrow tiles of C (m weights by n tokens) for one split of K: block_m (64, or 128 for the pair tile) weights by
// block_n tokens each. Steps 2, 3 and 5 count their blocks with it (times the splits), so that each runs the tile
// small_m_blocks_per_sm picks for them.
constexpr int small_m_tiles(int m, int n, int block_n, int block_m = 64) {
  return tc::ceil_div(m, block_m) * tc::ceil_div(n, block_n);
}

// Consumers_ = 2 is the pair tile (step 5): two consumer warpgroups, 64 weights each, multiply the same token slice,
// so that a stage's token rows, loaded once from L2, feed twice the multiplies (Qwen2.5-72B's down projection split
// eight ways, 261 x 8192 x 3696: 64 x 160 tiles make 256 blocks, two waves, and read the tokens once for each; 128 x
// 160 tiles make 128 blocks, one wave, and read them half as often). Its stages are 16 KB of weights and up to 32 KB
// of tokens, so it takes a whole SM.
template <int BlockN_, int BlocksPerSm_ = small_m_blocks_per_sm(BlockN_), int Consumers_ = 1>
struct SmallMTile {
  static constexpr int kConsumers = Consumers_;
  static constexpr int BlockM = 64 * kConsumers;  // one warpgroup's wgmma M (the fewest weights a tile can take) each
  static constexpr int BlockN = BlockN_;          // the tokens, rounded up to a wgmma N
  static constexpr int kThreads = 128 * kConsumers + 32;  // the consumer warpgroups, then the producer warp
  static constexpr int kProducerWarp = 4 * kConsumers;
  static constexpr int kBlocksPerSm = BlocksPerSm_;
  static constexpr int kSliceABytes = BlockM * tc::kSliceBytes, kSliceBBytes = BlockN * tc::kSliceBytes;
  static constexpr int kStageBytes = kSliceABytes + kSliceBBytes;
  static constexpr int kAlign = 1024;  // the 128B swizzle's repeat (tc::aligned_smem)
  static constexpr int Stages = small_m_stages(BlockN, kBlocksPerSm, BlockM);
  static constexpr int kSmemBytes = Stages * kStageBytes + kAlign + 2 * Stages * 8;
  static_assert(BlockN % 8 == 0 && BlockN >= 8 && BlockN <= 256, "wgmma's N: a multiple of 8 up to 256");
  static_assert(kBlocksPerSm == 1 || kBlocksPerSm == 2, "one block an SM, or two that share it");
  static_assert(kConsumers == 1 || (kConsumers == 2 && kBlocksPerSm == 1),
                "one consumer warpgroup, or the pair tile, whose stages are too large to share an SM");
  static_assert(kSliceABytes % kAlign == 0 && kSliceBBytes % kAlign == 0, "every slice starts on a swizzle atom");
  static_assert(Stages >= 4, "enough slices in flight to cover DRAM's latency of a microsecond or so");
  static_assert(kSmemBytes <= 227 * 1024, "an H100/H200 block may have at most 227 KB of shared memory");
};
// [/doc:small_m_tile]

// [doc:small_m_ring]
// A small-M tile's ring in shared memory (steps 2, 3 and 6 use it): Stages slices, each BlockM rows of A and BlockN
// rows of B, with a "full" barrier (the producer's arrival plus the slice's bytes) and an "empty" one (one release from
// each consumer warpgroup: a stage is free once every consumer has read it). Slice `it` of a block's run lands in stage
// it mod Stages (tc::ring_slot), whatever tile it belongs to.
template <typename Tile>
struct SmallMRing {
  unsigned char* stages;
  std::uint64_t* full;   // the slice landed
  std::uint64_t* empty;  // the consumer is done reading it
  __device__ explicit SmallMRing(unsigned char* raw)
      : stages(tc::aligned_smem(raw)),
        full(reinterpret_cast<std::uint64_t*>(stages + Tile::Stages * Tile::kStageBytes)),
        empty(full + Tile::Stages) {}
  __device__ unsigned char* a(int stage) const { return stages + stage * Tile::kStageBytes; }
  __device__ unsigned char* b(int stage) const { return a(stage) + Tile::kSliceABytes; }

  // Thread 0 makes the barriers; the block synchronizes after, so that no thread waits on one before it exists.
  __device__ void init() const {
    for (int i = 0; i < Tile::Stages; ++i) {
      tc::mbarrier_init(&full[i], 1);
      tc::mbarrier_init(&empty[i], Tile::kConsumers);
    }
    tc::fence_mbarrier_init_release_cluster();  // visible to the TMA unit, which completes transactions on them
  }
  // The producer's thread: slice `it` of the run, once its stage is free: K from k0, A's rows from row0 and B's
  // from col0. TMA writes whole boxes, the zeros past the operands' edges included, so a slice is always a stage's
  // bytes.
  __device__ void load(int it, const CUtensorMap& map_a, const CUtensorMap& map_b, int k0, int row0, int col0) const {
    const tc::RingSlot slot = tc::ring_slot(it, Tile::Stages);
    tc::mbarrier_wait_parity(&empty[slot.stage], tc::ring_empty_wait_parity(it, Tile::Stages));
    tc::mbarrier_arrive_expect_tx(&full[slot.stage], Tile::kStageBytes);
    tc::cp_async_bulk_tensor_2d_global_to_shared(a(slot.stage), &map_a, k0, row0, &full[slot.stage]);
    tc::cp_async_bulk_tensor_2d_global_to_shared(b(slot.stage), &map_b, k0, col0, &full[slot.stage]);
  }
  // Consumer warpgroup c: waits for slice `it`, adds its four K steps of 16 into acc as one wgmma group (its 64
  // weights, rows 64c.. of the stage's A, by all the tokens), and waits for the group before it, whose stage is then
  // no longer read by this consumer (release(it - 1)).
  __device__ void multiply(float (&acc)[Tile::BlockN / 2], int it, int c = 0) const {
    const tc::RingSlot slot = tc::ring_slot(it, Tile::Stages);
    tc::mbarrier_wait_parity(&full[slot.stage], slot.parity);
    const std::uint64_t a_first = tc::slice_descriptor(tc::shared_address(a(0)) + c * 64 * tc::kSliceBytes, 0);
    const std::uint64_t b_first = tc::slice_descriptor(tc::shared_address(b(0)), 0);
    const std::uint32_t stage_offset = slot.stage * Tile::kStageBytes;
    tc::wgmma_fence();  // acc was last written by the previous group, or zeroed
#pragma unroll
    for (int kk = 0; kk < tc::kSliceK / 16; ++kk)  // 32 bytes on in each 128-byte row
      tc::wgmma_m64nNk16<Tile::BlockN, __nv_bfloat16>(acc,
                                                      tc::advance_wgmma_descriptor(a_first, stage_offset + 32u * kk),
                                                      tc::advance_wgmma_descriptor(b_first, stage_offset + 32u * kk),
                                                      true);
    tc::wgmma_commit_group();
    tc::wgmma_wait_group<1>();
  }
  // One thread of each consumer: it is done with slice `it`'s stage, which may be loaded again once all are.
  __device__ void release(int it) const { tc::mbarrier_arrive(&empty[tc::ring_slot(it, Tile::Stages).stage]); }
};
// [/doc:small_m_ring]
