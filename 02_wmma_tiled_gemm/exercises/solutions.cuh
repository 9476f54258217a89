// Chapter 02's exercise solutions: each exercise's launcher is the chapter's own naive WMMA GEMM, built in place of
// the stubs with -DTC_EXERCISES=SOLUTIONS (README, "Workshop mode").
#pragma once

#include "wmma_tiled_gemm.cuh"  // launch_wmma_naive_gemm

namespace ex02_1 {
inline void launch_naive_gemm(int m, int n, int k, float alpha, const __half* A, int lda, const __half* B, int ldb,
                              float beta, float* C, int ldc) {
  launch_wmma_naive_gemm<tc::WmmaF16>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
}  // namespace ex02_1

namespace ex02_2 {
using ex02_1::launch_naive_gemm;  // the same kernel: its K loop and its epilogue
}  // namespace ex02_2
