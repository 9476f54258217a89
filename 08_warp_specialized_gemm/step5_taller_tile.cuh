// Chapter 08, step 5 -- taller tiles: rows of 192 x 256 tiles, and 128 x 256 ones where the taller would not fit.
//
// What it adds over step 4: 22% fewer bytes loaded a multiply, paid for with registers (three accumulators a
// consumer, split along N) and shared memory (a stage of 56 KB, so the epilogue stages in the tile's last stage). The
// kernel lives in common's blocks layer, tc/taller_tile_gemm.cuh, whose header tells the whole story: chapter 10 times
// it and builds on it there, without including this chapter. This file is the step as the chapter's launchers
// take it. The walkthrough (docs/08, "Step 5") shows the kernel as a diff of step 4's.
#pragma once

#include "ws_tile.cuh"

#include "tc/taller_tile_gemm.cuh"

// [doc:step5]
using Step5Tile = tc::TallerTile;

struct Step5TallerTile {
  static constexpr const char* name = "5 taller tiles";
  static constexpr tc::OperandRule kCRule = tc::kTmaStoreOperandRule;  // C is stored by TMA, as in step 4
  template <typename Tile, typename Precision>
  static void launch_kernel(int m, int n, int k, float alpha, const typename Precision::Input* A, int lda,
                            const typename Precision::Input* B, int ldb, float beta, tc::output_t<Precision>* C,
                            int ldc, cudaStream_t stream) {
    tc::launch_taller_tile_gemm<Tile, typename Precision::Input>(name, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                                 stream);
  }
};
// [/doc:step5]
