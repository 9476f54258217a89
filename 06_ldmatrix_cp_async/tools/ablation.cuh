// Chapter 06 -- where step 4's time goes: its kernel with the parts of a K slice put back one at a time.
//
// Step 4 runs well below the mma.sync ceiling (mma_ceiling.cuh). These kernels keep step 4's tile, grid, registers
// and K loop and switch parts off, so that the difference between two of them is what one part costs. Each still
// computes a well-defined product (ablation_k_weight says which), so the tests can check that no part was optimised
// away:
// - MmaOnly: every slice multiplies the first two K steps' fragments, loaded once: no shared-memory traffic in the
//   loop.
// - PlusLdmatrix: ldmatrix.x4 every K step, from stages that the prologue filled and nobody overwrites.
// - PlusBarrier: and the block barrier at the end of every slice, as in step 3.
// - PlusCopies: and step 3's cp.async of every slice from the block's own panels, but slice s copies K slice
//   s % kL2Slices, so the data stays in L2: step 3's kernel, DRAM traffic aside.
// Step 4 itself is the fifth row (06_ablation prints them; docs/06, "Where step 4's time goes").
#pragma once

#include "gemm_tile.cuh"  // the tile, the warp loop, copy_slice_async and LdsmGemm

#include "tc/cp_async.cuh"
#include "tc/padded_gemm.hpp"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

enum class Ablation { MmaOnly, PlusLdmatrix, PlusBarrier, PlusCopies };

// PlusCopies cycles through the first 8 K slices: at 8192^3 with 64-deep slices, 8 slices of all of A and B are
// 2 x 8192 x 512 halves = 16 MB, a quarter of the H200's 60 MB L2, so after the first pass every copy hits L2.
constexpr int kL2Slices = 8;

// What ablation_kernel<Tile, Part> computes: C = alpha * sum over kk of weight(kk) * A[:, kk] * B[kk, :] + beta * C.
// Every block tile of C gets it from its own rows of A and columns of B, except where the prologue alone fills the
// stages (MmaOnly, PlusLdmatrix, PlusBarrier): those use block tile (0, 0)'s, A's first BlockM rows and B's first
// BlockN columns. MmaOnly: K steps 0 and 1 (fragment buffers 0 and 1), each kSteps / 2 times per slice.
// PlusLdmatrix and PlusBarrier: slice s reads stage s % (Stages - 1), which holds K slice s % (Stages - 1).
// PlusCopies: slice s is K slice s % kL2Slices. Units: kk and k in elements along K, 0 <= kk < k. Preconditions: as
// ablation_kernel's on k. Errors: none. Source: this file's kernel, read off its loop.
template <typename Tile>
constexpr int ablation_k_weight(Ablation part, int kk, int k) {
  constexpr int kSteps = Tile::BlockK / Tile::Mma::K;
  const int slices = k / Tile::BlockK, slice = kk / Tile::BlockK;
  // How many of slices 0 .. slices - 1 are congruent to `slice` modulo `period` (none if slice >= period).
  auto times = [&](int period) { return slice < period ? slices / period + (slice < slices % period ? 1 : 0) : 0; };
  switch (part) {
    case Ablation::MmaOnly:
      return kk < 2 * Tile::Mma::K ? slices * (kSteps / 2) : 0;
    case Ablation::PlusLdmatrix:
    case Ablation::PlusBarrier:
      return times(Tile::Stages - 1);
    case Ablation::PlusCopies:
      return times(kL2Slices);
  }
  return 0;
}

