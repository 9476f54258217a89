// Chapter 10, step 2 -- small M: a tile of 64 weights by the tokens, wgmma's N sized to the tokens (8 to 256), and
// as many stages as fit.
//
// What it adds over step 1: step 1's cluster tiles are 384 or 256 weights by 256 tokens. With one token, 255 of the
// 256 columns are padding, and worse, the tiles are few: the 4096 weights of Llama-3-8B's O layer make 16 cluster
// tiles, so 32 of 132 SMs stream the 32 MiB weight while 100 sit idle (step 1's table: 17.5% of the DRAM ceiling).
// Here a tile is 64 weights, wgmma's M and the least a warpgroup can take, by the tokens rounded up to a wgmma N of
// 8, 16, 32 or 64, or a multiple of 32 past 64 (block_n): the same weight makes 64 tiles, four times as many SMs
// pulling on DRAM. A block is one consumer warpgroup and one producer warp; its stages are small (8 KB of weights and
// 1 to 32 KB of tokens), so a ring of 4 to 12 of them fits in half an SM, and two blocks share each SM: one block's
// first loads and last stores run under the other's stream. At 96 and 128 tokens, where half an SM holds only 5 or 4
// stages, a grid of no more blocks than SMs runs one block an SM with 11 or 9; past 128 a block takes a whole SM.
// The epilogue stores C from the registers: at these widths C is a few percent of the bytes, and a TMA store's
// 64-column chunks would not fit an N of 8. The tile and its ring are in small_m_tile.cuh, since steps 3, 5 and 6 run
// on them too; this file holds step 2's kernel, its launchers and its choice.
// Past 256 tokens a tile is no longer narrow, and step 1's wide cluster tiles (with their operand reuse) take over.
// Shapes and layouts: as step 1 (suite.hpp: the weights are the kernel's M, row-major; the tokens its N, column-major
// K x N; C column-major, ldc = the weights' rows). Source: PTX ISA, "wgmma.mma_async" (.m64nNk16), "mbarrier",
// "cp.async.bulk.tensor"; CUDA C++ Programming Guide, "Shared Memory" (228 KB an SM, 1 KB of it reserved per block).
#pragma once

#include "schedule.hpp"
#include "small_m_tile.cuh"

#include "tc/check.hpp"
#include "tc/device.hpp"  // tc::current_device_sms
#include "tc/dynamic_smem.hpp"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc/mbarrier.cuh"
#include "tc/mutation_point.cuh"
#include "tc/shared_address.cuh"
#include "tc/wgmma.cuh"
#include "tc/wgmma_slice.cuh"
#include "tc/ws_tile.cuh"  // tc::ceil_div

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>  // std::integral_constant
#include <utility>

// [doc:small_m_kernel]
// One block a tile: block (x, y) computes C's rows BlockM x .. (weights) by columns BlockN y .. (tokens). The producer
// warp's first lane loads every slice of the tile's A (BlockM rows) and B (BlockN rows) into the ring; each consumer
// warpgroup c multiplies its 64 weights (rows 64c..) by the slice's tokens as it lands and releases the one before it;
// then it writes alpha * acc + beta * C with plain stores, inside C. Preconditions: maps made by k_major_map with
// boxes of BlockM and BlockN rows (none where k = 0); a grid of ceil(m / BlockM) x ceil(n / BlockN) blocks of
// kThreads; sm_90a. Errors: none reported.
template <typename Tile>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kBlocksPerSm)
    small_m_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int m,
                        int n, int k, float alpha, float beta, __nv_bfloat16* C, int ldc) {
  extern __shared__ unsigned char smem_raw[];
  const SmallMRing<Tile> ring(smem_raw);
  const int row0 = blockIdx.x * Tile::BlockM, col0 = blockIdx.y * Tile::BlockN, slices = tc::ceil_div(k, tc::kSliceK);
  if (threadIdx.x == 0) ring.init();
  __syncthreads();  // no thread waits on a barrier before it exists

  if (threadIdx.x / 32 == Tile::kProducerWarp) {
    if (threadIdx.x % 32 == 0)
      for (int s = 0; s < slices; ++s) {
        // The slice is a mutation point: a test loads the middle slice's neighbour (tc_test/planted_bugs.cuh).
        const int k0 = tc::mutation_point(tc::MutationSite::KSlice, s, slices) * tc::kSliceK;
        ring.load(s, map_a, map_b, k0, row0, col0);
      }
    return;  // nothing below waits for the producer: the consumer's full barriers wait for its loads
  }

  const int c = threadIdx.x / 128;  // this consumer's weights: rows 64c.. of the tile
  float acc[Tile::BlockN / 2] = {};
  for (int s = 0; s < slices; ++s) {
    ring.multiply(acc, s, c);
    if (s > 0 && threadIdx.x % 128 == 0) ring.release(s - 1);  // this consumer's group of slice s - 1 is done
  }
  tc::wgmma_wait_group<0>();  // the last group has written acc

  const int warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < Tile::BlockN / 2; ++i) {
    const tc::Coord p = tc::wgmma_m64nNk16_d_coord(warp, lane, i);
    const int row = row0 + 64 * c + p.row, col = col0 + p.col;
    if (row < m && col < n) {
      __nv_bfloat16* const c = C + row + std::size_t(col) * ldc;
      float v = alpha * acc[i];
      if (beta != 0.0f) v += beta * __bfloat162float(*c);
      *c = __float2bfloat16_rn(v);
    }
  }
}
// [/doc:small_m_kernel]

// What every launch of a small-M tile's kernel (step 2's, and step 3's split-K) does first: opts kKernel in to the
// tile's shared memory, once per kernel, and makes the operands' tensor maps, A in boxes of 64 rows and B in boxes of
// BlockN (none where k = 0: no slice is loaded, and a tensor map cannot have an empty dimension). Errors:
// std::runtime_error when the GPU has too little shared memory; std::invalid_argument from the tensor maps.
template <typename Tile, auto kKernel>
std::pair<CUtensorMap, CUtensorMap> prepare_small_m(const char* what, int m, int n, int k, const __nv_bfloat16* A,
                                                    int lda, const __nv_bfloat16* B, int ldb) {
  static const bool opted_in = [what] {
    tc::opt_in_dynamic_shared_memory(kKernel, Tile::kSmemBytes, what);
    return true;
  }();
  (void)opted_in;
  if (k == 0) return {};
  return {tc::k_major_map(A, m, k, lda, Tile::BlockM), tc::k_major_map(B, n, k, ldb, Tile::BlockN)};
}

// Enqueues small_m_gemm_kernel<Tile>: C = alpha A B + beta C as step 1 takes them. Preconditions: m, n > 0; A and B
// as TMA addresses them; an SM 9.0 GPU. Errors: std::runtime_error when the GPU has too little shared memory;
// std::invalid_argument from the tensor maps; tc::CudaError when the launch fails.
template <typename Tile>
void launch_small_m_tile(int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B,
                         int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
  constexpr auto kKernel = small_m_gemm_kernel<Tile>;
  const auto [map_a, map_b] = prepare_small_m<Tile, kKernel>("step 2 (small M)", m, n, k, A, lda, B, ldb);
  const dim3 grid(tc::ceil_div(m, Tile::BlockM), tc::ceil_div(n, Tile::BlockN));
  kKernel<<<grid, Tile::kThreads, Tile::kSmemBytes, stream>>>(map_a, map_b, m, n, k, alpha, beta, C, ldc);
  tc::check_launch();
}

// Calls launch(tile) with the narrow tile for `blocks` blocks of BlockN tokens on this GPU: SmallMTile<BlockN, 1>
// where small_m_blocks_per_sm says one block an SM (only BlockN = 128 compiles that tile), else SmallMTile<BlockN>.
// Steps 2 and 3 launch through it.
template <int BlockN, typename Launch>
void with_small_m_tile(int blocks, const Launch& launch) {
  if constexpr (small_m_blocks_per_sm(BlockN) == 2 && small_m_stages(BlockN, 2) < kShallowRing)
    if (small_m_blocks_per_sm(BlockN, blocks, tc::current_device_sms()) == 1)
      return launch(SmallMTile<BlockN, 1>{});
  launch(SmallMTile<BlockN>{});
}

// Enqueues step 2's kernel on the tile with_small_m_tile picks. Preconditions and errors: as launch_small_m_tile.
template <int BlockN>
void launch_small_m(int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B,
                    int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
  with_small_m_tile<BlockN>(small_m_tiles(m, n, BlockN), [&](auto tile) {
    launch_small_m_tile<decltype(tile)>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  });
}

// Calls f(std::integral_constant<int, N>{}) for the narrow token tile N equal to block_n (one of
// Step2SmallM::is_token_tile's; anything else takes 256): the one switch from a token count chosen at run time to the
// kernels compiled for each tile. Steps 2 and 3 launch through it.
template <typename F>
void with_token_tile(int block_n, const F& f) {
  switch (block_n) {
    case 8: return f(std::integral_constant<int, 8>{});
    case 16: return f(std::integral_constant<int, 16>{});
    case 32: return f(std::integral_constant<int, 32>{});
    case 64: return f(std::integral_constant<int, 64>{});
    case 96: return f(std::integral_constant<int, 96>{});
    case 128: return f(std::integral_constant<int, 128>{});
    case 160: return f(std::integral_constant<int, 160>{});
    case 192: return f(std::integral_constant<int, 192>{});
    case 224: return f(std::integral_constant<int, 224>{});
    default: return f(std::integral_constant<int, 256>{});
  }
}

// [doc:step2]
// Step 2: the narrow tile up to 256 tokens, chapter 08's cluster tiles past them (launch_schedule runs either:
// schedules.cuh).
struct Step2SmallM {
  static constexpr const char* name = "2 small M";
  static constexpr int kMaxTokens = 256;  // wgmma's largest N: one column of tiles

  // The wgmma N for n tokens: up to 64 tokens, the smallest of 8, 16, 32 and 64 that holds them; past 64, the fewest
  // columns of at most 256 tokens, each the tokens' share rounded up to a multiple of 32 (96, 128, ..., 256). A
  // token tile wider than the tokens wastes more than its multiplies: its empty rows take a stage's shared memory
  // (TMA writes their zeros there), so the ring holds fewer slices of the tokens that exist. At 150 tokens a tile of
  // 256 leaves 41% of every stage empty and fits 5 stages an SM; one of 160 fits 8. Steps of 32, not wgmma's 8, so
  // that few kernels are compiled: at most 31 empty rows a column.
  static constexpr int block_n(int n) {
    if (n <= 64) return n <= 8 ? 8 : n <= 16 ? 16 : n <= 32 ? 32 : 64;
    const int columns = tc::ceil_div(n, 256);
    return tc::ceil_div(tc::ceil_div(n, columns), 32) * 32;
  }
  // Whether block_n is one of the token tiles above, the ones steps 2, 3 and 5 compile.
  static constexpr bool is_token_tile(int block_n) {
    return block_n == 8 || block_n == 16 || block_n == 32 || (block_n >= 64 && block_n <= 256 && block_n % 32 == 0);
  }
  // Step 2's schedule for m weights by n tokens (m, k and the SMs do not change it).
  static Schedule choose(int /*m*/, int n, int /*k*/, int /*sms*/) {
    if (n > kMaxTokens) return {ScheduleKind::Chapter08};
    Schedule narrow{ScheduleKind::Narrow};
    narrow.block_n = block_n(n);
    return narrow;
  }
};
// [/doc:step2]
