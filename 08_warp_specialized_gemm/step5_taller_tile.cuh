// Chapter 08, step 5 -- taller tiles: rows of 192 x 256 tiles, and 128 x 256 ones where the taller would not fit.
//
// What it adds over step 4: a block loads A's rows and B's rows of its tile every slice, and does rows(A) x rows(B)
// multiplies with them. 192 x 256 loads 448 rows for 49,152 outputs, 128 x 256 loads 384 for 32,768: 22% fewer bytes
// a multiply, the bytes the ablation's second row charges (docs/08, "Where the time goes"). It pays with what the SM
// has least of: wgmma's M is 64 a warpgroup, so the two consumers split the tile along N (192 x 128 each, three
// m64n128k16 accumulators, 192 fp32 registers a thread, setmaxnreg 240 and the producer's 24: ws_tile.cuh), and a
// stage is 56 KB, so beside step 4's 32 KB of staging only three fit. So step 5 has no staging of its own: split
// along N, a consumer alone reads its 16 KB half of B, and after the tile's last slice it stages its epilogue there
// and holds that stage until the TMA stores have read it (WsTile::kStageStaging). Four stages fit again.
// 192 rows divide few M: at 4096 a last row of 192-row tiles would be a third full, and the waves uneven. So the
// host cuts M into rows of both heights (tc::plan_tile_heights): at 4096, 8 rows of 384-row cluster tiles and 4 of
// 256, so that each of an H200's 64 clusters takes two tall tiles and one short one; at 6144, all tall. A short tile
// is the same kernel with two accumulators a consumer instead of three (persistent_gemm_kernel, run_tile), and A
// comes in 64-row boxes, three or two a slice.
#pragma once

#include "step4_tma_store.cuh"

// [doc:step5]
using Step5Tile = WsTile<4, 2, 0, 192, 128>;  // no staging of its own: kStageStaging

struct Step5TallerTile {
  static constexpr const char* name = "5 taller tiles";
  static constexpr tc::OperandRule kCRule = tc::kTmaStoreOperandRule;  // C is stored by TMA, as in step 4
  template <typename Tile, typename Precision>
  static void launch_kernel(int m, int n, int k, float alpha, const typename Precision::Input* A, int lda,
                            const typename Precision::Input* B, int ldb, float beta, tc::output_t<Precision>* C,
                            int ldc, cudaStream_t stream) {
    static_assert(Tile::kTwoHeights, "step 5 walks rows of two tile heights");
    launch_tma_store<Tile, Precision>(name, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  }
};
// [/doc:step5]
