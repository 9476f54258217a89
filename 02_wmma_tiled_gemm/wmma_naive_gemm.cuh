// Chapter 02, step 1 -- the naive WMMA GEMM: one warp per output tile, fragments loaded straight from global memory.
//
// What it adds over chapter 01: a whole GEMM, D = alpha * A * B + beta * C, for any multiple of the tile. A grid of
// warps covers D, one warp per P::M x P::N tile; each warp walks the K dimension, one P::K-deep slice per
// mma_sync, because a D tile is a sum of tile products: D_ij = sum_l A_il * B_lj. The alpha/beta epilogue runs
// element-wise on the accumulator fragment's x[]. The formulation, down to the warp-to-tile arithmetic, is Lei Mao's
// "NVIDIA Tensor Core Programming" (after NVIDIA's "Programming Tensor Cores in CUDA 9"). It is one template over the
// precision (tc::WmmaF16, WmmaBF16, WmmaTF32, WmmaF64, WmmaS8), so one kernel covers every WMMA type.
// Its weakness is the lesson: every fragment comes from global memory, so each element of A is fetched once per
// tile column of D and each element of B once per tile row (docs/02_wmma_tiled_gemm.md, "Reuse").
#pragma once

#include "tc/check.hpp"
#include "tc/gemm_args.hpp"
#include "tc/layouts/tags.hpp"
#include "tc/tile_contract.hpp"
#include "tc/warp_tile_grid.hpp"
#include "tc/wmma.cuh"

#include <cuda_runtime.h>

// [doc:naive_kernel]
// One warp computes the P::M x P::N tile of C at tile coordinates tc::warp_tile_of(...):
//   C = alpha * A * B + beta * C, all column-major; A is m x k (lda), B is k x n (ldb), C is m x n (ldc).
// Units: elements. alpha, beta: P::Accumulator (float for f16/bf16/tf32, double for f64, int32 for s8).
// Preconditions: m, n, k multiples of P::M, P::N, P::K; the WMMA memory rules (tc/tile_contract.hpp); blockDim.x a
// multiple of 32, so that the lanes of a warp share their tile and every wmma call sees the whole warp. C is not read
// when beta == 0, so it may then hold anything, NaN included. Minimum SM: that of the precision (tc/wmma.cuh).
// Source: CUDA C++ Programming Guide, "Warp Matrix Functions"; grid arithmetic after Lei Mao's post.
template <typename P>
__global__ void wmma_naive_gemm_kernel(int m, int n, int k, typename P::Accumulator alpha,
                                       const typename P::Input* A, int lda, const typename P::Input* B, int ldb,
                                       typename P::Accumulator beta, typename P::Accumulator* C, int ldc) {
  using namespace nvcuda;
  const tc::Coord tile = tc::warp_tile_of(blockIdx, blockDim, threadIdx);  // tc/warp_tile_grid.hpp
  const int row = tile.row * P::M;
  const int col = tile.col * P::N;
  // The grid is rounded up to whole blocks, so edge warps may fall outside C. The test is uniform across a warp,
  // so a warp leaves whole and never splits a collective wmma call.
  if (row >= m || col >= n) return;

  wmma::fragment<wmma::matrix_a, P::M, P::N, P::K, typename P::Fragment, wmma::col_major> a;
  wmma::fragment<wmma::matrix_b, P::M, P::N, P::K, typename P::Fragment, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, P::M, P::N, P::K, typename P::Accumulator> acc;
  wmma::fill_fragment(acc, typename P::Accumulator(0));

  // The K loop: acc += A(row.., l..) * B(l.., col..) for each P::K-deep slice l. Tile pointers stay 32-byte aligned
  // for every precision but s8, whose tiles at odd multiples of 16 rows start 16 bytes in; the s8 GPU tests run such
  // tiles (17 x 33 x 65 and up) and pass on the H200.
  for (int l = 0; l < k; l += P::K) {
    wmma::load_matrix_sync(a, A + row + static_cast<size_t>(l) * lda, lda);
    wmma::load_matrix_sync(b, B + l + static_cast<size_t>(col) * ldb, ldb);
    P::to_fragment_precision(a);
    P::to_fragment_precision(b);
    wmma::mma_sync(acc, a, b, acc);
  }

  // Epilogue. A C fragment of the same type, loaded with the same layout, maps x[i] to the same element as acc.x[i]
  // (the mapping is unspecified but fixed per fragment type), so alpha/beta can be applied slot by slot.
  typename P::Accumulator* c_tile = C + row + static_cast<size_t>(col) * ldc;
  if (beta != typename P::Accumulator(0)) {
    wmma::fragment<wmma::accumulator, P::M, P::N, P::K, typename P::Accumulator> c;
    wmma::load_matrix_sync(c, c_tile, ldc, wmma::mem_col_major);
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = alpha * acc.x[i] + beta * c.x[i];
  } else {
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = alpha * acc.x[i];
  }
  wmma::store_matrix_sync(c_tile, acc, ldc, wmma::mem_col_major);
}
// [/doc:naive_kernel]

// The kernel's launch geometry, contract and launch, as tc/padded_gemm.hpp expects of a kernel.
template <typename P>
struct WmmaNaiveGemm {
  using Precision = P;
  using LayoutA = tc::ColMajor;  // A and B as cuBLAS stores them untransposed (chapter 03 changes these tags)
  using LayoutB = tc::ColMajor;
  static constexpr const char* name = "naive";
  // 4 x 4 warps per block, as in Lei Mao's post: 128 x 4 threads, a 4*P::M x 4*P::N patch of C per block.
  using Grid = tc::WarpPerTileGrid<4, 4>;
  // One warp per P::M x P::N tile, whole tiles only, every operand through WMMA's loads and stores.
  static constexpr tc::TileContract kContract{{P::M, P::N, P::K}, tc::kWmmaOperandRule, tc::kWmmaOperandRule};

  static dim3 block() { return Grid::block(); }
  static dim3 grid(int m, int n) { return Grid::grid(m, n, P::M, P::N); }

  // Enqueues the kernel on `stream`. Preconditions: the arguments are valid and keep kContract, m, n > 0 (checked
  // once, by tc::launch_gemm_any_size or tc::launch_whole_tiles). Errors: tc::CudaError when the launch fails.
  static void launch(int m, int n, int k, typename P::Accumulator alpha, const typename P::Input* A, int lda,
                     const typename P::Input* B, int ldb, typename P::Accumulator beta, typename P::Accumulator* C,
                     int ldc, cudaStream_t stream) {
    wmma_naive_gemm_kernel<P><<<grid(m, n), block(), 0, stream>>>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    tc::check_launch();
  }
};
