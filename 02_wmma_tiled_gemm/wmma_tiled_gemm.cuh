// Chapter 02's two GEMMs behind the one launcher signature every GEMM in this tutorial has (cuBLAS's argument order):
//   launch_<name><P>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream)
// computes C = alpha * A * B + beta * C in place, for precision P (tc::WmmaF16, WmmaBF16, WmmaTF32, WmmaF64,
// WmmaS8; tc/wmma.cuh).
// Shapes and layouts: column-major, no transposes; A is m x k with lda >= max(1, m), B is k x n with ldb >= max(1, k),
// C is m x n with ldc >= max(1, m); rows m..ldc-1 of C are never written. Any m, n, k >= 0. Device pointers.
// Units: elements; alpha and beta have C's type (float, double or int32, as cuBLAS's scale type).
// Preconditions: none beyond those; operands that break the kernel's tile contract go through padded scratch copies
// (tc/padded_gemm.hpp). C is not read when beta == 0. Minimum SM: 8.0 (bf16, tf32 and f64 WMMA; f16 7.0, s8 7.2).
// Errors: std::invalid_argument with a one-line message for bad sizes or leading dimensions (lda < m among them);
// tc::CudaError for CUDA failures, out of memory for the scratch included.
// Source: CUDA C++ Programming Guide, "Warp Matrix Functions"; cuBLAS documentation, "cublas<t>gemm()".
#pragma once

#include "wmma_block_tiled_gemm.cuh"
#include "wmma_naive_gemm.cuh"

#include "tc/padded_gemm.hpp"

// [doc:launchers]
template <typename P>
void launch_wmma_naive_gemm(int m, int n, int k, typename P::Accumulator alpha, const typename P::Input* A, int lda,
                            const typename P::Input* B, int ldb, typename P::Accumulator beta,
                            typename P::Accumulator* C, int ldc, cudaStream_t stream = nullptr) {
  tc::launch_gemm_any_size<WmmaNaiveGemm<P>>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

template <typename P>
void launch_wmma_block_tiled_gemm(int m, int n, int k, typename P::Accumulator alpha, const typename P::Input* A,
                                  int lda, const typename P::Input* B, int ldb, typename P::Accumulator beta,
                                  typename P::Accumulator* C, int ldc, cudaStream_t stream = nullptr) {
  tc::launch_gemm_any_size<WmmaBlockTiledGemm<P>>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
// [/doc:launchers]
