// Chapter 06, step 3 -- an N-stage cp.async pipeline on a swizzled shared tile.
//
// What it adds over step 2:
// - Stages (2 to 4) is a template parameter. Stages - 1 slices are in flight while the tensor cores work on the
//   oldest, so a copy has Stages - 1 slices of mma.sync work to hide behind instead of one. Every thread commits
//   exactly one group per iteration (an empty one past the end of K), so "wait until at most Stages - 2 groups are
//   pending" always means "the next slice has landed" (docs/06 draws the timeline).
// - The wait and the barrier move to the last K step of a slice, and the first fragments of the next slice are loaded
//   right after them, before that step's mma.sync: the tensor cores never wait for an ldmatrix at a slice boundary.
// - The stage layout tag is tc::Swizzled instead of tc::Padded<8>: ldmatrix reads stay conflict-free and cp.async
//   writes become so (tested with the bank calculator), with no padding, so a stage is 20% smaller at BlockK = 32.
// The tile, fragment loads, copies and epilogue are the shared ones.
#pragma once

#include "gemm_tile.cuh"  // GemmTile, the warp loop, the epilogue and copy_slice_async

#include "tc/cp_async.cuh"

#include <cuda_fp16.h>
#include <cuda_runtime.h>


// [doc:step3_kernel]
// One block computes the Tile::BlockM x Tile::BlockN tile of C = alpha * A * B + beta * C of block_tile(blockIdx.x).
//   A: m x k, fp16, row-major (lda >= k); B: k x n, fp16, column-major (ldb >= k); C: m x n, fp32, column-major
//   (ldc >= m). alpha, beta: fp32; C is read only when beta != 0. Accumulation in fp32. Units: elements.
// Preconditions: m, n, k multiples of BlockM, BlockN, BlockK; A, B 16-byte aligned and lda, ldb multiples of 8;
// gridDim.x == (m / BlockM) (n / BlockN), blockDim.x == Tile::kThreads; Tile::kSmemBytes of dynamic shared memory;
// any Stages >= 2 and an even number of K steps per slice (static_asserts); sm_80 or newer.
// Errors: none reported; LdsmGemm::launch's callers check the contract.
// Source: PTX ISA, "cp.async.wait_group" (groups complete in commit order); CUDA C++ Programming Guide, "Asynchronous
// Data Copies" (the multi-stage pattern).
template <typename Tile>
__global__ void __launch_bounds__(Tile::kThreads)
    multistage_gemm_kernel(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb,
                           float beta, float* C, int ldc) {
  extern __shared__ __align__(128) __half smem[];  // 128: the swizzle's bank arithmetic starts at a bank row
  constexpr int kSteps = Tile::BlockK / Tile::Mma::K;
  static_assert(kSteps % 2 == 0, "the last K step loads into fragment buffer 0, where the next slice starts");
  const int lane = threadIdx.x % tc::kWarpSize;
  const tc::Coord tile = Tile::block_tile(blockIdx.x, m / Tile::BlockM, n / Tile::BlockN);
  const int block_row = tile.row * Tile::BlockM, block_col = tile.col * Tile::BlockN;
  const tc::Coord warp = Tile::warp_origin(threadIdx.x / tc::kWarpSize);
  auto stage = [&](int slice) { return smem + slice % Tile::Stages * Tile::kStageElems; };

  float acc[Tile::TilesM][Tile::TilesN][4] = {};
  const int slices = k / Tile::BlockK;
  // Prologue: slices 0 .. Stages - 2 in flight, one group each (empty past the end of K).
  for (int s = 0; s < Tile::Stages - 1; ++s) {
    if (s < slices) copy_slice_async<Tile>(stage(s), A, lda, B, ldb, block_row, block_col, s * Tile::BlockK);
    else tc::cp_async_commit_group();
  }
  tc::cp_async_wait_group<Tile::Stages - 2>();  // of this thread's Stages - 1 groups, the oldest (slice 0) is done
  __syncthreads();                              // and so is every other thread's part of it
  WarpFragments<Tile> f[2];                     // the K step being multiplied, and the next one being loaded
  if (slices > 0) load_fragments<Tile>(stage(0), warp, lane, 0, f[0]);
  for (int s = 0; s < slices; ++s) {
    // Slice s - 1's buffer is free: every warp loaded its last fragments before the barrier it has since passed.
    const int next = s + Tile::Stages - 1;
    if (next < slices) copy_slice_async<Tile>(stage(next), A, lda, B, ldb, block_row, block_col, next * Tile::BlockK);
    else tc::cp_async_commit_group();  // one group per iteration, so the wait count below stays right
#pragma unroll
    for (int ks = 0; ks < kSteps; ++ks) {
      WarpFragments<Tile>& load_into = f[(ks + 1) % 2];
      if (ks + 1 < kSteps) {
        load_fragments<Tile>(stage(s), warp, lane, (ks + 1) * Tile::Mma::K, load_into);
      } else {
        // Last K step: slice s + 1 must have landed (all but the newest Stages - 2 groups of this thread are done),
        // and the barrier makes every thread's copies visible and ends every warp's reads of slice s.
        tc::cp_async_wait_group<Tile::Stages - 2>();
        __syncthreads();
        if (s + 1 < slices) load_fragments<Tile>(stage(s + 1), warp, lane, 0, load_into);
      }
      mma_fragments<Tile>(f[ks % 2], acc);
    }
  }
  // Only empty groups can still be pending, and the epilogue does not read shared memory: no wait, no barrier.
  store_accumulators<Tile>(acc, C, ldc, block_row, block_col, warp, lane, alpha, beta);
}
// [/doc:step3_kernel]

// [doc:step4]
// Steps 3 and 4: one kernel, two tiles (gemm_tile.hpp: Step3Tile, and Step4Tile, the sweep's choice). Their names and
// kernel, and their launchers. Shapes, units, preconditions, errors, source: launch_step_gemm (gemm_tile.cuh).
struct Step3Multistage {
  static constexpr const char* name = "3 N-stage+swz";
  template <typename Tile>
  static auto kernel() { return multistage_gemm_kernel<Tile>; }
};
struct Step4Tuned : Step3Multistage {
  static constexpr const char* name = "4 tuned";
};
inline void launch_multistage_gemm(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B,
                                   int ldb, float beta, float* C, int ldc, cudaStream_t stream = nullptr) {
  launch_step_gemm<Step3Multistage, Step3Tile>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
inline void launch_tuned_gemm(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb,
                              float beta, float* C, int ldc, cudaStream_t stream = nullptr) {
  launch_step_gemm<Step4Tuned, Step4Tile>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
// [/doc:step4]
