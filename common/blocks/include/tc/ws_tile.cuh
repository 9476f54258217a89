// The warp-specialized block tile of chapter 08 (and of the chapters that take its kernel): the tile and its register
// and shared-memory budgets, the carve-up of the shared memory, and the operands' tensor maps.
//
// Every kernel on it computes C = alpha * A * B + beta * C with A row-major M x K and B column-major K x N (both
// K-major, as wgmma reads them): 16-bit inputs with fp32 accumulation (chapter 08), or 8-bit ones (chapter 09). A
// block has three warpgroups: warpgroup 0 is the producer (one thread issues every TMA load), warpgroups 1 and 2 are
// the consumers. K advances one slice of 128 bytes a row (tc/wgmma_slice.cuh: 64 16-bit elements, 128 8-bit ones) at
// a time through a ring of Stages slices; every size below is in bytes or rows, so the tile does not depend on the
// input type. TMA reads zeros past the edges of A and B, so any M,
// N and K need no padded copies. Preconditions: sm_90a for the device code. Source: PTX ISA, "setmaxnreg",
// "wgmma.mma_async" (register fragments of D); CUDA C++ Programming Guide, "Asynchronous Data Copies using TMA".
#pragma once

#include "tc/dynamic_smem.hpp"
#include "tc/mutation_point.cuh"
#include "tc/wgmma_slice.cuh"

#include <cuda.h>

#include <cstdint>
#include <utility>

