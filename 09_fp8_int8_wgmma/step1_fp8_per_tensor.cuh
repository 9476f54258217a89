// Chapter 09, step 1 -- FP8 wgmma with per-tensor scales: e4m3 (or e5m2) A and B, fp32 accumulation, bf16 or fp32 D.
//
// What it adds over chapter 08: 8-bit operands. wgmma.m64nNk32.f32.e4m3.e4m3 multiplies 64 x 32 by 32 x N, K = 32 an
// instruction from 32 bytes of each 128-byte swizzled row, so a slice holds 128 K values where chapter 08's held 64,
// and each stage and every descriptor advance are the same bytes as before (tc/wgmma_slice.cuh). Both operands must
// be K-major: 8-bit wgmma has no transpose. An fp8 tensor carries one fp32 scale (its values are value / scale,
// rounded to fp8), so D = alpha * scale_a * scale_b * A * B + beta * C: the scales multiply alpha, and the epilogue
// applies them with it. The accumulation is the tensor core's fp8 accumulator over the whole of K, with no promotion:
// cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM (step 2 measures what that costs in precision).
// The tile is chapter 08's step-4 arrangement, not its step 5's: 128 x 256, each consumer 64 rows by all 256 columns
// in one m64n256k32 accumulator. With 8-bit operands it measured faster than chapter 08's step-5 tile (192 x 256,
// three m64n128k32 row blocks a consumer), at each of the chapter's three shapes and for int8 too
// (docs/results/09_promotion_levers_h200.txt). An 8-bit K step does twice the multiply-adds of a 16-bit one on the
// same shared-memory bytes, and an N = 256 wgmma reads A's 2 KB of a step once for 256 columns, not for 128. The
// producer, ring, persistent grid, clusters and TMA-store epilogue are common's (tc/ws_producer.cuh and the rest).
#pragma once

#include "gemm_8bit.cuh"

#include "tc/cluster.cuh"
#include "tc/layouts/cluster.hpp"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/mbarrier.cuh"
#include "tc/padded_gemm.hpp"
#include "tc/persistent_grid.cuh"
#include "tc/precisions_8bit.hpp"
#include "tc/tma_store_epilogue.cuh"
#include "tc/warpgroup.cuh"
#include "tc/wgmma.cuh"
#include "tc/ws_block.cuh"
#include "tc/ws_tile.cuh"

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

// [doc:step1_tile]
// Step 1's tile (and step 5's): 128 x 256, 4 stages of 48 KB, 2-block clusters sharing B, each consumer 64 rows by
// all 256 columns (one m64n256k32 accumulator, 128 registers of its 232), C staged in 32 KB after the stages (two
// 8 KB buffers a consumer: tc::TmaStoreEpilogue). A arrives in two 64-row boxes, one per consumer, where tc::WsTile
// loads one of 128 rows: the same bytes in two TMA loads.
struct Tile128x256 : tc::WsTile<4, 2, 2 * tc::TmaStoreEpilogue<float>::kBytesPerConsumer, 128, 128> {
  using Base = tc::WsTile<4, 2, 2 * tc::TmaStoreEpilogue<float>::kBytesPerConsumer, 128, 128>;
  static constexpr int kABoxRows = 64;
  static_assert(!Base::kSplitN && Base::kConsumerRows == kABoxRows, "each consumer 64 rows: one A box");
};
// [/doc:step1_tile]

