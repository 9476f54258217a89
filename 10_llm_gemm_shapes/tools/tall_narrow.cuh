// An experiment of the schedule sweep (tools/schedule_sweep.cu), not a step: step 2's narrow tile made twice as
// tall, 128 weights by the tokens, with two consumer warpgroups that share every slice of the tokens.
//
// Why: at 128 tokens step 2's 64 x 128 tile loads 8 KB of weights and 16 KB of tokens a slice, so two thirds of what
// each SM takes in from L2 are token slices that every other tile of the column loads too. Here a slice is 16 KB of
// weights and the same 16 KB of tokens, for twice the multiplies: a third less intake per multiply, at half the
// tiles. Each consumer multiplies its 64 rows of the slice's weights by all of its tokens (an A descriptor 8 KB
// further for the second: 64 rows of 128 bytes, a whole number of 128B-swizzle atoms), and a stage is free again
// once both have released it (the empty barrier counts two arrivals). One block an SM: a stage is 17 to 48 KB.
// Shapes and layouts: as step 2 (suite.hpp). Source: as step 2.
#pragma once

#include "step2_small_m.cuh"

#include "tc/check.hpp"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc/mbarrier.cuh"
#include "tc/shared_address.cuh"
#include "tc/wgmma_narrow.cuh"
#include "tc/wgmma_slice.cuh"
#include "tc/ws_tile.cuh"  // tc::ceil_div

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

// The tile: 128 weights (two consumers of 64) by BlockN tokens, one block an SM, as many stages as fit.
template <int BlockN_>
struct TallNarrowTile {
  static constexpr int kConsumers = 2;
  static constexpr int BlockM = 64 * kConsumers;
  static constexpr int BlockN = BlockN_;
  static constexpr int kThreads = 128 * kConsumers + 32;  // the consumer warpgroups, then the producer warp
  static constexpr int kProducerWarp = 4 * kConsumers;
  static constexpr int kBlocksPerSm = 1;
  static constexpr int kSliceABytes = BlockM * tc::kSliceBytes, kSliceBBytes = BlockN * tc::kSliceBytes;
  static constexpr int kStageBytes = kSliceABytes + kSliceBBytes;
  static constexpr int kAlign = 1024;  // the 128B swizzle's repeat (tc::aligned_smem)
  static constexpr int kSmemPerBlock = 228 * 1024 - 1024;
  static constexpr int Stages = (kSmemPerBlock - kAlign) / (kStageBytes + 16);  // 16: a stage's two barriers
  static constexpr int kSmemBytes = Stages * kStageBytes + kAlign + 2 * Stages * 8;
  static_assert(BlockN % 8 == 0 && BlockN >= 8 && BlockN <= 256, "wgmma's N: a multiple of 8 up to 256");
  static_assert(kSliceABytes % kAlign == 0 && kSliceBBytes % kAlign == 0, "every slice starts on a swizzle atom");
  static_assert(Stages >= 4, "enough slices in flight to cover DRAM's latency of a microsecond or so");
  static_assert(kSmemBytes <= 227 * 1024, "an H100/H200 block may have at most 227 KB of shared memory");
};

