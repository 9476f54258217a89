// Chapter 06 -- what every step shares on the GPU: the warp's inner loop on ldmatrix.x4 + mma.sync.m16n8k16, the
// epilogue, the cp.async copy of a K slice (steps 2 to 4), and the launch of any step with any tile. The steps
// (step1_*.cuh .. step3_*.cuh) differ only in how a K slice reaches shared memory; their tiles are in gemm_tile.hpp.
//
// What the inner loop adds over chapter 05: a fragment is no longer 4 (A) or 2 (B) 32-bit LDS per lane at formula
// addresses, but one ldmatrix.x4 per A fragment and one per pair of B fragments, each lane pointing at one 16-byte row
// (tc/layouts/ldmatrix.hpp: ldmatrix_x4_a_source, ldmatrix_x4_b_source). The composition of that addressing with
// ldmatrix's own lane map is proven equal to the m16n8k16 fragment formulas on the host (GemmTile's static_asserts
// and common/tests/test_ldmatrix_layouts.cpp) and on the GPU by every GEMM test.
// Shapes and layouts, for every function here: A m x k row-major (lda), B k x n column-major (ldb), C m x n
// column-major (ldc), fp16 in, fp32 accumulate; a stage is Tile::kStageElems halves of shared memory laid out by
// Tile::Lines. Units: elements. Preconditions: as each function says; sm_80 or newer (ldmatrix, cp.async,
// m16n8k16). Errors: the device functions report none; LdsmGemm::launch as it says.
// Source: PTX ISA 9.7.14.5.15 (ldmatrix), 9.7.14.5.8 (m16n8k16 fragments), "cp.async", "cp.async.commit_group";
// CUDA C++ Programming Guide, "Shared Memory" (opting in above 48 KB).
#pragma once

#include "gemm_tile.hpp"

#include "tc/check.hpp"
#include "tc/cp_async.cuh"
#include "tc/dynamic_smem.hpp"
#include "tc/layouts/tags.hpp"
#include "tc/ldmatrix.cuh"
#include "tc/mma_sync.cuh"
#include "tc/padded_gemm.hpp"
#include "tc/tile_contract.hpp"
#include "tc/types.hpp"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

// [doc:warp_loop]
// The registers one K step of a warp needs: TilesM A fragments, and TilesN / 2 pairs of B fragments (b[j] holds n8
// tiles 2j in registers 0, 1 and 2j + 1 in registers 2, 3).
template <typename Tile>
struct WarpFragments {
  std::uint32_t a[Tile::TilesM][4], b[Tile::TilesN / 2][4];
};

// ldmatrix.x4 of the warp's fragments at K step k0 of `stage`. The lane's offsets for fragment 0 depend only on the
// warp, the lane and k0, so the compiler computes them once per kernel; fragment i lies i * 16 lines further, a
// constant, because the layout repeats every Lines::kRepeatLines lines.
template <typename Tile>
__device__ inline void load_fragments(const __half* stage, tc::Coord warp, int lane, int k0, WarpFragments<Tile>& f) {
  const __half* a = stage + Tile::a_ldmatrix_offset(warp.row, k0, lane);
  const __half* b = stage + Tile::b_ldmatrix_offset(warp.col, k0, lane);
#pragma unroll
  for (int i = 0; i < Tile::TilesM; ++i) tc::ldmatrix_x4(f.a[i], a + i * Tile::Mma::M * Tile::Lines::kLineStride);
#pragma unroll
  for (int j = 0; j < Tile::TilesN / 2; ++j)
    tc::ldmatrix_x4(f.b[j], b + j * 2 * Tile::Mma::N * Tile::Lines::kLineStride);
}

// TilesM x TilesN mma.sync of one K step into the fp32 accumulators, in Tile::mma_column's order.
template <typename Tile>
__device__ inline void mma_fragments(const WarpFragments<Tile>& f, float (&acc)[Tile::TilesM][Tile::TilesN][4]) {
#pragma unroll
  for (int i = 0; i < Tile::TilesM; ++i)
#pragma unroll
    for (int jj = 0; jj < Tile::TilesN; ++jj) {
      const int j = Tile::mma_column(i, jj);
      const std::uint32_t b[2] = {f.b[j / 2][j % 2 * 2], f.b[j / 2][j % 2 * 2 + 1]};
      tc::mma_m16n8k16_row_col_f32_f16_f16_f32(acc[i][j], f.a[i], b, acc[i][j]);
    }
}

// One warp's share of one stage (steps 1 and 2): for each K step of 16, the next step's fragments are loaded before
// this step's products are issued, so their latency hides behind them (two fragment buffers). `stage`: the stage's
// first element (shared memory); `warp`: the warp's origin in the block tile.
template <typename Tile>
__device__ inline void warp_mma_stage(const __half* stage, tc::Coord warp, int lane,
                                      float (&acc)[Tile::TilesM][Tile::TilesN][4]) {
  constexpr int kSteps = Tile::BlockK / Tile::Mma::K;
  WarpFragments<Tile> f[2];
  load_fragments<Tile>(stage, warp, lane, 0, f[0]);
#pragma unroll
  for (int ks = 0; ks < kSteps; ++ks) {
    if (ks + 1 < kSteps) load_fragments<Tile>(stage, warp, lane, (ks + 1) * Tile::Mma::K, f[(ks + 1) % 2]);
    mma_fragments<Tile>(f[ks % 2], acc);
  }
}
// [/doc:warp_loop]