// [doc:step1_kernel]
// gridDim.x blocks (a multiple of 2) walk the cluster tiles of the m x n C as `plan` cuts it (two 128-row tiles along
// M by one along N a cluster); each consumer multiplies its 64 rows of A by all 256 columns of B a slice at a time,
// one slice's wgmmas in flight while the next waits for its stage, and writes its 64 x 256 part with Epilogue
// (tc::TmaStoreEpilogue), staged at smem.epilogue. Input fp8 (fp32 accumulators) or s8/u8 (s32: Epilogue::Scalar).
// Preconditions: maps made by tc::operand_maps<Tile>; plan made by tc::tile_plan<Tile>; launched with clusters of 2
// along x; Tile::kEpilogueBytes as Epilogue needs; sm_90a. Errors: none reported. Source: PTX ISA, "wgmma.mma_async"
// (.m64nNk32), "setmaxnreg", "mbarrier", "cp.async.bulk.tensor" (.multicast::cluster), "barrier.cluster", "mapa".
template <typename Tile, typename Input, typename Epilogue>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    wide_tile_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int m,
                          int n, int k, typename Epilogue::Scalar alpha, typename Epilogue::Scalar beta,
                          const __grid_constant__ typename Epilogue::Params out, const tc::HeightPlan plan) {
  constexpr int S = Tile::Stages;
  static_assert(Tile::ClusterM == 2, "as chapter 08's step 3: the 2-block cluster");
  extern __shared__ unsigned char smem_raw[];
  const tc::WsSmem<Tile> smem(smem_raw);
  // Chapter 08's skeleton (tc/ws_block.cuh): the ring's set-up, the producer, the cluster exit; this kernel is its
  // consumers, each with its 64 rows of A (its A box) and all of B in a stage.
  tc::ws_gemm_block<Tile, Input>(smem, map_a, map_b, plan, k, [&](const tc::WsConsumer<Tile>& c) {
    const int row0 = c.index * Tile::kConsumerRows;
    // Cluster tile t: its slices through the ring, then its epilogue. `it` counts slices over all this block's
    // tiles.
    int it = 0;
    for (int t = c.walk.first; t < plan.count(); t += c.walk.stride) {
      constexpr int RB = Tile::kRowBlocks;  // 64-row accumulators a consumer holds: one (mma_slice_row_blocks)
      tc::wgmma_accumulator_t<Input> acc[RB][Tile::kConsumerCols / 2] = {};  // fp32 for fp8, s32 for s8 and u8
      for (int s = 0; s < c.walk.slices; ++s, ++it) {
        const int stage = c.ring.wait(it).stage;
        const std::uint64_t a = c.operands.a(stage), b = c.operands.b(stage);  // the stage's A and B (descriptors)
        tc::mma_slice_row_blocks<RB, Tile::kConsumerCols, Input>(acc, a, b);
        tc::wgmma_wait_group<1>();  // slice s - 1's group is done: its stage is no longer read by this warpgroup
        if (s > 0) c.ring.release(tc::ring_slot(it - 1, S).stage);
      }
      tc::wgmma_wait_group<0>();  // the tile's last group has written acc, and read its stage
      if (c.walk.slices > 0) c.ring.release(tc::ring_slot(it - 1, S).stage);
      const tc::PlannedTile tile = c.walk.tile(plan, t);
#pragma unroll
      for (int r = 0; r < RB; ++r)
        Epilogue::template store<Tile::kConsumerCols>(out, acc[r], m, n, tile.row + row0 + 64 * r, tile.col,
                                                      alpha, beta, c.index, smem.epilogue, r);
    }
    Epilogue::finish(out, c.index);  // its last TMA stores have read the staging
  });
}
// [/doc:step1_kernel]

// Enqueues wide_tile_gemm_kernel<Tile, Input, tc::TmaStoreEpilogue<Out>> on the persistent grid: C = alpha * A * B +
// beta * C, A row-major m x k (lda), B column-major k x n (ldb), C column-major m x n (ldc); Input fp8 with Out float
// or __nv_bfloat16, or s8/u8 with Out std::int32_t (int32 alpha and beta: Scalar). Preconditions: operands as TMA
// reads and writes them (tc::kTmaOperandRule, tc::kTmaStoreOperandRule). Errors: as tc::launch_on_persistent_grid,
// and tc::make_tma_2d's for C.
template <typename Tile, typename Input, typename Out, typename Scalar>
void launch_wide_tile_gemm(const char* name, int m, int n, int k, Scalar alpha, const Input* A, int lda,
                           const Input* B, int ldb, Scalar beta, Out* C, int ldc, cudaStream_t stream) {
  using Epilogue = tc::TmaStoreEpilogue<Out>;
  static_assert(Tile::kEpilogueBytes >= Tile::kConsumers * Epilogue::kBytesPerConsumer, "the staging fits");
  const typename Epilogue::Params out{tc::output_map(C, m, n, ldc), C, ldc};
  tc::launch_on_persistent_grid<Tile, wide_tile_gemm_kernel<Tile, Input, Epilogue>>(name, m, n, k, alpha, A, lda, B,
                                                                                   ldb, beta, out, stream);
}

// [doc:step1]
struct Step1Fp8 {
  static constexpr const char* name = "1 fp8 per-tensor";
  static constexpr bool kBlockScaled = false;
  static constexpr int kPromotionInterval = 0;  // none: the fp8 accumulator sums the whole of K
  template <typename Tile, typename Precision>
  static void launch_kernel(int m, int n, int k, float alpha, const typename Precision::Input* A, int lda,
                            const typename Precision::Input* B, int ldb, float beta, tc::output_t<Precision>* C,
                            int ldc, cudaStream_t stream) {
    launch_wide_tile_gemm<Tile>(name, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  }
};
using Step1Tile = Tile128x256;

// D = alpha * scale_a * scale_b * A * B + beta * C for fp8 A (row-major m x k, lda) and B (column-major k x n, ldb)
// with per-tensor scales, C column-major m x n (ldc) of Gemm's output type (bf16 or fp32), any m, n, k >= 0 (the
// padded path where the operands break TMA's rules: tc/padded_gemm.hpp). Errors: std::invalid_argument for bad sizes
// or leading dimensions; those of the launch.
template <typename Gemm>
void launch_fp8_per_tensor(int m, int n, int k, float alpha, const typename Gemm::Input* A, int lda, float scale_a,
                           const typename Gemm::Input* B, int ldb, float scale_b, float beta, typename Gemm::Out* C,
                           int ldc, cudaStream_t stream) {
  tc::launch_gemm_any_size<Gemm>(m, n, k, alpha * scale_a * scale_b, A, lda, B, ldb, beta, C, ldc, stream);
}
// [/doc:step1]
