// Exercise 01.1 -- the load / mma / store sequence of one WMMA tile. Hints: docs/01_wmma_single_tile.md,
// "Exercise 01.1". Check it with: ctest --preset workshop -R "exercise 01.1" (needs a GPU).
//
// One warp computes D = A * B + C for one 16 x 16 x 16 tile: fp16 A and B, fp32 C and D. The fragments are declared
// and the launcher is written; the five warp-wide calls between them are yours.
#pragma once

#include "tc/check.hpp"
#include "tc/layouts/lane_ids.hpp"  // tc::Coord, tc::kWarpSize
#include "tc/layouts/tags.hpp"
#include "tc/wmma.cuh"  // tc::wmma_layout_t: a layout tag as WMMA's row_major / col_major

#include <cuda_fp16.h>
#include <mma.h>

namespace ex01_1 {

// A: 16 x 16, fp16, LayoutA with lda (elements); B: 16 x 16, fp16, LayoutB with ldb; C, D: 16 x 16, fp32,
// column-major with ldc, ldd. Preconditions: pointers 32-byte aligned, every ld a multiple of 16 bytes, one warp.
// Minimum SM 7.0. Source: CUDA C++ Programming Guide, "Warp Matrix Functions".
template <typename LayoutA, typename LayoutB>
__global__ void single_tile_kernel(const __half* A, int lda, const __half* B, int ldb, const float* C, int ldc,
                                   float* D, int ldd) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, tc::wmma_layout_t<LayoutA>> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, tc::wmma_layout_t<LayoutB>> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  // TODO(exercise 01.1): load a from A and b from B, load acc from C (an accumulator load names its memory layout:
  // wmma::mem_col_major), compute acc = a * b + acc, and store acc to D.
  (void)A, (void)lda, (void)B, (void)ldb, (void)C, (void)ldc, (void)D, (void)ldd, (void)a, (void)b, (void)acc;
}

// Launches the kernel as one warp: D = A * B + C with m = n = k = 16. Errors: tc::CudaError if the launch fails.
template <typename LayoutA, typename LayoutB>
void launch_single_tile(const __half* A, int lda, const __half* B, int ldb, const float* C, int ldc, float* D,
                        int ldd) {
  single_tile_kernel<LayoutA, LayoutB><<<1, tc::kWarpSize>>>(A, lda, B, ldb, C, ldc, D, ldd);
  tc::check_launch();
}

}  // namespace ex01_1
