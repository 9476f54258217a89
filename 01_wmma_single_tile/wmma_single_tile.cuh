// Chapter 01 -- one warp computes one tile on the Tensor Cores: D = A * B + C.
//
// The idea: a Tensor Core operation is warp-wide. The 32 lanes of a warp together load an M x K tile of A and a
// K x N tile of B into *fragments*, issue one matrix multiply-accumulate, and store the M x N result. No lane owns a
// row or a column; each holds an opaque slice of each tile (tc/wmma_probe.cuh measures which slice). There is
// nothing before this chapter to improve on: this is the smallest complete tensor-core program, with fp16 inputs and
// fp32 accumulation, for the three fp16 shapes WMMA offers: 16x16x16, 32x8x16 and 8x32x16.
//
// Source: CUDA C++ Programming Guide, "Warp Matrix Functions" (nvcuda::wmma: fragment, load_matrix_sync, mma_sync,
// store_matrix_sync; "Element Types and Matrix Sizes" for the shapes).
#pragma once

#include "tc/check.hpp"
#include "tc/gemm_args.hpp"
#include "tc/layouts/lane_ids.hpp"  // tc::Coord, tc::kWarpSize
#include "tc/layouts/tags.hpp"
#include "tc/wmma.cuh"
#include "wmma_rules.hpp"

#include <cuda_fp16.h>
#include <mma.h>

#include <stdexcept>
#include <string>

// [doc:shape]
// One WMMA tile shape: D (M x N) = A (M x K) * B (K x N) + C (M x N).
template <int M_, int N_, int K_>
struct WmmaShape {
  static constexpr int M = M_;
  static constexpr int N = N_;
  static constexpr int K = K_;
  // The guide lists exactly these three shapes for __half inputs; any other fails to compile inside mma.h with a far
  // less readable message.
  static_assert((M == 16 && N == 16 && K == 16) || (M == 32 && N == 8 && K == 16) || (M == 8 && N == 32 && K == 16),
                "fp16 WMMA supports m16n16k16, m32n8k16 and m8n32k16 only (Programming Guide, Element Types and "
                "Matrix Sizes)");
  static std::string name() { return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K); }
};
using Shape16x16x16 = WmmaShape<16, 16, 16>;
using Shape32x8x16 = WmmaShape<32, 8, 16>;
using Shape8x32x16 = WmmaShape<8, 32, 16>;
// [/doc:shape]

// One warp computes D = A * B + C for a single tile.
//   A: Shape::M x Shape::K, fp16, stored as LayoutA with leading dimension lda (elements).
//   B: Shape::K x Shape::N, fp16, stored as LayoutB with ldb.
//   C, D: Shape::M x Shape::N, fp32, column-major with ldc, ldd. D may alias C.
// Preconditions (checked by launch_wmma_single_tile): pointers 32-byte aligned; every ld a multiple of 16 bytes;
// launched with exactly one warp (blockDim.x == 32), because every wmma call is a collective of the whole warp.
// Minimum SM: 7.0 for fp16 WMMA (7.5 here, CUDA 13's oldest target). Source: Programming Guide, "Warp Matrix Functions".
// [doc:kernel]
template <typename Shape, typename LayoutA, typename LayoutB>
__global__ void wmma_single_tile_kernel(const __half* A, int lda, const __half* B, int ldb, const float* C, int ldc,
                                        float* D, int ldd) {
  using namespace nvcuda;
  // Fragments: each lane holds a slice of each tile in registers. Their element types are the operation's:
  // fp16 inputs, fp32 accumulator.
  wmma::fragment<wmma::matrix_a, Shape::M, Shape::N, Shape::K, __half, tc::wmma_layout_t<LayoutA>> a;
  wmma::fragment<wmma::matrix_b, Shape::M, Shape::N, Shape::K, __half, tc::wmma_layout_t<LayoutB>> b;
  wmma::fragment<wmma::accumulator, Shape::M, Shape::N, Shape::K, float> acc;

  // All 32 lanes must reach each call with the same arguments: these are warp-collective operations.
  wmma::load_matrix_sync(a, A, lda);
  wmma::load_matrix_sync(b, B, ldb);
  // The accumulator starts as C, so one mma_sync computes A * B + C. Its fragment type carries no layout; the memory
  // layout is given at load and store time instead.
  wmma::load_matrix_sync(acc, C, ldc, wmma::mem_col_major);
  wmma::mma_sync(acc, a, b, acc);
  wmma::store_matrix_sync(D, acc, ldd, wmma::mem_col_major);
}
// [/doc:kernel]

// Launches wmma_single_tile_kernel as one warp on `stream`; the cuBLAS-like argument order of every GEMM launcher in
// this tutorial, without alpha and beta (chapter 02 adds them): D = A * B + C with m, n, k equal to the tile's.
// Errors: std::invalid_argument (one line) if m, n, k differ from the Shape, an ld is below the matrix's extent or
// not a multiple of 16 bytes, or a pointer is not 32-byte aligned; tc::CudaError if the launch fails (for example,
// no kernel image for this GPU).
// [doc:launch]
template <typename Shape, typename LayoutA = tc::ColMajor, typename LayoutB = tc::ColMajor>
void launch_wmma_single_tile(int m, int n, int k, const __half* A, int lda, const __half* B, int ldb, const float* C,
                             int ldc, float* D, int ldd, cudaStream_t stream = nullptr) {
  if (m != Shape::M || n != Shape::N || k != Shape::K) {
    throw std::invalid_argument("launch_wmma_single_tile: m x n x k = " + std::to_string(m) + "x" +
                                std::to_string(n) + "x" + std::to_string(k) + " is not the tile " + Shape::name());
  }
  tc::validate_gemm_arguments(tc::op_of<LayoutA>(), tc::op_of<LayoutB>(), m, n, k, lda, ldb, ldc, ldd);
  tc::require_wmma_operand(A, lda, "A");
  tc::require_wmma_operand(B, ldb, "B");
  tc::require_wmma_operand(C, ldc, "C");
  tc::require_wmma_operand(D, ldd, "D");

  constexpr int kThreads = tc::kWarpSize;  // one warp: the whole tile is one warp-wide operation
  wmma_single_tile_kernel<Shape, LayoutA, LayoutB><<<1, kThreads, 0, stream>>>(A, lda, B, ldb, C, ldc, D, ldd);
  tc::check_launch();
}
// [/doc:launch]
