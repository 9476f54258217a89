// Exercise 02.2 -- the alpha/beta epilogue of the naive WMMA GEMM. Hints: docs/02_wmma_tiled_gemm.md,
// "Exercise 02.2". Check it with: ctest --preset workshop -R "exercise 02.2" (needs a GPU).
//
// After the K loop, acc holds A * B for the warp's tile. Write C = alpha * acc + beta * C for that tile, reading C
// only when beta != 0 (C may then hold anything, NaN included, as in cuBLAS).
#pragma once

#include "wmma_naive_gemm.cuh"  // WmmaNaiveGemm: the launch geometry, which is given

#include "tc/check.hpp"
#include "tc/warp_tile_grid.hpp"
#include "tc/wmma.cuh"

#include <cuda_runtime.h>

namespace ex02_2 {

// One warp computes the 16 x 16 tile of C = alpha * A * B + beta * C at tc::warp_tile_of(...), fp16 in, fp32
// accumulate; A m x k, B k x n, C m x n, all column-major (lda, ldb, ldc in elements). Preconditions: m, n, k
// multiples of 16; the WMMA memory rules; C is not read when beta == 0. Minimum SM 7.0.
// Source: CUDA C++ Programming Guide, "Warp Matrix Functions".
__global__ void naive_gemm_kernel(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb,
                                  float beta, float* C, int ldc) {
  using namespace nvcuda;
  const tc::Coord tile = tc::warp_tile_of(blockIdx, blockDim, threadIdx);
  const int row = tile.row * 16, col = tile.col * 16;
  if (row >= m || col >= n) return;  // uniform per warp: edge warps of the rounded-up grid leave whole

  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::col_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);

  for (int l = 0; l < k; l += 16) {
    wmma::load_matrix_sync(a, A + row + static_cast<size_t>(l) * lda, lda);
    wmma::load_matrix_sync(b, B + l + static_cast<size_t>(col) * ldb, ldb);
    wmma::mma_sync(acc, a, b, acc);
  }

  // TODO(exercise 02.2): the tile of C starts at C + row + col * ldc. Scale acc element by element (acc.x[i],
  // acc.num_elements), add beta times C's tile when beta != 0 (load it into an accumulator fragment: its x[i] match
  // acc's), and store the result with wmma::mem_col_major.
  (void)alpha, (void)beta, (void)C, (void)ldc;
}

// The tutorial's cuBLAS-like launcher: C = alpha * A * B + beta * C, shapes and preconditions as the kernel's.
// Errors: tc::CudaError if the launch fails.
inline void launch_naive_gemm(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb,
                              float beta, float* C, int ldc) {
  using Geometry = WmmaNaiveGemm<tc::WmmaF16>;  // 4 x 4 warps per block, one 16 x 16 tile each
  naive_gemm_kernel<<<Geometry::grid(m, n), Geometry::block()>>>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  tc::check_launch();
}

}  // namespace ex02_2