// One block a tile, as step 2's kernel, with consumer c (warps 4c .. 4c + 3) on rows 64c .. 64c + 63 of the tile.
// Preconditions: maps made by k_major_map with boxes of 128 and BlockN rows (none where k = 0); a grid of
// ceil(m / 128) x ceil(n / BlockN) blocks of kThreads; sm_90a. Errors: none reported.
template <typename Tile>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    tall_narrow_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                            int m, int n, int k, float alpha, float beta, __nv_bfloat16* C, int ldc) {
  extern __shared__ unsigned char smem_raw[];
  unsigned char* const stages = tc::aligned_smem(smem_raw);
  std::uint64_t* const full = reinterpret_cast<std::uint64_t*>(stages + Tile::Stages * Tile::kStageBytes);
  std::uint64_t* const empty = full + Tile::Stages;
  const int row0 = blockIdx.x * Tile::BlockM, col0 = blockIdx.y * Tile::BlockN, slices = tc::ceil_div(k, tc::kSliceK);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int i = 0; i < Tile::Stages; ++i) {
      tc::mbarrier_init(&full[i], 1);                   // the producer's arrival, plus the slice's bytes
      tc::mbarrier_init(&empty[i], Tile::kConsumers);  // one release from each consumer
    }
    tc::fence_mbarrier_init_release_cluster();  // visible to the TMA unit, which completes transactions on them
  }
  __syncthreads();  // no thread waits on a barrier before it exists

  if (warp == Tile::kProducerWarp) {
    if (lane == 0)
      for (int s = 0; s < slices; ++s) {
        const tc::RingSlot slot = tc::ring_slot(s, Tile::Stages);
        unsigned char* const a = stages + slot.stage * Tile::kStageBytes;
        tc::mbarrier_wait_parity(&empty[slot.stage], tc::ring_empty_wait_parity(s, Tile::Stages));
        tc::mbarrier_arrive_expect_tx(&full[slot.stage], Tile::kStageBytes);
        tc::cp_async_bulk_tensor_2d_global_to_shared(a, &map_a, s * tc::kSliceK, row0, &full[slot.stage]);
        tc::cp_async_bulk_tensor_2d_global_to_shared(a + Tile::kSliceABytes, &map_b, s * tc::kSliceK, col0,
                                                     &full[slot.stage]);
      }
    return;  // nothing below waits for the producer: the consumers' full barriers wait for its loads
  }

  const int consumer = warp / 4;
  const std::uint64_t a_first =
      tc::slice_descriptor(tc::shared_address(stages), 0);  // consumer 0's rows; consumer 1's are 8 KB on
  const std::uint64_t b_first = tc::slice_descriptor(tc::shared_address(stages + Tile::kSliceABytes), 0);
  const std::uint32_t a_rows = consumer * 64u * tc::kSliceBytes;
  float acc[Tile::BlockN / 2] = {};
  for (int s = 0; s < slices; ++s) {
    const tc::RingSlot slot = tc::ring_slot(s, Tile::Stages);
    tc::mbarrier_wait_parity(&full[slot.stage], slot.parity);
    const std::uint32_t stage_offset = slot.stage * Tile::kStageBytes;
    tc::wgmma_fence();  // acc was last written by the previous group, or zeroed
#pragma unroll
    for (int kk = 0; kk < tc::kSliceK / 16; ++kk)  // 32 bytes on in each 128-byte row
      tc::wgmma_m64nNk16_bf16<Tile::BlockN>(acc,
                                            tc::advance_wgmma_descriptor(a_first, stage_offset + a_rows + 32u * kk),
                                            tc::advance_wgmma_descriptor(b_first, stage_offset + 32u * kk), true);
    tc::wgmma_commit_group();
    tc::wgmma_wait_group<1>();  // slice s - 1's group is done: its stage is no longer read by this consumer
    if (s > 0 && threadIdx.x % 128 == 0) tc::mbarrier_arrive(&empty[tc::ring_slot(s - 1, Tile::Stages).stage]);
  }
  tc::wgmma_wait_group<0>();  // the last group has written acc

#pragma unroll
  for (int i = 0; i < Tile::BlockN / 2; ++i) {
    const tc::Coord p = tc::wgmma_m64nNk16_d_coord(warp % 4, lane, i);
    const int row = row0 + consumer * 64 + p.row, col = col0 + p.col;
    if (row < m && col < n) {
      __nv_bfloat16* const c = C + row + std::size_t(col) * ldc;
      float v = alpha * acc[i];
      if (beta != 0.0f) v += beta * __bfloat162float(*c);
      *c = __float2bfloat16_rn(v);
    }
  }
}

// Enqueues tall_narrow_gemm_kernel<TallNarrowTile<BlockN>>: C = alpha A B + beta C as step 1 takes them.
// Preconditions and errors: as launch_small_m.
template <int BlockN>
void launch_tall_narrow(int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B,
                        int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
  using Tile = TallNarrowTile<BlockN>;
  constexpr auto kKernel = tall_narrow_gemm_kernel<Tile>;
  const auto [map_a, map_b] = prepare_small_m<Tile, kKernel>("tall narrow tile", m, n, k, A, lda, B, ldb);
  const dim3 grid(tc::ceil_div(m, Tile::BlockM), tc::ceil_div(n, Tile::BlockN));
  kKernel<<<grid, Tile::kThreads, Tile::kSmemBytes, stream>>>(map_a, map_b, m, n, k, alpha, beta, C, ldc);
  tc::check_launch();
}
