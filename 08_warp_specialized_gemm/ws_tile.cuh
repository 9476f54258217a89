// Chapter 08 -- what the five steps share: the block tile and its budgets, the shared-memory plan, the direct
// epilogue of steps 1 to 3, and the launch struct with its tile contract.
//
// Every step computes C = alpha * A * B + beta * C with A row-major M x K and B column-major K x N (both K-major, as
// wgmma reads them), fp16 or bf16 in, fp32 accumulate, C column-major (fp32; steps 4 and 5 also bf16). A block has
// three warpgroups: warpgroup 0 is the producer (one thread issues every TMA load), warpgroups 1 and 2 are the
// consumers, each owning 64 rows of the 128 x 256 block tile as one m64n256k16 accumulator (128 fp32 registers a
// thread; step 5's taller tile splits along N instead: WsTile). K advances one 64-element slice (tc/wgmma_slice.cuh)
// at a time through a ring of Stages slices.
// Any M, N and K: TMA reads zeros past the edges of A and B, and the epilogues write only inside C, so a partial tile
// costs a whole tile's math but needs no padded copies; only operands TMA cannot address (ld not a multiple of 16
// bytes, a base not 16-byte aligned) take the padded path of tc/padded_gemm.hpp.
#pragma once

#include "tc/check.hpp"
#include "tc/dynamic_smem.hpp"
#include "tc/layouts/cluster.hpp"
#include "tc/layouts/tags.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc/mbarrier.cuh"
#include "tc/tile_contract.hpp"
#include "tc/types.hpp"
#include "tc/wgmma_slice.cuh"

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

// A bug planted on purpose in a step's own code when its tile names it: for the test that proves the exact check
// catches a bug in the kernel itself at 8192^3 ("... a bug planted in its producer ..."). Every kernel the chapter
// runs has PlantedBug::None, which compiles to the code as written.
enum class PlantedBug { None, ABoxRepeated };

// [doc:tile]
// The block tile: BlockM x 256 of C per block, K in slices of 64, Stages slices in flight, ClusterM blocks per cluster
// along M (sharing B), EpilogueBytes of shared memory for step 4's staging; with ShortM < BlockM (step 5) a row of
// tiles is BlockM or ShortM high (tc::HeightPlan), and a stage holds the taller. wgmma gives a warpgroup 64 rows at a
// time, so a 128-row tile is split between the consumers along M (64 rows each, one m64n256k16 accumulator) and
// step 5's tiles along N (all rows x 128 columns each: three m64n128k16 accumulators at 192 rows, two at 128). Plant:
// tests only (above).
template <int Stages_, int ClusterM_ = 1, int EpilogueBytes_ = 0, int BlockM_ = 128, int ShortM_ = BlockM_,
          PlantedBug Plant_ = PlantedBug::None>
struct WsTile {
  static constexpr PlantedBug kPlant = Plant_;
  static constexpr int BlockM = BlockM_, BlockN = 256, BlockK = tc::kSliceK, Stages = Stages_, ClusterM = ClusterM_;
  static constexpr int ShortM = ShortM_;
  static constexpr int kConsumers = 2;                     // warpgroups 1 and 2
  static constexpr int kThreads = 128 * (1 + kConsumers);  // and the producer, warpgroup 0
  static constexpr bool kSplitN = BlockM > 128;            // how the consumers share the tile (above)
  static constexpr bool kTwoHeights = ShortM < BlockM;
  static constexpr int kConsumerRows = kSplitN ? BlockM : BlockM / 2, kConsumerCols = kSplitN ? BlockN / 2 : BlockN;
  static constexpr int kRowBlocks = kConsumerRows / 64;  // m64nNk16 accumulators a consumer holds, N = kConsumerCols
  static constexpr int kShortRowBlocks = kTwoHeights ? ShortM / 64 : kRowBlocks;  // ... in a short tile
  static constexpr int kAccumulators = kRowBlocks * kConsumerCols / 2;  // fp32 registers a consumer thread holds
  // A's TMA box: the whole tile, or with two heights 64 rows, so that either height loads whole boxes.
  static constexpr int kABoxRows = kTwoHeights ? 64 : BlockM;
  // Split along N, a consumer alone reads its half of B: after the tile's last slice it stages its epilogue there,
  // and holds that stage until the TMA stores have read it. So step 5 needs no staging of its own, and 4 stages of
  // its taller tile fit (3, beside 32 KB of staging).
  static constexpr bool kStageStaging = kSplitN;
  static constexpr int kRowBytes = BlockK * 2;           // one operand row of a slice: 64 16-bit elements
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
  static_assert(!kStageStaging || kEpilogueBytes == 0, "a tile that stages in its stages needs no staging of its own");
  static_assert(BlockM <= 256 && kBPartRows <= 256, "a TMA box holds at most 256 rows");
  static_assert(ClusterM >= 1 && ClusterM <= 2, "clusters larger than 2 have been reported slower for GEMM");
};
// [/doc:tile]

