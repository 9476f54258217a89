// Chapter 07 -- what the three steps share: the block tile, its shared-memory plan, the epilogue and the launch struct.
//
// Every step computes C = alpha * A * B + beta * C with A row-major M x K and B column-major K x N (both K-major, as
// wgmma reads them without a transpose), fp16 or bf16 in, fp32 accumulate, C column-major fp32. A block owns a
// BlockM x BlockN tile of C; each of its Consumers warpgroups owns 64 rows of it as one m64n{BlockN}k16 accumulator.
// K advances BlockK = 64 elements at a time: one 128-byte row per operand row, stored in the 128-byte swizzle
// (tc/layouts/wgmma.hpp), which is what TMA writes and what the descriptors describe.
#pragma once

#include "tc/check.hpp"
#include "tc/dynamic_smem.hpp"
#include "tc/layouts/tags.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc/tile_contract.hpp"
#include "tc/types.hpp"
#include "tc/wgmma.cuh"
#include "tc/wgmma_slice.cuh"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

// [doc:tile]
// The block tile of a step: BlockM x BlockN of C per block, K in slices of BlockK, Stages slices in flight.
template <int BlockM_, int BlockN_, int Stages_>
struct WgmmaTile {
  static constexpr int BlockM = BlockM_, BlockN = BlockN_, BlockK = 64, Stages = Stages_;
  static constexpr int kConsumers = BlockM / 64;  // warpgroups, each one m64nBlockNk16 accumulator
  static constexpr int kThreads = 128 * kConsumers;
  static constexpr int kAccumulators = BlockN / 2;  // fp32 registers a thread holds (tc::wgmma_m64nNk16_d_coord)
  static constexpr int kRowBytes = BlockK * 2;      // one operand row of a slice: 64 16-bit elements
  static constexpr int kSliceABytes = BlockM * kRowBytes, kSliceBBytes = BlockN * kRowBytes;
  static constexpr int kStageBytes = kSliceABytes + kSliceBBytes;
  // The 128-byte swizzle repeats every 1024 bytes; the dynamic shared memory base is only 16-byte aligned, so the
  // kernel rounds it up and asks for this much slack.
  static constexpr int kAlign = 1024;
  static constexpr int kSmemBytes = Stages * kStageBytes + kAlign + 2 * Stages * 8;  // stages, slack, mbarriers
  static_assert(BlockM % 64 == 0 && kConsumers >= 1 && kConsumers <= 2, "one or two m64 warpgroups per block");
  static_assert(BlockN == 128 || BlockN == 256, "wgmma m64n128k16 or m64n256k16");
  static_assert(kRowBytes == 128, "one slice row is exactly one 128-byte swizzle row");
  static_assert(kSliceABytes % kAlign == 0 && kSliceBBytes % kAlign == 0, "every slice starts on a swizzle atom");
  static_assert(BlockM <= 256 && BlockN <= 256, "a TMA box holds at most 256 rows");
  static_assert(kSmemBytes <= 227 * 1024, "an H100/H200 block may have at most 227 KB of shared memory");
};
// [/doc:tile]

// [doc:epilogue]
// C = alpha * acc + beta * C for this warpgroup's 64 x BlockN part of the block tile, each register at
// tc::wgmma_m64nNk16_d_coord. C is column-major (ldc); beta == 0 does not read C.
template <typename Tile>
__device__ inline void store_accumulators(const float (&acc)[Tile::kAccumulators], float* C, int ldc, int row0,
                                          int col0, float alpha, float beta) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < Tile::kAccumulators; ++i) {
    const tc::Coord p = tc::wgmma_m64nNk16_d_coord(warp, lane, i);
    float* c = C + (row0 + p.row) + static_cast<std::size_t>(col0 + p.col) * ldc;
    *c = beta != 0.0f ? alpha * acc[i] + beta * *c : alpha * acc[i];
  }
}
// [/doc:epilogue]

// Launches kKernel (a step's kernel for Tile) on a grid of one block per BlockM x BlockN tile of the m x n C, with
// Tile::kThreads threads and Tile::kSmemBytes of dynamic shared memory. Above 48 KB a kernel must opt in to more
// dynamic shared memory; a template on the kernel itself, so each kernel does so once. Preconditions: m, n multiples
// of the tile. Errors: std::runtime_error when the GPU has too little shared memory; tc::CudaError from the launch.
template <typename Tile, auto kKernel, typename... Args>
void launch_on_block_tiles(const char* name, int m, int n, cudaStream_t stream, Args... args) {
  static const bool opted_in = (tc::opt_in_dynamic_shared_memory(kKernel, Tile::kSmemBytes, name), true);
  (void)opted_in;
  const dim3 grid(n / Tile::BlockN, m / Tile::BlockM);  // x along N, so that consecutive blocks share an A panel
  kKernel<<<grid, Tile::kThreads, Tile::kSmemBytes, stream>>>(args...);
  tc::check_launch();
}

// [doc:launch]
// A step as the project's launchers take it (tc/padded_gemm.hpp): Step::kernel<Tile, Input>() and Step::launch_kernel
// enqueue it; whole tiles only, A and B as TMA or 16-byte copies read them, C through scalar fp32 stores.
template <typename Step_, typename Tile_, typename Precision_>
struct WgmmaGemm {
  using Step = Step_;
  using Tile = Tile_;
  using Precision = Precision_;
  using LayoutA = tc::RowMajor;
  using LayoutB = tc::ColMajor;
  static constexpr const char* name = Step::name;
  static constexpr tc::TileContract kContract{{Tile::BlockM, Tile::BlockN, Tile::BlockK}, tc::kTmaOperandRule,
                                              tc::kScalarF32OperandRule};

  // Enqueues the step. Preconditions: valid arguments that keep kContract, m, n > 0 (checked once, by
  // tc::launch_gemm_any_size); an SM 9.0 GPU. Errors: std::runtime_error when the GPU has too little shared memory;
  // std::invalid_argument from the tensor maps; tc::CudaError when the launch fails.
  static void launch(int m, int n, int k, float alpha, const typename Precision::Input* A, int lda,
                     const typename Precision::Input* B, int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
    Step::template launch_kernel<Tile, typename Precision::Input>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                                  stream);
  }
};
// [/doc:launch]