namespace tc {

// [doc:tile]
// The block tile: BlockM x 256 of C per block, K in slices of 128 bytes (BlockK: 64 16-bit elements; an 8-bit
// kernel's slice is tc::kSliceElements of its input), Stages slices in flight, ClusterM blocks per cluster
// along M (sharing B), EpilogueBytes of shared memory for a TMA-store epilogue's staging. wgmma gives a warpgroup 64
// rows at a time, so a 128-row tile is split between the consumers along M (64 rows each, one m64n256k16
// accumulator). A taller tile (BlockM 192, chapter 08's step 5) is split along N instead (all rows x 128 columns
// each: three m64n128k16 accumulators), and with ShortM < BlockM a row of tiles is BlockM or ShortM high
// (tc::HeightPlan); a stage holds the taller.
template <int Stages_, int ClusterM_ = 1, int EpilogueBytes_ = 0, int BlockM_ = 128, int ShortM_ = BlockM_>
struct WsTile {
  static constexpr int BlockM = BlockM_, BlockN = 256, BlockK = kSliceK, Stages = Stages_, ClusterM = ClusterM_;
  static constexpr int ShortM = ShortM_;
  static constexpr int kConsumers = 2;                     // warpgroups 1 and 2
  static constexpr int kThreads = 128 * (1 + kConsumers);  // and the producer, warpgroup 0
  static constexpr bool kSplitN = BlockM > 128;            // how the consumers share the tile (above)
  static constexpr bool kTwoHeights = ShortM < BlockM;
  static constexpr int kConsumerRows = kSplitN ? BlockM : BlockM / 2, kConsumerCols = kSplitN ? BlockN / 2 : BlockN;
  static constexpr int kRowBlocks = kConsumerRows / 64;  // m64nNk16 accumulators a consumer holds, N = kConsumerCols
  static constexpr int kShortRowBlocks = ShortM * kRowBlocks / BlockM;  // ... in a short tile
  static constexpr int kAccumulators = kRowBlocks * kConsumerCols / 2;  // fp32 registers a consumer thread holds
  // A's TMA box: the whole tile, or with two heights 64 rows, so that either height loads whole boxes.
  static constexpr int kABoxRows = kTwoHeights ? 64 : BlockM;
  static constexpr int kRowBytes = kSliceBytes;         // one operand row of a slice: 128 bytes of K
  static constexpr int kSliceABytes = BlockM * kRowBytes, kSliceBBytes = BlockN * kRowBytes;
  static constexpr int kStageBytes = kSliceABytes + kSliceBBytes;
  static constexpr int kBPartRows = BlockN / ClusterM;   // the part of B each block of a cluster loads and multicasts
  static constexpr int kEpilogueBytes = EpilogueBytes_;
  static constexpr int kAlign = 1024;                    // the 128B swizzle's repeat (tc::aligned_smem)
  static constexpr int kSmemBytes = Stages * kStageBytes + kEpilogueBytes + kAlign + 2 * Stages * 8;
  // Registers. The block's 384 threads start with the kernel's count (at most 65536 / 384 = 168, from
  // __launch_bounds__(384, 1)); then the producer gives registers back and the consumers take them (setmaxnreg).
  // 128 accumulators leave the consumers room; 192 take setmaxnreg's most: 24 (its floor) + 2 x 240 fit, 248 not.
  static constexpr bool kTallAccumulators = kAccumulators > 128;
  static constexpr int kProducerRegisters = kTallAccumulators ? 24 : 40;  // a loop counter, coordinates, addresses
  static constexpr int kConsumerRegisters = kTallAccumulators ? 240 : 232;  // accumulators, descriptors, addresses,
                                                                            // epilogue temporaries
  static_assert((kProducerRegisters + kConsumers * kConsumerRegisters) * 128 <= 65536,
                "after setmaxnreg the warpgroups' registers must fit the SM's 65,536");
  static_assert(kConsumerRegisters >= kAccumulators + 48, "the accumulators and room for everything else");
  static_assert(BlockM % 64 == 0 && kConsumerRows % 64 == 0, "wgmma's M is 64 rows a warpgroup");
  static_assert(ShortM <= BlockM && ShortM % kABoxRows == 0 && BlockM % kABoxRows == 0,
                "a stage holds the taller tile, and either height is whole A boxes");
  static_assert(!kTwoHeights || kSplitN, "with two heights every consumer takes all the rows of its tile");
  static_assert(kSmemBytes <= 227 * 1024, "an H100/H200 block may have at most 227 KB of shared memory");
  static_assert(kSliceABytes % kAlign == 0 && kSliceBBytes % kAlign == 0, "every slice starts on a swizzle atom");
  static_assert((kBPartRows * kRowBytes) % kAlign == 0, "every block's part of B starts on a swizzle atom");
  static_assert((kConsumerCols * kRowBytes) % kAlign == 0, "each consumer's part of B starts on a swizzle atom");
  static_assert(kEpilogueBytes % kAlign == 0, "the staging buffers start on a swizzle atom too");
  static_assert(BlockM <= 256 && kBPartRows <= 256, "a TMA box holds at most 256 rows");
  static_assert(ClusterM >= 1 && ClusterM <= 2, "clusters larger than 2 have been reported slower for GEMM");
};
// [/doc:tile]

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

// The row of A, in elements, at which the producer asks TMA for box r of a tile whose first row is tile_row. (The
// box index is a mutation point: a test loads box 1 from box 0's rows, tc_test/planted_bugs.cuh.)
template <typename Tile>
__device__ __forceinline__ int a_box_row(int tile_row, int r) {
  return tile_row + mutation_point(MutationSite::ABox, r) * Tile::kABoxRows;
}

// The carve-up of the dynamic shared memory: the stages (A then B), the epilogue's staging, then the barriers.
template <typename Tile>
struct WsSmem {
  unsigned char* stages;
  unsigned char* epilogue;
  std::uint64_t* full;   // [Stages]: the slice landed (the TMA's bytes)
  std::uint64_t* empty;  // [Stages]: every consumer (of every block of the cluster) released it
  __device__ explicit WsSmem(unsigned char* raw)
      : stages(aligned_smem(raw)), epilogue(stages + Tile::Stages * Tile::kStageBytes),
        full(reinterpret_cast<std::uint64_t*>(epilogue + Tile::kEpilogueBytes)), empty(full + Tile::Stages) {}
  __device__ unsigned char* a(int stage) const { return stages + stage * Tile::kStageBytes; }
  __device__ unsigned char* b(int stage) const { return a(stage) + Tile::kSliceABytes; }
};

// A's and B's maps: boxes of kABoxRows rows of A and of one block's part of B (kBPartRows). k = 0 loads no slice (the
// kernel only scales C by beta), and a tensor map cannot have an empty dimension, so then both are left empty.
// Errors: std::invalid_argument from tc::make_tma_2d (an operand TMA cannot address).
template <typename Tile, typename Input>
std::pair<CUtensorMap, CUtensorMap> operand_maps(int m, int n, int k, const Input* A, int lda, const Input* B,
                                                 int ldb) {
  if (k == 0) return {};
  return {k_major_map(A, m, k, lda, Tile::kABoxRows), k_major_map(B, n, k, ldb, Tile::kBPartRows)};
}

}  // namespace tc
