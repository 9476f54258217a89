// Chapter 10, step 5's pair tile: the narrow tile of step 2 with two consumer warpgroups, 128 weights by the tokens.
//
// What it adds over steps 2 and 3: their tile is one warpgroup's 64 weights, so every 64 weights read all the tokens
// from L2, and a weight of m rows makes m / 64 tiles per column of tokens. Past about 200 tokens that is too many
// tiles and too many reads: Qwen2.5-72B's down projection split eight ways (8192 x 3696) at 261 tokens makes 256
// tiles of 64 x 160, two waves on 132 SMs, and each stage is 8 KB of weights beside 20 KB of tokens. Two consumer
// warpgroups over one stage's token rows, 64 weights each, halve both: 128 tiles of 128 x 160, one wave, and each 20
// KB of tokens feeds twice the multiplies. cuBLAS runs that shape as tiles of 128 (or 192) weights by 136 (or 88)
// tokens (docs/results/10_cublas_kernels_held_out_h200.txt). The kernel is step 2's (small_m_gemm_kernel on
// SmallMTile<BlockN, 1, 2>): only the consumer's rows of A and of C move by 64 a warpgroup, and a stage is free once
// both consumers released it. Its stages (16 KB of weights and 8 to 32 KB of tokens) take a whole SM: 4 to 9 of them.
// Shapes and layouts: as every step (suite.hpp). Source: PTX ISA, "wgmma.mma_async" (.m64nNk16), "mbarrier",
// "cp.async.bulk.tensor".
#pragma once

#include "small_m_tile.cuh"
#include "step2_small_m.cuh"

#include "tc/ws_tile.cuh"  // tc::ceil_div

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

// [doc:pair_tile]
// The pair tile for BlockN tokens: 128 weights (two warpgroups' wgmma M) by BlockN, one block an SM.
template <int BlockN>
using PairTile = SmallMTile<BlockN, 1, 2>;
// The token tiles it is compiled for: step 2's from 64 tokens on (Step2SmallM::is_token_tile), whose stages hold 4
// to 9.
inline constexpr int kPairTokenTiles[] = {64, 96, 128, 160, 192, 224, 256};

// The token tile for m weights and n tokens on `sms` SMs: the one whose tiles take the fewest SM-widths of work,
// counting each wave of tiles as its token tile plus 32 (a tile's fixed cost, as wide_width counts it). 8192 x 261:
// 160 (two columns, 128 tiles, one wave; 96 would make 192 tiles, two waves). 5120 x 308: 128 (three columns, 120
// tiles). Host, pure.
inline int pair_block_n(int m, int n, int sms) {
  int best = 0;
  long best_cost = 0;
  for (int block_n : kPairTokenTiles) {
    const long cost = long(tc::ceil_div(small_m_tiles(m, n, block_n, 128), sms)) * (block_n + 32);
    if (best == 0 || cost < best_cost) best = block_n, best_cost = cost;
  }
  return best;
}
// [/doc:pair_tile]

// Enqueues step 2's kernel on the pair tile of `block_n` tokens (one of kPairTokenTiles): C = alpha A B + beta C as
// step 1 takes them. Preconditions and errors: as launch_small_m_tile; std::invalid_argument for a token tile not
// compiled.
inline void launch_pair(int block_n, int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda,
                        const __nv_bfloat16* B, int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
  auto go = [&](auto tile) {
    launch_small_m_tile<decltype(tile)>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  };
  switch (block_n) {
    case 64: return go(PairTile<64>{});
    case 96: return go(PairTile<96>{});
    case 128: return go(PairTile<128>{});
    case 160: return go(PairTile<160>{});
    case 192: return go(PairTile<192>{});
    case 224: return go(PairTile<224>{});
    case 256: return go(PairTile<256>{});
    default: throw std::invalid_argument("pair tile: no kernel of " + std::to_string(block_n) + " tokens");
  }
}
