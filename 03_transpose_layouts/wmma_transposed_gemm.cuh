// Chapter 03 -- op(A) * op(B) for all four transposes, by choosing the fragments' layout tags.
//
// What it adds over chapter 02's naive kernel: the layouts of A and B become type parameters. cuBLAS stores every
// matrix column-major and says "op(A) = A^T" to mean "read A across instead of down": the m x k matrix op(A) is then
// the same bytes as a row-major m x k array with leading dimension lda. So a transpose is a layout tag,
// LayoutA = tc::RowMajor instead of tc::ColMajor, and nothing else changes: the fragment is declared with the matching
// nvcuda::wmma layout, and the tile's address comes from the tag's offset(row, col, ld). The kernel body is written
// once; C = alpha * op(A) * op(B) + beta * C for NN, NT, TN and TT are four instantiations of it, for fp16 (HMMA,
// fp32 accumulate) and s8 (IMMA, int32 accumulate). No element is moved to make a transpose; what a transpose does
// change is which addresses each load touches, and docs/03_transpose_layouts.md measures that.
#pragma once

#include "tc/check.hpp"
#include "tc/gemm_args.hpp"
#include "tc/layouts/tags.hpp"
#include "tc/padded_gemm.hpp"
#include "tc/tile_contract.hpp"
#include "tc/warp_tile_grid.hpp"
#include "tc/wmma.cuh"

#include <cuda_runtime.h>

// [doc:kernel]
// One warp computes the P::M x P::N tile of C at tile coordinates tc::warp_tile_of(...):
//   C = alpha * op(A) * op(B) + beta * C. op(A) is m x k stored as LayoutA with leading dimension lda, op(B) is k x n
//   stored as LayoutB with ldb (tc::ColMajor: op N, tc::RowMajor: op T, as in cuBLAS); C is m x n column-major, ldc.
// Units: elements. alpha, beta: P::Accumulator (float for f16, int32 for s8).
// Preconditions: m, n, k multiples of P::M, P::N, P::K; the WMMA memory rules (tc/tile_contract.hpp); blockDim.x a
// multiple of 32, so that the lanes of a warp share their tile. C is not read when beta == 0. Minimum SM: that of
// the precision (tc/wmma.cuh). Source: CUDA C++ Programming Guide, "Warp Matrix Functions" (load_matrix_sync's
// layout argument); cuBLAS documentation, "cublas<t>gemm()" (transa, transb).
template <typename P, typename LayoutA, typename LayoutB>
__global__ void wmma_transposed_gemm_kernel(int m, int n, int k, typename P::Accumulator alpha,
                                            const typename P::Input* A, int lda, const typename P::Input* B, int ldb,
                                            typename P::Accumulator beta, typename P::Accumulator* C, int ldc) {
  using namespace nvcuda;
  const tc::Coord tile = tc::warp_tile_of(blockIdx, blockDim, threadIdx);
  const int row = tile.row * P::M;
  const int col = tile.col * P::N;
  if (row >= m || col >= n) return;  // uniform across the warp: edge warps leave whole (chapter 02)

  // What a transpose changes, part 1: the layout each fragment is declared with (part 2: the tag's offset below).
  wmma::fragment<wmma::matrix_a, P::M, P::N, P::K, typename P::Fragment, tc::wmma_layout_t<LayoutA>> a;
  wmma::fragment<wmma::matrix_b, P::M, P::N, P::K, typename P::Fragment, tc::wmma_layout_t<LayoutB>> b;
  wmma::fragment<wmma::accumulator, P::M, P::N, P::K, typename P::Accumulator> acc;
  wmma::fill_fragment(acc, typename P::Accumulator(0));

  for (int l = 0; l < k; l += P::K) {
    // The tile op(A)(row.., l..) starts at offset(row, l) and op(B)(l.., col..) at offset(l, col) in the operand's own
    // layout; ld is the operand's ld either way, because load_matrix_sync reads ldm in the layout it is given. As in
    // chapter 02, s8 tiles 16 elements along a line start 16 bytes in, short of the documented 32-byte alignment; the
    // s8 GPU tests run such tiles in all four layouts and pass on the H200.
    wmma::load_matrix_sync(a, A + LayoutA::offset(row, l, lda), lda);
    wmma::load_matrix_sync(b, B + LayoutB::offset(l, col, ldb), ldb);
    P::to_fragment_precision(a);
    P::to_fragment_precision(b);
    wmma::mma_sync(acc, a, b, acc);
  }

  // Epilogue as in chapter 02: x[i] of two accumulator fragments of one type loaded the same way name one element.
  typename P::Accumulator* c_tile = C + tc::ColMajor::offset(row, col, ldc);
  if (beta != typename P::Accumulator(0)) {
    wmma::fragment<wmma::accumulator, P::M, P::N, P::K, typename P::Accumulator> c;
    wmma::load_matrix_sync(c, c_tile, ldc, wmma::mem_col_major);
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = alpha * acc.x[i] + beta * c.x[i];
  } else {
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = alpha * acc.x[i];
  }
  wmma::store_matrix_sync(c_tile, acc, ldc, wmma::mem_col_major);
}
// [/doc:kernel]

