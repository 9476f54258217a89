// Chapter 09, step 5 -- INT8 wgmma: s8 and u8 in, s32 accumulate and out, exact, on the same machinery.
//
// What it adds over chapter 04's INT8 GEMM (WMMA m16n16k16 through skewed shared memory, one warp a fragment): the
// whole of chapters 07 and 08. wgmma.m64nNk32.s32.s8.s8 (and .u8.u8) takes K = 32 an instruction, twice the 16-bit
// wgmma's, from the same 128-byte swizzled rows, so the kernel is chapter 08's step 5 with 8-bit slices
// (tc/taller_tile_gemm.cuh): 192 x 256 tiles, 4 stages of 128 K values, 2-block clusters, a persistent grid and the
// TMA-store epilogue writing s32 C. Integer sums are exact (and wrap on overflow, as chapter 04's do), so both of the
// driver's operand sets are checked exactly at every size.
#pragma once

#include "gemm_8bit.cuh"

#include "tc/taller_tile_gemm.cuh"

#include <cstdint>

// [doc:step5]
struct Step5Int8 {
  static constexpr const char* name = "5 int8 wgmma";
  template <typename Tile, typename Precision>
  static void launch_kernel(int m, int n, int k, std::int32_t alpha, const typename Precision::Input* A, int lda,
                            const typename Precision::Input* B, int ldb, std::int32_t beta, std::int32_t* C, int ldc,
                            cudaStream_t stream) {
    tc::launch_taller_tile_gemm<Tile, typename Precision::Input, std::int32_t>(name, m, n, k, alpha, A, lda, B, ldb,
                                                                                beta, C, ldc, stream);
  }
};
using Step5Tile = tc::TallerTile;
// [/doc:step5]