// The row of A, in elements, at which the producer asks TMA for box r of a tile whose first row is tile_row. With
// PlantedBug::ABoxRepeated box 1 asks for box 0's rows again: rows kABoxRows.. of the tile get box 0's products.
template <typename Tile>
__device__ __forceinline__ int a_box_row(int tile_row, int r) {
  if constexpr (Tile::kPlant == PlantedBug::ABoxRepeated) {
    if (r == 1) return tile_row;
  }
  return tile_row + r * Tile::kABoxRows;
}

// The carve-up of the dynamic shared memory: the stages (A then B), the epilogue's staging, then the barriers.
template <typename Tile>
struct WsSmem {
  unsigned char* stages;
  unsigned char* epilogue;
  std::uint64_t* full;   // [Stages]: the slice landed (the TMA's bytes)
  std::uint64_t* empty;  // [Stages]: every consumer (of every block of the cluster) released it
  __device__ explicit WsSmem(unsigned char* raw)
      : stages(tc::aligned_smem(raw)), epilogue(stages + Tile::Stages * Tile::kStageBytes),
        full(reinterpret_cast<std::uint64_t*>(epilogue + Tile::kEpilogueBytes)), empty(full + Tile::Stages) {}
  __device__ unsigned char* a(int stage) const { return stages + stage * Tile::kStageBytes; }
  __device__ unsigned char* b(int stage) const { return a(stage) + Tile::kSliceABytes; }
};

// [doc:direct_epilogue]
// Steps 1 to 3's epilogue: C = alpha * acc + beta * C straight from the registers, for one 64 x N accumulator of this
// warpgroup at (row0, col0), each register at tc::wgmma_m64nNk16_d_coord, only where it lies inside the m x n C.
// C column-major (ldc); beta == 0 does not read C.
struct DirectEpilogue {
  struct Params {
    float* C;
    int ldc;
  };
  template <int N>
  __device__ static void store(const Params& out, const float (&acc)[N / 2], int m, int n, int row0, int col0,
                               float alpha, float beta, int /*consumer*/, unsigned char* /*staging*/,
                               int /*row_block*/ = 0) {
    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < N / 2; ++i) {
      const tc::Coord p = tc::wgmma_m64nNk16_d_coord(warp, lane, i);
      const int row = row0 + p.row, col = col0 + p.col;
      if (row < m && col < n) {
        float* c = out.C + row + static_cast<std::size_t>(col) * out.ldc;
        *c = beta != 0.0f ? alpha * acc[i] + beta * *c : alpha * acc[i];
      }
    }
  }
  __device__ static void finish(const Params& /*out*/, int /*consumer*/) {}  // no stores left in flight
};
// [/doc:direct_epilogue]

// A's and B's maps: boxes of kABoxRows rows of A and of one block's part of B (kBPartRows). k = 0 loads no slice (the
// kernel only scales C by beta), and a tensor map cannot have an empty dimension, so then both are left empty.
template <typename Tile, typename Input>
std::pair<CUtensorMap, CUtensorMap> operand_maps(int m, int n, int k, const Input* A, int lda, const Input* B,
                                                 int ldb) {
  if (k == 0) return {};
  return {tc::k_major_map(A, m, k, lda, Tile::kABoxRows), tc::k_major_map(B, n, k, ldb, Tile::kBPartRows)};
}

// [doc:launch]
// A step as the project's launchers take it (tc/padded_gemm.hpp): Step::launch_kernel<Tile, Precision> enqueues it
// on operands that keep kContract. Any m, n, k (TMA clips); A and B as TMA reads them; C as the step's epilogue
// writes it (Step::kCRule: scalar stores, or a TMA store's 16-byte rule).
template <typename Step_, typename Tile_, typename Precision_>
struct WsGemm {
  using Step = Step_;
  using Tile = Tile_;
  using Precision = Precision_;
  using LayoutA = tc::RowMajor;
  using LayoutB = tc::ColMajor;
  using Out = tc::output_t<Precision>;
  static constexpr const char* name = Step::name;
  static constexpr tc::TileContract kContract{{1, 1, 1}, tc::kTmaOperandRule, Step::kCRule};

  // Enqueues the step. Preconditions: valid arguments that keep kContract, m, n > 0 (checked once, by
  // tc::launch_gemm_any_size); an SM 9.0 GPU. Errors: std::runtime_error when the GPU has too little shared memory;
  // std::invalid_argument from the tensor maps; tc::CudaError when the launch fails.
  static void launch(int m, int n, int k, float alpha, const typename Precision::Input* A, int lda,
                     const typename Precision::Input* B, int ldb, float beta, Out* C, int ldc, cudaStream_t stream) {
    Step::template launch_kernel<Tile, Precision>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  }
};
// [/doc:launch]

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }
