// Chapter 10, step 5's pair tile: the narrow tile of step 2 with two consumer warpgroups, 128 weights by the tokens.
//
// What it adds over steps 2 and 3: their tile is one warpgroup's 64 weights, so every 64 weights read all the tokens
// from L2, and a weight of m rows makes m / 64 tiles per column of tokens. Past about 200 tokens that is too many
// tiles and too many reads: Qwen2.5-72B's down projection split eight ways (8192 x 3696) at 261 tokens makes 256
// tiles of 64 x 160, two waves on 132 SMs, and each stage is 8 KB of weights beside 20 KB of tokens. Two consumer
// warpgroups over one stage's token rows, 64 weights each, halve both: 128 tiles of 128 x 136, one wave, and each 17
// KB of tokens feeds twice the multiplies. cuBLAS runs that shape as tiles of 128 (or 192) weights by 136 (or 88)
// tokens (docs/results/10_cublas_kernels_held_out_h200.txt). The kernel is step 2's (small_m_gemm_kernel on
// SmallMTile<BlockN, 1, 2>): only the consumer's rows of A and of C move by 64 a warpgroup, and a stage is free once
// both consumers released it. Its stages (16 KB of weights and 8 to 32 KB of tokens) take a whole SM: 4 to 9 of them.
// Its token tile leaves at most 7 padded token columns a column of tiles (wgmma's steps of 8), where step 2's leaves
// up to 31.
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
#include <utility>  // std::integer_sequence

// [doc:pair_tile]
// The pair tile for BlockN tokens: 128 weights (two warpgroups' wgmma M) by BlockN, one block an SM.
template <int BlockN>
using PairTile = SmallMTile<BlockN, 1, 2>;
// The token tiles it is compiled for: every wgmma N from 64 to 256, in wgmma's steps of 8 (25 kernels), whose stages
// hold 4 to 9. Not step 2's steps of 32: the pair tile runs where the multiplies and the L2 set the time, one tile an
// SM, so every padded token column costs (5120 x 308: three columns of 128 are 20% padding, of 104 1%).
inline constexpr int kPairFirstTokens = 64, kPairTokenStep = 8;
inline constexpr int kPairTokenTiles = (256 - kPairFirstTokens) / kPairTokenStep + 1;
constexpr int pair_token_tile(int i) { return kPairFirstTokens + kPairTokenStep * i; }

// The token tile for m weights and n tokens on `sms` SMs: the one whose tiles take the fewest SM-widths of work,
// counting each wave of tiles as its token tile plus 32 (a tile's fixed cost, as wide_width counts it). 8192 x 261:
// 136 (two columns, 128 tiles, one wave; 88 would make 192 tiles, two waves). 5120 x 308: 104 (three columns, 120
// tiles). Host, pure.
inline int pair_block_n(int m, int n, int sms) {
  int best = 0;
  long best_cost = 0;
  for (int i = 0; i < kPairTokenTiles; ++i) {
    const int block_n = pair_token_tile(i);
    const long cost = long(tc::ceil_div(small_m_tiles(m, n, block_n, 128), sms)) * (block_n + 32);
    if (best == 0 || cost < best_cost) best = block_n, best_cost = cost;
  }
  return best;
}
// [/doc:pair_tile]

// Calls f(PairTile<B>{}) for the compiled token tile B equal to block_n and returns true, or returns false where no
// token tile is block_n. (A fold over the tiles' indices: each `==` compares at run time, each PairTile<B> is a type
// made at compile time.)
template <typename F, int... I>
bool with_pair_tile(int block_n, const F& f, std::integer_sequence<int, I...>) {
  return ((block_n == pair_token_tile(I) ? (f(PairTile<pair_token_tile(I)>{}), true) : false) || ...);
}
template <typename F>
bool with_pair_tile(int block_n, const F& f) {
  return with_pair_tile(block_n, f, std::make_integer_sequence<int, kPairTokenTiles>{});
}

// Enqueues step 2's kernel on the pair tile of `block_n` tokens (one of the compiled token tiles): C = alpha A B +
// beta C as step 1 takes them. Preconditions and errors: as launch_small_m_tile; std::invalid_argument for a token
// tile not compiled.
inline void launch_pair(int block_n, int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda,
                        const __nv_bfloat16* B, int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
  const bool launched = with_pair_tile(block_n, [&](auto tile) {
    launch_small_m_tile<decltype(tile)>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  });
  if (!launched) throw std::invalid_argument("pair tile: no kernel of " + std::to_string(block_n) + " tokens");
}