// The epilogue: each lane owns c0..c3 of every m16n8 tile, at the C/D formula's places; C (column-major, ldc) at the
// block's (block_row, block_col) gets alpha * acc + beta * C, read only when beta != 0.
template <typename Tile>
__device__ inline void store_accumulators(const float (&acc)[Tile::TilesM][Tile::TilesN][4], float* C, int ldc,
                                          int block_row, int block_col, tc::Coord warp, int lane, float alpha,
                                          float beta) {
#pragma unroll
  for (int i = 0; i < Tile::TilesM; ++i)
#pragma unroll
    for (int j = 0; j < Tile::TilesN; ++j)
#pragma unroll
      for (int e = 0; e < tc::MmaM16N8K16::kElemsC; ++e) {
        const tc::Coord p = tc::mma_m16n8k16_c_coord(lane, e);
        float* c = C + (block_row + warp.row + i * Tile::Mma::M + p.row) +
                   static_cast<std::size_t>(block_col + warp.col + j * Tile::Mma::N + p.col) * ldc;
        *c = beta != 0.0f ? alpha * acc[i][j][e] + beta * *c : alpha * acc[i][j][e];
      }
}

// [doc:copy]
// Issue this thread's cp.async copies of the slice at K offset k0 into `stage` (any Tile::Lines layout), and commit
// them as one group. Copy i moves the same chunk of a line Tile::kLinesPerCopy lines further than copy i - 1, so one
// A pointer, one B pointer and one shared offset per thread serve them all, plus constants (the layout repeats every
// 8 lines); whether copy i lies in A or in B is known at compile time.
// Shapes: the slice is A's rows block_row .. block_row + BlockM - 1 and B's columns block_col .. + BlockN - 1, K
// k0 .. k0 + BlockK - 1. Preconditions: A, B and every line 16-byte aligned (lda, ldb multiples of 8); the slice
// inside A and B; called by all Tile::kThreads threads. Errors: none reported. Source: PTX ISA, "cp.async",
// "cp.async.commit_group".
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

// [doc:launch]
// Launch geometry, contract and launch of any step with any tile, as tc/padded_gemm.hpp expects of a kernel: A row-major (op(A) = T in
// cuBLAS's terms), B column-major (op(B) = N), C column-major; m, n, k multiples of the block tile.
template <typename Step_, typename Tile_>
struct LdsmGemm {
  using Step = Step_;
  using Tile = Tile_;
  using Precision = tc::F16F32;  // fp16 in, fp32 accumulate and alpha/beta
  using LayoutA = tc::RowMajor;
  using LayoutB = tc::ColMajor;
  static constexpr const char* name = Step::name;
  // Whole block tiles; A and B move in 16-byte copies (cp.async or uint4), C through scalar fp32 stores.
  static constexpr tc::TileContract kContract{{Tile::BlockM, Tile::BlockN, Tile::BlockK}, tc::kVector16OperandRule,
                                              tc::kScalarF32OperandRule};

  // Enqueues Step's kernel for Tile. Preconditions: valid arguments that keep kContract, m, n > 0 (checked once, by
  // tc::launch_gemm_any_size or tc::launch_whole_tiles). Errors: std::runtime_error (one line) when the GPU has less
  // shared memory per block than the tile; tc::CudaError when the launch fails.
  static void launch(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb, float beta,
                     float* C, int ldc, cudaStream_t stream) {
    const auto kernel = Step::template kernel<Tile>();
    // Above 48 KB a block must opt in to more dynamic shared memory; once per (step, tile).
    static const bool opted_in = (tc::opt_in_dynamic_shared_memory(kernel, Tile::kSmemBytes, Step::name), true);
    (void)opted_in;
    const int blocks = (m / Tile::BlockM) * (n / Tile::BlockN);  // a 1-D grid: Tile::block_tile orders the tiles
    kernel<<<blocks, Tile::kThreads, Tile::kSmemBytes, stream>>>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    tc::check_launch();
  }
};
// [/doc:launch]

// The four steps behind the tutorial's one launcher signature (cuBLAS's argument order): C = alpha * A * B + beta * C
// in place, A m x k row-major (lda >= max(1, k)), B k x n column-major (ldb >= max(1, k)), C m x n column-major
// (ldc >= max(1, m); rows m..ldc-1 never written), fp16 in, fp32 accumulate and scale, any m, n, k >= 0, device
// pointers, units of elements. Operands that break the tile contract go through padded scratch copies
// (tc/padded_gemm.hpp). Minimum SM 8.0 (cp.async, m16n8k16). Errors: std::invalid_argument (one line) for bad sizes
// or leading dimensions; std::runtime_error for too little shared memory; tc::CudaError for CUDA failures, out of
// memory for the scratch included. Source: cuBLAS documentation, "cublas<t>gemm()" (transa = T, transb = N).
template <typename Step, typename Tile>
void launch_step_gemm(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb, float beta,
                      float* C, int ldc, cudaStream_t stream = nullptr) {
  tc::launch_gemm_any_size<LdsmGemm<Step, Tile>>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

// A launcher of that signature with its name: how the tests and the ablation list the steps they run.
struct NamedLauncher {
  using Launcher = void (*)(int, int, int, float, const __half*, int, const __half*, int, float, float*, int,
                            cudaStream_t);
  const char* name;
  Launcher launch;
};
