// Chapter 10, step 3 -- split-K: where a weight makes too few tiles to busy every SM, the blocks of a cluster split K
// between them, and sum their partial tiles through distributed shared memory.
//
// What it adds over step 2: a 4096-row weight makes 64 tiles of 64 weights, so 68 of 132 SMs wait while 64 stream it,
// and a tile's rows cannot be cut finer (64 is wgmma's M). K can be: a cluster of Splits blocks (2, 4 or 8) computes
// one tile, block r over the r-th chunk of K's slices, so 64 tiles become 128 blocks, one on nearly every SM. Each
// block then holds a partial 64 x BlockN sum in its registers, and the partials must be added. A cluster can do that
// without global memory: every block writes its partial to its own shared memory (its ring is free once its last
// slice is multiplied), the cluster barrier makes the writes visible, and each block sums a 1/Splits share of the
// tile's registers across all the blocks (ld.shared::cluster, at addresses mapa gives), always in rank order 0, 1,
// ..., so the result is the same bit for bit on every run, and stores it. A second cluster barrier keeps every
// block's shared memory alive until the others have read it.
// Shapes and layouts: as step 2. Source: PTX ISA, "mapa", "ld" (.shared::cluster), "barrier.cluster"; CUDA C++
// Programming Guide, "Thread Block Clusters", "Distributed Shared Memory".
#pragma once

#include "schedule.hpp"
#include "small_m_tile.cuh"
#include "step2_small_m.cuh"

#include "tc/check.hpp"
#include "tc/cluster.cuh"
#include "tc/dsmem.cuh"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/waves.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc/mbarrier.cuh"
#include "tc/mutation_point.cuh"
#include "tc/wgmma.cuh"
#include "tc/wgmma_slice.cuh"

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

// [doc:split_k_chunk]
// One cluster a tile: cluster (x, y) of Splits blocks along z computes C's rows 64x .. 64x + 63 by columns BlockN y
// .., block r of it over slices [r chunk, (r + 1) chunk) of K (chunk = ceil(slices / Splits)), then the sum through
// shared memory. Preconditions: as step 2's kernel; launched with clusters of (1, 1, Splits) on a grid of
// ceil(m / 64) x ceil(n / BlockN) x Splits. Errors: none reported.
template <typename Tile, int Splits>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kBlocksPerSm)
    split_k_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int m,
                        int n, int k, float alpha, float beta, __nv_bfloat16* C, int ldc) {
  constexpr int kRegisters = Tile::BlockN / 2;
  static_assert(Tile::Stages * Tile::kStageBytes >= kRegisters * 128 * 4, "the ring holds a partial tile of fp32");
  static_assert(Tile::kConsumers == 1, "one consumer warpgroup: warp 4 is the producer, and the sum is one tile's");
  extern __shared__ unsigned char smem_raw[];
  const SmallMRing<Tile> ring(smem_raw);  // step 2's (small_m_tile.cuh)
  const int row0 = blockIdx.x * Tile::BlockM, col0 = blockIdx.y * Tile::BlockN, rank = tc::cluster_ctarank();
  // This block's chunk of K: slices [first, first + count).
  const int chunk = tc::ceil_div(tc::ceil_div(k, tc::kSliceK), Splits), first = rank * chunk;
  const int total = tc::ceil_div(k, tc::kSliceK), end = first + chunk < total ? first + chunk : total;
  // (A mutation point: a test drops the last block's last slice.)
  const int count = tc::mutation_point(tc::MutationSite::SplitSlices, end > first ? end - first : 0, rank, Splits);
  if (threadIdx.x == 0) ring.init();
  __syncthreads();  // no thread waits on a barrier before it exists
  // [/doc:split_k_chunk]

  // [doc:split_k_partial]
  float acc[kRegisters] = {};
  if (threadIdx.x / 32 == 4) {  // the producer warp
    if (threadIdx.x % 32 == 0)
      for (int s = 0; s < count; ++s) ring.load(s, map_a, map_b, (first + s) * tc::kSliceK, row0, col0);
    __syncwarp();  // the warp reconverges after lane 0's loop: barrier.cluster below is .aligned
  } else {
    for (int s = 0; s < count; ++s) {
      ring.multiply(acc, s);
      if (s > 0 && threadIdx.x == 0) ring.release(s - 1);  // slice s - 1's group is done
    }
    tc::wgmma_wait_group<0>();  // the last group has written acc; every slice has landed and been read
    // The partial, register i of thread t at float i * 128 + t of the ring: a warp's 32 threads write 128 bytes.
    float* const partial = reinterpret_cast<float*>(ring.stages);
#pragma unroll
    for (int i = 0; i < kRegisters; ++i) partial[i * 128 + threadIdx.x] = acc[i];
  }
  tc::cluster_sync();  // every block's partial is written, and visible to the cluster (release, then acquire)
  // [/doc:split_k_partial]

  // [doc:split_k_sum]
  if (threadIdx.x < 128) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const float* const partial = reinterpret_cast<const float*>(ring.stages);
    // This block sums registers rank, rank + Splits, ...: each of the tile's elements once in the cluster.
#pragma unroll
    for (int i = 0; i < kRegisters; ++i) {
      if (i % Splits != rank) continue;
      float sum = 0.0f;
#pragma unroll
      for (int r = 0; r < Splits; ++r) {  // rank order: the same sum, bit for bit, on every run
        const int from = tc::mutation_point(tc::MutationSite::SplitPartial, r);  // a test adds rank 0's twice
        sum += tc::ld_shared_cluster_f32(tc::mapa_shared_cluster(partial + i * 128 + threadIdx.x, from));
      }
      const tc::Coord p = tc::wgmma_m64nNk16_d_coord(warp, lane, i);
      const int row = row0 + p.row, col = col0 + p.col;
      if (row < m && col < n) {
        __nv_bfloat16* const c = C + row + std::size_t(col) * ldc;
        float v = alpha * sum;
        if (beta != 0.0f) v += beta * __bfloat162float(*c);
        *c = __float2bfloat16_rn(v);
      }
    }
  }
  tc::cluster_sync();  // no block exits, taking its shared memory with it, while another still reads it
}
// [/doc:split_k_sum]

