// Chapter 06, step 2 -- cp.async double buffering.
//
// What it adds over step 1: the global -> shared copy no longer passes through registers. Each thread issues its
// 16-byte cp.async copies for the next slice straight into the other shared buffer, closes them into a group, and
// waits for that group only when it needs the data (tc/cp_async.cuh). The registers that held the slice in flight
// (kCopies uint4 per thread) are free, the copy's latency overlaps the whole slice of mma.sync work instead of only the
// part between the load and the store, and there is no separate store loop. The tile, layout and inner loop are
// step 1's; only the pipeline changes.
#pragma once

#include "gemm_tile.cuh"  // GemmTile, the warp loop, the epilogue and copy_slice_async

#include "tc/cp_async.cuh"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>



// [doc:step2_kernel]
// One block computes the Tile::BlockM x Tile::BlockN tile of C = alpha * A * B + beta * C of block_tile(blockIdx.x).
//   A: m x k, fp16, row-major (lda >= k); B: k x n, fp16, column-major (ldb >= k); C: m x n, fp32, column-major
//   (ldc >= m). alpha, beta: fp32; C is read only when beta != 0. Accumulation in fp32. Units: elements.
// Preconditions: m, n, k multiples of BlockM, BlockN, BlockK; A, B 16-byte aligned and lda, ldb multiples of 8 (every
// cp.async source 16-byte aligned); gridDim.x == (m / BlockM) (n / BlockN), blockDim.x == Tile::kThreads;
// Tile::kSmemBytes of dynamic shared memory; Tile::Stages == 2; sm_80 or newer (cp.async).
// Errors: none reported; LdsmGemm::launch's callers check the contract.
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

// [doc:step2_launch]
// The step's name and kernel, and its launcher. Shapes, units, preconditions, errors, source: launch_step_gemm.
struct Step2CpAsync {
  static constexpr const char* name = "2 cp.async x2";
  template <typename Tile>
  static auto kernel() { return cp_async_gemm_kernel<Tile>; }
};
inline void launch_cp_async_gemm(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb,
                                 float beta, float* C, int ldc, cudaStream_t stream = nullptr) {
  launch_step_gemm<Step2CpAsync, Step2Tile>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
// [/doc:step2_launch]