// The kernel with its layouts fixed, its geometry (chapter 02's 4 x 4 warps per block), its contract and its launch,
// as tc/padded_gemm.hpp expects of a kernel.
template <typename P, typename LayoutA_, typename LayoutB_>
struct WmmaTransposedGemm {
  using Precision = P;
  using LayoutA = LayoutA_;
  using LayoutB = LayoutB_;
  static constexpr tc::Op kOpA = tc::op_of<LayoutA>();
  static constexpr tc::Op kOpB = tc::op_of<LayoutB>();
  using Grid = tc::WarpPerTileGrid<4, 4>;
  static constexpr const char* name = "naive";  // chapter 02's naive kernel, under each op
  static constexpr tc::TileContract kContract{{P::M, P::N, P::K}, tc::kWmmaOperandRule, tc::kWmmaOperandRule};

  // Enqueues the kernel. Preconditions: valid arguments that keep kContract, m, n > 0 (checked once, by
  // tc::launch_gemm_any_size or tc::launch_whole_tiles). Errors: tc::CudaError when the launch fails.
  static void launch(int m, int n, int k, typename P::Accumulator alpha, const typename P::Input* A, int lda,
                     const typename P::Input* B, int ldb, typename P::Accumulator beta, typename P::Accumulator* C,
                     int ldc, cudaStream_t stream) {
    wmma_transposed_gemm_kernel<P, LayoutA, LayoutB><<<Grid::grid(m, n, P::M, P::N), Grid::block(), 0, stream>>>(
        m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    tc::check_launch();
  }
};

// [doc:launchers]
// C = alpha * op(A) * op(B) + beta * C in place, with the layouts as types: the launcher signature of every GEMM in
// this tutorial, (m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream), for the op(A), op(B) that LayoutA, LayoutB
// stand for. P: tc::WmmaF16 or tc::WmmaS8 (any tc/wmma.cuh precision works).
// Shapes and layouts: cuBLAS's, column-major; op(A) is m x k, lda >= max(1, m) for N and >= max(1, k) for T; op(B)
// is k x n, ldb >= max(1, k) for N and >= max(1, n) for T; C is m x n with ldc >= max(1, m), rows m..ldc-1 never
// written. Any m, n, k >= 0; operands that break the tile contract go through padded copies (tc/padded_gemm.hpp).
// C is not read when beta == 0. Units: elements; alpha and beta have C's type. Minimum SM: that of P.
// Errors: std::invalid_argument (one line) for bad sizes or leading dimensions; tc::CudaError for CUDA failures.
// Source: cuBLAS documentation, "cublas<t>gemm()"; CUDA C++ Programming Guide, "Warp Matrix Functions".
template <typename P, typename LayoutA, typename LayoutB>
void launch_wmma_transposed_gemm(int m, int n, int k, typename P::Accumulator alpha, const typename P::Input* A,
                                 int lda, const typename P::Input* B, int ldb, typename P::Accumulator beta,
                                 typename P::Accumulator* C, int ldc, cudaStream_t stream = nullptr) {
  tc::launch_gemm_any_size<WmmaTransposedGemm<P, LayoutA, LayoutB>>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                                    stream);
}

// The same with cuBLAS's run-time transa, transb in front, as cublasGemmEx takes them: picks one of the four
// instantiations. Same shapes, preconditions and errors.
template <typename P>
void launch_wmma_transposed_gemm(tc::Op transa, tc::Op transb, int m, int n, int k, typename P::Accumulator alpha,
                                 const typename P::Input* A, int lda, const typename P::Input* B, int ldb,
                                 typename P::Accumulator beta, typename P::Accumulator* C, int ldc,
                                 cudaStream_t stream = nullptr) {
  using tc::ColMajor, tc::RowMajor, tc::Op;
  if (transa == Op::N && transb == Op::N)
    launch_wmma_transposed_gemm<P, ColMajor, ColMajor>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  else if (transa == Op::N)
    launch_wmma_transposed_gemm<P, ColMajor, RowMajor>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  else if (transb == Op::N)
    launch_wmma_transposed_gemm<P, RowMajor, ColMajor>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  else
    launch_wmma_transposed_gemm<P, RowMajor, RowMajor>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
// [/doc:launchers]
