// Block scaling, the DeepSeek-V3 recipe for fp8 GEMMs, as formulas: which fp32 scale multiplies which 8-bit value,
// where the scales are stored, and the scale a quantizer gives a block. Host and device code.
//
// A is M x K and B is K x N, both K-major (A row-major, B column-major), quantized to fp8 in blocks along K of
// kScaleBlockK = 128 values, each block with one fp32 scale:
//   A: a 1 x 128 block per row and K group g = k / 128:        A(i, k) = Aq(i, k) * sa(i, g)
//   B: a 128 x 128 block per 128 columns and K group:          B(k, j) = Bq(k, j) * sb(j / 128, g)
// so over one K group the scales factor out of the sum, and a GEMM can run each group's 128-long dot product on
// 8-bit values and scale the partial sum once ("promotion", with the scales applied as it adds):
//   C(i, j) = sum over g of  sa(i, g) * sb(j / 128, g) * sum over k in group g of  Aq(i, k) * Bq(k, j).
// Storage, as cuBLASLt's block-scaled fp8 GEMM reads it, so that the chapter's kernels and the yardstick take the same
// scale tensors: sa is groups(K) rows of M scales, M contiguous, ld_sa >= M apart (VEC128_32F: one K group's scales
// for a tile of rows are one contiguous run, what a TMA load fetches beside the slice of A they scale); sb is
// blocks(N) rows of groups(K) scales, K groups contiguous, ld_sb >= groups(K) apart (BLK128x128_32F: a column block's
// scales for every K group in one run). cuBLASLt's documentation gives the modes, not this order: chapter 09's GPU
// test of the yardstick against fp64 is what holds it, and fails on the other. A quantizer takes a block's largest magnitude to the
// format's largest finite value: scale = amax / max (1 for an all-zero block), Aq = round(A / scale).
// Units: elements and groups; scales are fp32. Preconditions: as each function states. Source: DeepSeek-V3
// Technical Report (arXiv 2412.19437), section 3.3, "FP8 Training"; cuBLAS 12.9, "Block Scaling"
// (CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F, CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F).
#pragma once

#include "tc/layouts/fp8.hpp"

#include <cuda_runtime_api.h>  // __host__ __device__ for host compilers

#include <cstddef>

namespace tc {

inline constexpr int kScaleBlockK = 128;  // K values a scale covers; also B's block width along N

// K groups of a K-long dot product: one scale each for A's rows and for B's column blocks. k >= 0.
__host__ __device__ constexpr int scale_groups(int k) { return (k + kScaleBlockK - 1) / kScaleBlockK; }
// B's 128-column blocks across N. n >= 0.
__host__ __device__ constexpr int scale_column_blocks(int n) { return (n + kScaleBlockK - 1) / kScaleBlockK; }

// [doc:scale_index]
// Where A's scale for (row, K group g) is in sa: g * ld_sa + row. Preconditions: 0 <= row < M <= ld_sa.
__host__ __device__ constexpr std::size_t a_scale_index(int row, int g, int ld_sa) {
  return std::size_t(g) * std::size_t(ld_sa) + std::size_t(row);
}
// Where B's scale for (column col, K group g) is in sb: (col / 128) * ld_sb + g. Preconditions: 0 <= col < N,
// 0 <= g < scale_groups(K) <= ld_sb.
__host__ __device__ constexpr std::size_t b_scale_index(int col, int g, int ld_sb) {
  return std::size_t(col / kScaleBlockK) * std::size_t(ld_sb) + std::size_t(g);
}
// The factor that multiplies C(row, col)'s partial sum over K group g.
__host__ __device__ constexpr float block_scale_factor(const float* sa, int ld_sa, const float* sb, int ld_sb, int row,
                                                       int col, int g) {
  return sa[a_scale_index(row, g, ld_sa)] * sb[b_scale_index(col, g, ld_sb)];
}
// [/doc:scale_index]

// The scale a quantizer gives a block whose largest magnitude is amax, in format f: amax / the largest finite value,
// so that the block's largest element becomes that value; 1 for an all-zero block (any scale would do). amax >= 0.
__host__ __device__ constexpr float block_scale_for_amax(float amax, Fp8Format f) {
  return amax > 0.0f ? amax / fp8_max(f) : 1.0f;
}

}  // namespace tc
