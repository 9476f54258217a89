// Chapter 09, step 1 -- FP8 wgmma with per-tensor scales: e4m3 (or e5m2) A and B, fp32 accumulation, bf16 or fp32 D.
//
// What it adds over chapter 08's step 5: 8-bit operands. wgmma.m64nNk32.f32.e4m3.e4m3 multiplies 64 x 32 by 32 x N,
// K = 32 an instruction from 32 bytes of each 128-byte swizzled row, so a slice holds 128 K values where chapter 08's
// held 64, and each stage and every descriptor advance are the same bytes as before (tc/wgmma_slice.cuh). Both
// operands must be K-major: 8-bit wgmma has no transpose. An fp8 tensor carries one fp32 scale (its values are
// value / scale, rounded to fp8), so D = alpha * scale_a * scale_b * A * B + beta * C: the scales multiply alpha, and
// the epilogue applies them with it. The accumulation is the tensor core's fp8 accumulator over the whole of K, with
// no promotion: cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM (step 2 measures what that costs in precision).
#pragma once

#include "gemm_8bit.cuh"

#include "tc/padded_gemm.hpp"
#include "tc/precisions_8bit.hpp"
#include "tc/taller_tile_gemm.cuh"

#include <cuda_runtime.h>

// [doc:step1]
struct Step1Fp8 {
  static constexpr const char* name = "1 fp8 per-tensor";
  static constexpr bool kBlockScaled = false;
  static constexpr int kPromotionInterval = 0;  // none: the fp8 accumulator sums the whole of K
  template <typename Tile, typename Precision>
  static void launch_kernel(int m, int n, int k, float alpha, const typename Precision::Input* A, int lda,
                            const typename Precision::Input* B, int ldb, float beta, tc::output_t<Precision>* C,
                            int ldc, cudaStream_t stream) {
    tc::launch_taller_tile_gemm<Tile, typename Precision::Input, tc::output_t<Precision>>(name, m, n, k, alpha, A, lda,
                                                                                         B, ldb, beta, C, ldc, stream);
  }
};
using Step1Tile = tc::TallerTile;

// D = alpha * scale_a * scale_b * A * B + beta * C for fp8 A (row-major m x k, lda) and B (column-major k x n, ldb)
// with per-tensor scales, C column-major m x n (ldc) of Gemm's output type (bf16 or fp32), any m, n, k >= 0 (the
// padded path where the operands break TMA's rules: tc/padded_gemm.hpp). Errors: std::invalid_argument for bad sizes
// or leading dimensions; those of the launch.
template <typename Gemm>
void launch_fp8_per_tensor(int m, int n, int k, float alpha, const typename Gemm::Input* A, int lda, float scale_a,
                           const typename Gemm::Input* B, int ldb, float scale_b, float beta, typename Gemm::Out* C,
                           int ldc, cudaStream_t stream) {
  tc::launch_gemm_any_size<Gemm>(m, n, k, alpha * scale_a * scale_b, A, lda, B, ldb, beta, C, ldc, stream);
}
// [/doc:step1]