// [doc:ablation_kernel]
// A (row-major, lda), B (column-major, ldb), C (column-major, ldc) as step 3's kernel; units of elements.
// Preconditions: m, n multiples of BlockM, BlockN; k a multiple of BlockK and at least (Stages - 1) * BlockK (the
// prologue fills Stages - 1 stages); 16-byte aligned rows; sm_80. Errors: none of its own (a bad launch is reported
// by the launcher). Source: as multistage_gemm_kernel (step3_multistage.cuh); PTX ISA, "bar.sync" for the barrier.
template <typename Tile, Ablation Part>
__global__ void __launch_bounds__(Tile::kThreads)
    ablation_kernel(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb, float beta,
                    float* C, int ldc) {
  extern __shared__ __align__(128) __half smem[];  // 128: the swizzle's bank arithmetic starts at a bank row
  constexpr int kSteps = Tile::BlockK / Tile::Mma::K, kFilled = Tile::Stages - 1;
  constexpr bool kLoads = Part != Ablation::MmaOnly, kBarrier = Part >= Ablation::PlusBarrier,
                 kCopies = Part == Ablation::PlusCopies;
  const int lane = threadIdx.x % tc::kWarpSize;
  const tc::Coord tile = Tile::block_tile(blockIdx.x, m / Tile::BlockM, n / Tile::BlockN);
  const int block_row = tile.row * Tile::BlockM, block_col = tile.col * Tile::BlockN;
  const int panel_row = kCopies ? block_row : 0, panel_col = kCopies ? block_col : 0;  // whose panels it copies
  const tc::Coord warp = Tile::warp_origin(threadIdx.x / tc::kWarpSize);
  auto stage = [&](int slice) { return smem + slice % Tile::Stages * Tile::kStageElems; };
  // Without copies in the loop, slice s reads the stage the prologue filled with slice s % kFilled.
  auto read_stage = [&](int slice) { return stage(kCopies ? slice : slice % kFilled); };

  float acc[Tile::TilesM][Tile::TilesN][4] = {};
  const int slices = k / Tile::BlockK;
  auto copy = [&](int slice) {  // the K slice a slice copies: itself, or modulo kL2Slices in PlusCopies
    const int k0 = (kCopies ? slice % kL2Slices : slice) * Tile::BlockK;
    copy_slice_async<Tile>(stage(slice), A, lda, B, ldb, panel_row, panel_col, k0);
  };
  for (int s = 0; s < kFilled; ++s) copy(s);
  // With copies, as step 3: slice 0 has landed. Without, the loop never waits, so every filled stage lands now.
  tc::cp_async_wait_group<kCopies ? kFilled - 1 : 0>();
  __syncthreads();  // and every thread's part of it is visible to the block
  WarpFragments<Tile> f[2];
  load_fragments<Tile>(read_stage(0), warp, lane, 0, f[0]);
  if constexpr (!kLoads) load_fragments<Tile>(read_stage(0), warp, lane, Tile::Mma::K, f[1]);
  for (int s = 0; s < slices; ++s) {
    if constexpr (kCopies) {  // step 3's copy, one group per slice
      const int next = s + kFilled;
      if (next < slices) copy(next);
      else tc::cp_async_commit_group();
    }
#pragma unroll
    for (int ks = 0; ks < kSteps; ++ks) {
      if constexpr (kLoads) {
        WarpFragments<Tile>& load_into = f[(ks + 1) % 2];
        if (ks + 1 < kSteps) {
          load_fragments<Tile>(read_stage(s), warp, lane, (ks + 1) * Tile::Mma::K, load_into);
        } else {
          if constexpr (kCopies) tc::cp_async_wait_group<Tile::Stages - 2>();  // step 3's: slice s + 1 has landed
          // Step 3's barrier. Where it is switched off nothing needs it: no stage is written after the prologue.
          if constexpr (kBarrier) __syncthreads();
          if (s + 1 < slices) load_fragments<Tile>(read_stage(s + 1), warp, lane, 0, load_into);
        }
      }
      mma_fragments<Tile>(f[ks % 2], acc);
    }
  }
  store_accumulators<Tile>(acc, C, ldc, block_row, block_col, warp, lane, alpha, beta);
}
// [/doc:ablation_kernel]

// Ablation Part as a step (tc/padded_gemm.hpp's kernel type is then LdsmGemm<AblationStep<Part>, Tile>).
template <Ablation Part>
struct AblationStep {
  static constexpr const char* name = "ablation";
  template <typename Tile>
  static auto kernel() { return ablation_kernel<Tile, Part>; }
};

// Launch ablation_kernel<Tile, Part> with the tutorial's launcher signature, through tc::launch_whole_tiles: the
// steps' tile contract is checked there, once; k's minimum here. Shapes and preconditions: as the kernel. Errors:
// std::invalid_argument (one line) when they are broken; tc::CudaError when the launch fails. Source: CUDA C++
// Programming Guide, "Shared Memory" (opting in above 48 KB).
template <typename Tile, Ablation Part>
void launch_ablation(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb, float beta,
                     float* C, int ldc, cudaStream_t stream = nullptr) {
  constexpr int kMinK = (Tile::Stages - 1) * Tile::BlockK;  // the prologue fills Stages - 1 stages from K
  if (k < kMinK) throw std::invalid_argument("ablation: k must be >= " + std::to_string(kMinK) + ", got " +
                                             std::to_string(k));
  tc::launch_whole_tiles<LdsmGemm<AblationStep<Part>, Tile>>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
