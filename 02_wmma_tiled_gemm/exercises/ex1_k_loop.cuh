// Exercise 02.1 -- the K loop of the naive WMMA GEMM. Hints: docs/02_wmma_tiled_gemm.md, "Exercise 02.1". Check it
// with: ctest --preset workshop -R "exercise 02.1" (needs a GPU).
//
// Chapter 01 multiplied one tile. A tile of C is a sum over K: C_ij = sum_l A_il * B_lj, one 16-deep slice at a
// time. The tile choice, the fragments and the epilogue are written; the loop over K is yours.
#pragma once

#include "wmma_naive_gemm.cuh"  // WmmaNaiveGemm: the launch geometry, which is given

#include "tc/check.hpp"
#include "tc/warp_tile_grid.hpp"
#include "tc/wmma.cuh"

#include <cuda_runtime.h>

namespace ex02_1 {

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

  // TODO(exercise 02.1): for each 16-deep slice l of K, load the 16 x 16 tile of A at (row, l) and of B at (l, col)
  // (column-major: element (r, c) is at r + c * ld), and accumulate their product into acc.
  (void)k, (void)A, (void)lda, (void)B, (void)ldb, (void)a, (void)b;

  float* c_tile = C + row + static_cast<size_t>(col) * ldc;
  if (beta != 0.0f) {
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::load_matrix_sync(c, c_tile, ldc, wmma::mem_col_major);
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = alpha * acc.x[i] + beta * c.x[i];
  } else {
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = alpha * acc.x[i];
  }
  wmma::store_matrix_sync(c_tile, acc, ldc, wmma::mem_col_major);
}

// The tutorial's cuBLAS-like launcher: C = alpha * A * B + beta * C, shapes and preconditions as the kernel's.
// Errors: tc::CudaError if the launch fails.
inline void launch_naive_gemm(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb,
                              float beta, float* C, int ldc) {
  using Geometry = WmmaNaiveGemm<tc::WmmaF16>;  // 4 x 4 warps per block, one 16 x 16 tile each
  naive_gemm_kernel<<<Geometry::grid(m, n), Geometry::block()>>>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  tc::check_launch();
}

}  // namespace ex02_1
