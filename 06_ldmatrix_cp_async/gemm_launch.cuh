// Chapter 06 -- the steps as launchable GEMMs: one launch struct for any (step, tile), and one launcher per step with
// the tutorial's cuBLAS-like signature. Step 4 is step 3's kernel with the tile the sweep chose (tile_sweep.cu).
#pragma once

#include "gemm_tile.cuh"
#include "step1_ldmatrix.cuh"
#include "step2_cp_async.cuh"
#include "step3_multistage.cuh"

#include "tc/check.hpp"
#include "tc/dynamic_smem.hpp"
#include "tc/layouts/tags.hpp"
#include "tc/padded_gemm.hpp"
#include "tc/reference.hpp"
#include "tc/tile_contract.hpp"
#include "tc/wmma.cuh"  // tc::WmmaF16: the precision name the padded launcher and the references take

#include <cuda_fp16.h>
#include <cuda_runtime.h>

// [doc:steps]
// The three kernels, by step. kernel<Tile>() is the step's kernel for a tile.
struct Step1Ldmatrix {
  static constexpr const char* name = "1 ldmatrix";
  template <typename Tile>
  static auto kernel() { return ldmatrix_gemm_kernel<Tile>; }
};
struct Step2CpAsync {
  static constexpr const char* name = "2 cp.async x2";
  template <typename Tile>
  static auto kernel() { return cp_async_gemm_kernel<Tile>; }
};
struct Step3Multistage {
  static constexpr const char* name = "3 N-stage+swz";
  template <typename Tile>
  static auto kernel() { return multistage_gemm_kernel<Tile>; }
};

// Step 4: step 3's kernel with the fastest tile of the bounded sweep at 8192^3 on the H200
// (docs/results/06_tile_sweep_h200.csv): 128 x 256 of C per block, 8 warps of 64 x 64, 64-deep slices (128-byte
// lines), 4 stages (192 KB), blocks in groups of 8 block columns. With one block per SM, the H200's 132 resident
// blocks then cover about 16.5 block rows by 8 block columns, a 2112 x 2048 patch of C: square, so it needs the
// fewest rows of A and columns of B from L2 at a time.
using Step4Tile = GemmTile<128, 256, 64, 2, 4, 4, tc::Swizzled, 8>;
struct Step4Tuned : Step3Multistage {
  static constexpr const char* name = "4 tuned";
};
// [/doc:steps]

// [doc:launch]
// Launch geometry and the checked launch, as tc/padded_gemm.hpp expects of a kernel: A row-major (op(A) = T in
// cuBLAS's terms), B column-major (op(B) = N), C column-major; m, n, k multiples of the block tile.
template <typename Step, typename Tile>
struct LdsmGemm {
  using Precision = tc::WmmaF16;  // fp16 in, fp32 accumulate and alpha/beta: only its Input and Accumulator are used
  using LayoutA = tc::RowMajor;
  using LayoutB = tc::ColMajor;
  static constexpr const char* name = Step::name;
  // The tile contract (chapter 02's, WMMA's pointer and ld rules included) is stricter than these kernels need
  // (16-byte A and B rows, 4-byte C); tc::launch_gemm_any_size's padded path covers whatever breaks it.
  static constexpr tc::TileMultiple kTile{Tile::BlockM, Tile::BlockN, Tile::BlockK};

  // Errors: std::invalid_argument (one line) when sizes, leading dimensions or the tile contract are broken;
  // std::runtime_error (one line) when the GPU has less shared memory per block than the tile; tc::CudaError when the
  // launch fails.
  static void launch(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb, float beta,
                     float* C, int ldc, cudaStream_t stream) {
    if (!tc::check_tiled_launch(Step::name, kTile, tc::Op::T, tc::Op::N, m, n, k, A, lda, B, ldb, C, ldc)) return;
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
inline void launch_ldmatrix_gemm(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb,
                                 float beta, float* C, int ldc, cudaStream_t stream = nullptr) {
  launch_step_gemm<Step1Ldmatrix, Step1Tile>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
inline void launch_cp_async_gemm(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb,
                                 float beta, float* C, int ldc, cudaStream_t stream = nullptr) {
  launch_step_gemm<Step2CpAsync, Step2Tile>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
inline void launch_multistage_gemm(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B,
                                   int ldb, float beta, float* C, int ldc, cudaStream_t stream = nullptr) {
  launch_step_gemm<Step3Multistage, Step3Tile>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
inline void launch_tuned_gemm(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb,
                              float beta, float* C, int ldc, cudaStream_t stream = nullptr) {
  launch_step_gemm<Step4Tuned, Step4Tile>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
