// Chapter 10, step 6 -- grouped GEMM for mixture-of-experts: every expert's GEMM in one persistent launch.
//
// What it adds over step 2: a mixture-of-experts layer runs one GEMM per expert, each with its own weight and its own
// few hundred tokens (moe_routing.hpp). One launch per expert would pay a launch, a ring fill and a tail per expert,
// and leave the GPU idle behind the small ones. Here the experts' weights lie one after another in one array (expert
// g's rows g * weights ..), the tokens sorted by expert in another (group g's rows first_row[g] ..), and the plan
// numbers every group's tiles in one row (grouped_plan.hpp). A persistent grid of step 2's blocks walks that row:
// block b takes tiles b, b + grid, ..., finds each one's group by a binary search over the plan's prefix sums, and
// streams its slices through a ring that carries on from tile to tile, so the next tile's loads run under this
// tile's last multiplies and its stores. A tile's columns past its group's tokens hold the next group's tokens (TMA
// loads whole boxes): they are multiplied and never stored. An empty group has no tiles.
// Shapes and layouts: as step 2 (suite.hpp), per group: y_g^T (weights x M_g, column-major, ldc = weights) = W_g
// x_g^T; the y^T of all groups side by side, one token a column, in the sorted order. Source: as step 2.
#pragma once

#include "grouped_plan.hpp"
#include "small_m_tile.cuh"
#include "step2_small_m.cuh"

#include "tc/check.hpp"
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

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

// [doc:grouped_kernel]
// gridDim.x blocks walk the plan's tiles b, b + gridDim.x, ...: tile (group g, weight row r, token column c) computes
// C's rows r .. r + 63 by columns c .. c + cols - 1 from weight rows g * plan.weights + r .. (map_a) and token rows
// c .. (map_b), alpha A B + beta C, plain stores. Preconditions: map_a over all groups' weights stacked (boxes of 64
// rows), map_b over the sorted tokens (boxes of BlockN rows), none where k = 0; plan made by grouped::make_plan with
// block_m 64 and block_n Tile::BlockN; Tile::kThreads threads; sm_90a. Errors: none reported.
template <typename Tile>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kBlocksPerSm)
    grouped_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int k,
                        float alpha, float beta, __nv_bfloat16* C, int ldc,
                        const __grid_constant__ grouped::Plan plan) {
  static_assert(Tile::kConsumers == 1, "one consumer warpgroup: warp 4 is the producer");
  extern __shared__ unsigned char smem_raw[];
  const SmallMRing<Tile> ring(smem_raw);  // step 2's (small_m_tile.cuh), its slice counter carried across tiles
  const int slices = tc::ceil_div(k, tc::kSliceK);
  // Where tile t's weights start in the stacked array: its group's, or with the planted bug the next group's.
  auto weight_row = [&](const grouped::GroupTile& tile) {
    const int g = tc::mutation_point(tc::MutationSite::Group, tile.group, plan.groups);  // a test takes the next's
    return g * plan.weights + tile.row;
  };
  if (threadIdx.x == 0) ring.init();
  __syncthreads();  // no thread waits on a barrier before it exists

  if (threadIdx.x / 32 == 4) {  // the producer warp: every slice of every tile of this block
    if (threadIdx.x % 32 == 0) {
      int it = 0;
      for (int t = blockIdx.x; t < plan.tiles(); t += gridDim.x) {
        const grouped::GroupTile tile = grouped::group_tile(plan, t);
        for (int s = 0; s < slices; ++s, ++it) ring.load(it, map_a, map_b, s * tc::kSliceK, weight_row(tile), tile.col);
      }
    }
    return;  // nothing below waits for the producer: the consumer's full barriers wait for its loads
  }

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int it = 0;
  for (int t = blockIdx.x; t < plan.tiles(); t += gridDim.x) {
    const grouped::GroupTile tile = grouped::group_tile(plan, t);
    float acc[Tile::BlockN / 2] = {};
    for (int s = 0; s < slices; ++s, ++it) {
      ring.multiply(acc, it);
      if (s > 0 && threadIdx.x == 0) ring.release(it - 1);  // slice it - 1's group is done
    }
    tc::wgmma_wait_group<0>();  // the tile's last group has written acc, and read its stage: the producer may refill
    if (slices > 0 && threadIdx.x == 0) ring.release(it - 1);
#pragma unroll
    for (int i = 0; i < Tile::BlockN / 2; ++i) {  // the group's own columns only
      const tc::Coord p = tc::wgmma_m64nNk16_d_coord(warp, lane, i);
      const int row = tile.row + p.row;
      if (row < plan.weights && p.col < tile.cols) {
        __nv_bfloat16* const c = C + row + std::size_t(tile.col + p.col) * ldc;
        float v = alpha * acc[i];
        if (beta != 0.0f) v += beta * __bfloat162float(*c);
        *c = __float2bfloat16_rn(v);
      }
    }
  }
}
// [/doc:grouped_kernel]

// Enqueues grouped_gemm_kernel<SmallMTile<BlockN>> on min(tiles, the resident blocks) blocks: for every group g
// of `sizes`, C_g = alpha W_g x_g^T + beta C_g, where W (all groups' weights, groups x weights rows of k, lda) and x
// (the sorted tokens, sum(sizes) rows of k, ldb) are K-major, and C is column-major weights x sum(sizes) (ldc).
// Preconditions: weights > 0; W, x and C as TMA and step 2 address them (16-byte aligned, lda and ldb multiples of 8);
// an SM 9.0 GPU. Errors: std::invalid_argument from grouped::make_plan (too many groups) and the tensor maps;
// std::runtime_error when the GPU has too little shared memory; tc::CudaError when the launch fails.
template <int BlockN>
void launch_grouped(const std::vector<int>& sizes, int weights, int k, float alpha, const __nv_bfloat16* W, int lda,
                    const __nv_bfloat16* x, int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
  using Tile = SmallMTile<BlockN>;
  constexpr auto kKernel = grouped_gemm_kernel<Tile>;
  const grouped::Plan plan = grouped::make_plan(sizes, weights, Tile::BlockM, BlockN);
  if (plan.tiles() == 0) return;  // no group has a token
  const int tokens = plan.first_row[plan.groups];
  const auto [map_a, map_b] =
      prepare_small_m<Tile, kKernel>("step 6 (grouped)", plan.groups * weights, tokens, k, W, lda, x, ldb);
  int device = 0, sms = 0;
  TC_CHECK(cudaGetDevice(&device));
  TC_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int blocks = std::min(plan.tiles(), sms * Tile::kBlocksPerSm);  // every block resident: one wave of blocks
  kKernel<<<blocks, Tile::kThreads, Tile::kSmemBytes, stream>>>(map_a, map_b, k, alpha, beta, C, ldc, plan);
  tc::check_launch();
}
