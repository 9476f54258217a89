// Chapter 06, step 1 -- chapter 05's GEMM with its fragments loaded by ldmatrix.x4. (The tile and the inner loop it
// shares with the later steps: gemm_tile.hpp and gemm_tile.cuh.)
//
// What it adds over chapter 05: nothing but the fragment loads. The block plan is the same (128 x 128 x 32, 8 warps
// of 64 x 32, shared lines padded by 16 bytes, the next K slice staged through registers while the tensor cores work,
// one barrier per slice), so the difference in the results table is what ldmatrix buys: per warp and K step, 4 + 2
// LDSM.x4 instead of 16 + 8 LDS.32 (docs/06 counts them in the SASS). The global -> shared copy is still synchronous:
// each thread loads 16 bytes into a register and stores them to shared memory itself, which step 2 replaces.
#pragma once

#include "gemm_tile.cuh"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>


// [doc:step1_kernel]
// One block computes the Tile::BlockM x Tile::BlockN tile of C = alpha * A * B + beta * C of block_tile(blockIdx.x).
//   A: m x k, fp16, row-major (lda >= k); B: k x n, fp16, column-major (ldb >= k); C: m x n, fp32, column-major
//   (ldc >= m). alpha, beta: fp32; C is read only when beta != 0. Accumulation in fp32.
// Preconditions: m, n, k multiples of BlockM, BlockN, BlockK; A, B 16-byte aligned and lda, ldb multiples of 8;
// gridDim.x == (m / BlockM) (n / BlockN), blockDim.x == Tile::kThreads; Tile::kSmemBytes of dynamic shared memory;
// sm_80 or newer.
// Errors: none reported; the launcher checks the contract. Source: PTX ISA 9.7.14.5.15 (ldmatrix) and 9.7.14.5.8
// (m16n8k16 fragments); CUDA C++ Programming Guide, "Shared Memory".
template <typename Tile>
__global__ void __launch_bounds__(Tile::kThreads)
    ldmatrix_gemm_kernel(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb,
                         float beta, float* C, int ldc) {
  static_assert(Tile::Stages == 2, "register staging keeps exactly one slice in flight");
  // 128-byte alignment: the layouts' bank arithmetic assumes it, and 16-byte stores and ldmatrix rows need 16.
  extern __shared__ __align__(128) __half smem[];
  const int lane = threadIdx.x % tc::kWarpSize;
  const tc::Coord tile = Tile::block_tile(blockIdx.x, m / Tile::BlockM, n / Tile::BlockN);
  const int block_row = tile.row * Tile::BlockM, block_col = tile.col * Tile::BlockN;
  const tc::Coord warp = Tile::warp_origin(threadIdx.x / tc::kWarpSize);

  uint4 next[Tile::kCopies];  // the next slice, on its way from global memory through registers
  auto load_global = [&](int k0) {
#pragma unroll
    for (int i = 0; i < Tile::kCopies; ++i) {
      const tc::Coord c = Tile::copy_chunk(threadIdx.x, i);
      const __half* src = c.row < Tile::BlockM ? A + static_cast<std::size_t>(block_row + c.row) * lda
                                               : B + static_cast<std::size_t>(block_col + c.row - Tile::BlockM) * ldb;
      next[i] = *reinterpret_cast<const uint4*>(src + k0 + c.col * Tile::kChunk);
    }
  };
  auto store_shared = [&](int stage) {
#pragma unroll
    for (int i = 0; i < Tile::kCopies; ++i) {
      const tc::Coord c = Tile::copy_chunk(threadIdx.x, i);
      *reinterpret_cast<uint4*>(smem + stage * Tile::kStageElems + Tile::Lines::offset(c.row, c.col * Tile::kChunk)) =
          next[i];
    }
  };

  float acc[Tile::TilesM][Tile::TilesN][4] = {};
  const int slices = k / Tile::BlockK;
  if (slices > 0) {  // k == 0 is legal (C = beta * C) and has no slice to load
    load_global(0);
    store_shared(0);
  }
  __syncthreads();  // slice 0 must be in shared memory before any warp's ldmatrix reads it
  for (int s = 0; s < slices; ++s) {
    const int stage = s % 2;
    if (s + 1 < slices) load_global((s + 1) * Tile::BlockK);  // in flight while the tensor cores work below
    warp_mma_stage<Tile>(smem + stage * Tile::kStageElems, warp, lane, acc);
    // The other stage was last read in iteration s - 1, whose closing barrier every warp has passed, so it can be
    // overwritten now while slower warps still read this one.
    if (s + 1 < slices) store_shared(stage ^ 1);
    __syncthreads();  // the next slice must be fully stored before any warp reads it in iteration s + 1
  }
  store_accumulators<Tile>(acc, C, ldc, block_row, block_col, warp, lane, alpha, beta);
}
// [/doc:step1_kernel]

// [doc:step1_launch]
// The step as the launch struct and the driver name it (kernel<Tile>() is its kernel for a tile), and its launcher
// with the tutorial's signature. Shapes, units, preconditions, errors and source: launch_step_gemm (gemm_tile.cuh).
struct Step1Ldmatrix {
  static constexpr const char* name = "1 ldmatrix";
  template <typename Tile>
  static auto kernel() { return ldmatrix_gemm_kernel<Tile>; }
};
inline void launch_ldmatrix_gemm(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb,
                                 float beta, float* C, int ldc, cudaStream_t stream = nullptr) {
  launch_step_gemm<Step1Ldmatrix, Step1Tile>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
// [/doc:step1_launch]
