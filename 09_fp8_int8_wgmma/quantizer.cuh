// Chapter 09, step 4's quantizer: bf16 A and B to e4m3 with DeepSeek-V3's block scales, on the GPU.
//
// A (M x K, row-major: activations) gets one scale per 1 x 128 block along K, B (K x N, column-major: weights) one per
// 128 x 128 block; each block's scale is its largest magnitude over e4m3's largest finite value, 448
// (tc::block_scale_for_amax), so the block's largest value lands on 448, and every value is divided by its scale and
// rounded to nearest even, saturating (cvt.rn.satfinite.e4m3x2.f32: the division may land a hair past 448, which
// saturates to 448 rather than to NaN). The scales go where tc/layouts/block_scale.hpp puts them (dense: ld_sa = M,
// ld_sb = groups(K)). The host's tc::fp8_quantize_blocks is the same arithmetic, fp32 division included, so the two
// agree bit for bit; the GPU test holds them to it.
// Shapes: K a multiple of 128 (whole groups). Preconditions: sm_80 or later for the conversion (cuda_fp8.h);
// 16-byte aligned operands. Errors: std::invalid_argument for a K off the 128 grid; tc::CudaError from the launches.
// Source: PTX ISA, "cvt" (.satfinite, .e4m3x2); DeepSeek-V3 Technical Report, section 3.3.1.
#pragma once

#include "tc/check.hpp"
#include "tc/layouts/block_scale.hpp"

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

// [doc:quantizer]
// A: one warp per (row i, K group g): each lane takes 4 of the block's 128 values, the warp's largest magnitude is
// found by shuffles, then every lane writes its 4 codes and lane 0 the scale. 256 threads a block: 8 rows.
__global__ void __launch_bounds__(256) quantize_a_kernel(const __nv_bfloat16* a, int m, int k, __nv_fp8_e4m3* q,
                                                         float* sa) {
  const int row = blockIdx.x * 8 + threadIdx.x / 32, g = blockIdx.y, lane = threadIdx.x % 32;
  if (row >= m) return;
  const std::size_t at = std::size_t(row) * k + g * tc::kScaleBlockK + 4 * lane;
  float x[4], amax = 0.0f;
#pragma unroll
  for (int v = 0; v < 4; ++v) {
    x[v] = __bfloat162float(a[at + v]);
    amax = fmaxf(amax, fabsf(x[v]));
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, offset));
  const float s = tc::block_scale_for_amax(amax, tc::kE4M3);
#pragma unroll
  for (int v = 0; v < 4; ++v) q[at + v] = __nv_fp8_e4m3(x[v] / s);  // cvt.rn.satfinite
  if (lane == 0) sa[tc::a_scale_index(row, g, m)] = s;
}

// B: one block of 256 threads per 128 x 128 block (column block jb, K group g): each thread takes 64 values (its
// column's half), the block's largest magnitude comes from a warp reduction and one through shared memory.
__global__ void __launch_bounds__(256) quantize_b_kernel(const __nv_bfloat16* b, int n, int k, __nv_fp8_e4m3* q,
                                                         float* sb) {
  __shared__ float warp_max[8];
  const int jb = blockIdx.x, g = blockIdx.y, col = jb * tc::kScaleBlockK + threadIdx.x / 2;
  const int half = threadIdx.x % 2;  // which 64 of the column's 128 values of group g
  const bool in = col < n;
  const std::size_t at = std::size_t(col) * k + g * tc::kScaleBlockK + 64 * half;
  float amax = 0.0f;
  if (in)
    for (int v = 0; v < 64; ++v) amax = fmaxf(amax, fabsf(__bfloat162float(b[at + v])));
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, offset));
  if (threadIdx.x % 32 == 0) warp_max[threadIdx.x / 32] = amax;
  __syncthreads();  // every warp's largest is in warp_max before any thread reads them
  amax = 0.0f;
#pragma unroll
  for (int w = 0; w < 8; ++w) amax = fmaxf(amax, warp_max[w]);
  const float s = tc::block_scale_for_amax(amax, tc::kE4M3);
  if (in)
    for (int v = 0; v < 64; ++v) q[at + v] = __nv_fp8_e4m3(__bfloat162float(b[at + v]) / s);
  if (threadIdx.x == 0) sb[tc::b_scale_index(jb * tc::kScaleBlockK, g, tc::scale_groups(k))] = s;
}
// [/doc:quantizer]

// Quantizes A (m x k, row-major, lda = k) into qa and sa, and B (k x n, column-major, ldb = k) into qb and sb, as the
// header says. Errors: std::invalid_argument for k off the 128 grid; tc::CudaError from the launches.
inline void quantize_blocks(const __nv_bfloat16* a, const __nv_bfloat16* b, int m, int n, int k, __nv_fp8_e4m3* qa,
                            float* sa, __nv_fp8_e4m3* qb, float* sb, cudaStream_t stream) {
  if (k % tc::kScaleBlockK != 0)
    throw std::invalid_argument("the block quantizer needs k a multiple of 128, got k = " + std::to_string(k));
  const int groups = tc::scale_groups(k);
  if (m > 0 && groups > 0) quantize_a_kernel<<<dim3((m + 7) / 8, groups), 256, 0, stream>>>(a, m, k, qa, sa);
  tc::check_launch();
  if (n > 0 && groups > 0)
    quantize_b_kernel<<<dim3(tc::scale_column_blocks(n), groups), 256, 0, stream>>>(b, n, k, qb, sb);
  tc::check_launch();
}
