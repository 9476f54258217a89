// Chapter 06, step 2 -- cp.async double buffering.
//
// What it adds over step 1: the global -> shared copy no longer passes through registers. Each thread issues its
// 16-byte cp.async copies for the next slice straight into the other shared buffer, closes them into a group, and
// waits for that group only when it needs the data (tc/cp_async.cuh). The registers that held the slice in flight
// (kCopies uint4 per thread) are free, the copy's latency overlaps the whole slice of mma.sync work instead of only the
// part between the load and the store, and there is no separate store loop. The tile, layout and inner loop are
// step 1's; only the pipeline changes.
#pragma once

#include "gemm_tile.cuh"

#include "tc/cp_async.cuh"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>

// [doc:step2_tile]
using Step2Tile = GemmTile<128, 128, 32, 2, 4, 2, tc::Padded<8>>;  // step 1's tile: only the copy mechanism differs
// [/doc:step2_tile]

// [doc:copy]
// Issue this thread's cp.async copies of the slice at K offset k0 into `stage` (any Tile::Lines layout), and commit
// them as one group. Copy i moves the same chunk of a line Tile::kLinesPerCopy lines further than copy i - 1, so one
// A pointer, one B pointer and one shared offset per thread serve them all, plus constants (the layout repeats every
// 8 lines); whether copy i lies in A or in B is known at compile time. Shapes and preconditions: as the kernels.
template <typename Tile>
__device__ inline void copy_slice_async(__half* stage, const __half* A, int lda, const __half* B, int ldb,
                                        int block_row, int block_col, int k0) {
  const tc::Coord first = Tile::copy_chunk(threadIdx.x, 0);
  const int col = first.col * Tile::kChunk;
  const __half* a = A + static_cast<std::size_t>(block_row + first.row) * lda + k0 + col;
  const __half* b = B + static_cast<std::size_t>(block_col + first.row) * ldb + k0 + col;
  __half* dst = stage + Tile::Lines::offset(first.row, col);
#pragma unroll
  for (int i = 0; i < Tile::kCopies; ++i) {
    const int line = i * Tile::kLinesPerCopy;  // relative to first.row
    const __half* src = line < Tile::BlockM ? a + static_cast<std::size_t>(line) * lda
                                            : b + static_cast<std::size_t>(line - Tile::BlockM) * ldb;
    tc::cp_async_cg_shared_global_16(dst + line * Tile::Lines::kLineStride, src, false);
  }
  tc::cp_async_commit_group();
}
// [/doc:copy]

// [doc:step2_kernel]
// One block computes the Tile::BlockM x Tile::BlockN tile of C = alpha * A * B + beta * C of block_tile(blockIdx.x).
// Shapes, layouts, units, preconditions and errors: as ldmatrix_gemm_kernel (step1_ldmatrix.cuh).
// Source: PTX ISA, "cp.async", "cp.async.commit_group", "cp.async.wait_group"; 9.7.14.5.15 (ldmatrix).
template <typename Tile>
__global__ void __launch_bounds__(Tile::kThreads)
    cp_async_gemm_kernel(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb,
                         float beta, float* C, int ldc) {
  static_assert(Tile::Stages == 2, "double buffering: one slice computed while the other is copied");
  extern __shared__ __align__(128) __half smem[];  // 128: cp.async and ldmatrix need 16, the bank maths 128
  const int lane = threadIdx.x % tc::kWarpSize;
  const tc::Coord tile = Tile::block_tile(blockIdx.x, m / Tile::BlockM, n / Tile::BlockN);
  const int block_row = tile.row * Tile::BlockM, block_col = tile.col * Tile::BlockN;
  const tc::Coord warp = Tile::warp_origin(threadIdx.x / tc::kWarpSize);

  float acc[Tile::TilesM][Tile::TilesN][4] = {};
  const int slices = k / Tile::BlockK;
  if (slices > 0) copy_slice_async<Tile>(smem, A, lda, B, ldb, block_row, block_col, 0);
  for (int s = 0; s < slices; ++s) {
    __half* stage = smem + s % 2 * Tile::kStageElems;
    tc::cp_async_wait_group<0>();  // this thread's copies of slice s have landed (the only group in flight)
    // One barrier, two reasons: every thread's copies of slice s are visible to every warp, and every warp has
    // finished reading slice s - 1, whose buffer the copy issued next overwrites.
    __syncthreads();
    if (s + 1 < slices)
      copy_slice_async<Tile>(smem + (s + 1) % 2 * Tile::kStageElems, A, lda, B, ldb, block_row, block_col,
                             (s + 1) * Tile::BlockK);
    warp_mma_stage<Tile>(stage, warp, lane, acc);
  }
  // Nothing is left in flight (the last iteration issued no copy) and the epilogue does not read shared memory.
  store_accumulators<Tile>(acc, C, ldc, block_row, block_col, warp, lane, alpha, beta);
}
// [/doc:step2_kernel]
