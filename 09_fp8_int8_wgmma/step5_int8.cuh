// Chapter 09, step 5 -- INT8 wgmma: s8 and u8 in, s32 accumulate and out, exact, on the same machinery.
//
// What it adds over chapter 04's INT8 GEMM (WMMA m16n16k16 through skewed shared memory, one warp a fragment): the
// whole of chapters 07 and 08. wgmma.m64nNk32.s32.s8.s8 (and .u8.u8) takes K = 32 an instruction, twice the 16-bit
// wgmma's, from the same 128-byte swizzled rows, so the kernel is step 1's (step1_fp8_per_tensor.cuh) with s32
// accumulators: 128 x 256 tiles of one m64n256k32 accumulator a consumer, 4 stages of 128 K values, 2-block clusters,
// a persistent grid and the TMA-store epilogue writing s32 C. Integer sums are exact (and wrap on overflow, as
// chapter 04's do), so both of the driver's operand sets are checked exactly at every size.
#pragma once

#include "gemm_8bit.cuh"

#include "step1_fp8_per_tensor.cuh"

#include <cstdint>

// [doc:step5]
struct Step5Int8 {
  static constexpr const char* name = "5 int8 wgmma";
  template <typename Tile, typename Precision>
  static void launch_kernel(int m, int n, int k, std::int32_t alpha, const typename Precision::Input* A, int lda,
                            const typename Precision::Input* B, int ldb, std::int32_t beta, std::int32_t* C, int ldc,
                            cudaStream_t stream) {
    launch_wide_tile_gemm<Tile>(name, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  }
};
using Step5Tile = Tile128x256;
// [/doc:step5]