// [doc:split_k_choice]
// How step 3 splits a shape of m weights, n tokens (n <= 256) and k on `sms` SMs: step 2's tile for n, and the most
// splits (1, 2, 4 or 8) whose blocks still fit one an SM, each split keeping at least kMinSlicesPerSplit slices of K
// (a ring that never fills streams at a fraction of its depth). Why one an SM, where two fit: measured on an
// H200, 4 and 8 splits (two blocks an SM) ran slower than 2 at 8B O and down, slower even than step 2 (tools/
// split_sweep.cu; docs/results/10_split_sweep_h200.txt). Host, pure.
struct SplitChoice {
  int block_n = 8;
  int splits = 1;
  int tiles = 0;  // small_m_tiles(m, n, block_n)
};

inline constexpr int kMinSlicesPerSplit = 8;

constexpr SplitChoice split_k_choice(int m, int n, int k, int sms) {
  SplitChoice c;
  c.block_n = Step2SmallM::block_n(n);
  c.tiles = small_m_tiles(m, n, c.block_n);
  const int slices = tc::ceil_div(k, tc::kSliceK);
  while (c.splits < 8 && c.tiles * c.splits * 2 <= sms && slices / (2 * c.splits) >= kMinSlicesPerSplit) c.splits *= 2;
  return c;
}
// [/doc:split_k_choice]

// Enqueues split_k_gemm_kernel<Tile, Splits> in clusters of Splits blocks: C = alpha A B + beta C as step 2
// takes them. Preconditions, errors: as launch_small_m_tile.
template <typename Tile, int Splits>
void launch_split_k_tile(int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B,
                         int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
  constexpr auto kKernel = split_k_gemm_kernel<Tile, Splits>;
  const auto [map_a, map_b] = prepare_small_m<Tile, kKernel>("step 3 (split-K)", m, n, k, A, lda, B, ldb);
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(tc::ceil_div(m, Tile::BlockM), tc::ceil_div(n, Tile::BlockN), Splits);
  config.blockDim = dim3(Tile::kThreads);
  config.dynamicSmemBytes = Tile::kSmemBytes;
  config.stream = stream;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 1;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = Splits;  // one tile's splits, side by side in one GPC
  config.attrs = &cluster;
  config.numAttrs = 1;
  TC_CHECK(cudaLaunchKernelEx(&config, kKernel, map_a, map_b, m, n, k, alpha, beta, C, ldc));
}

// Enqueues step 3's kernel on the tile with_small_m_tile picks for its blocks, as step 2. Preconditions, errors: as
// launch_small_m_tile.
template <int BlockN, int Splits>
void launch_split_k(int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B,
                    int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
  with_small_m_tile<BlockN>(small_m_tiles(m, n, BlockN) * Splits, [&](auto tile) {
    launch_split_k_tile<decltype(tile), Splits>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  });
}

// Enqueues the narrow tile of block_n tokens in clusters of `splits` (1, 2, 4 or 8; step 2's kernel where splits =
// 1): the narrow schedule of any step. Preconditions, errors: as launch_small_m_tile.
inline void launch_narrow(int block_n, int splits, int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda,
                          const __nv_bfloat16* B, int ldb, float beta, __nv_bfloat16* C, int ldc,
                          cudaStream_t stream) {
  with_token_tile(block_n, [&](auto tile_n) {
    constexpr int N = decltype(tile_n)::value;
    switch (splits) {
      case 1: return launch_small_m<N>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
      case 2: return launch_split_k<N, 2>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
      case 4: return launch_split_k<N, 4>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
      default: return launch_split_k<N, 8>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    }
  });
}

// [doc:step3]
// Step 3: step 2's tiles, split along K where they are too few (split_k_choice); chapter 08's cluster tiles past 256
// tokens.
struct Step3SplitK {
  static constexpr const char* name = "3 split-K";
  static Schedule choose(int m, int n, int k, int sms) {
    if (n > Step2SmallM::kMaxTokens) return {ScheduleKind::Chapter08};
    const SplitChoice c = split_k_choice(m, n, k, sms);
    Schedule narrow{ScheduleKind::Narrow};
    narrow.block_n = c.block_n, narrow.splits = c.splits;
    return narrow;
  }
};
// [/doc:step3]
