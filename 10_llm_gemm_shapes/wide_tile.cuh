// Chapter 10, step 5's wide tile: the tokens back in wgmma's M, the weights in wgmma's N, at the width that makes
// about one tile an SM.
//
// What it adds over steps 2 and 3: their narrow tiles fix the weights at 64 a tile (wgmma's M), so a weight makes
// m / 64 tiles, whatever the SMs: 10240 rows make 160, which give 28 of 132 SMs a second tile to stream. Swapping
// the operands back frees that: the tokens fill wgmma's M (64 a consumer warpgroup, one or two of them), and the
// weights take wgmma's N, which any multiple of 8 up to 256 can be (tc/wgmma_mma_async.cuh). Width 80 makes the same
// weight 128 tiles, one an SM, and every SM streams 80 rows of it. cuBLAS does the same: at 128 x 10240 x 8192 its
// kernels' names give tiles of 80, 96 and 112 by 128 (docs/results/10_cublas_kernels_h200.txt). What it costs: each
// tile reads all its tokens, so the tokens come from L2 once per tile, which the model counts (step5_choice.cuh).
// The kernel is step 2's with the roles of A and B swapped in the ring: the same producer warp and full/empty
// barriers, one slice of K (64) a stage, and a plain-store epilogue, whose pairs of accumulator columns are now
// neighbouring weights, one 4-byte store each.
// Shapes and layouts: as every step (suite.hpp): A is the weights, m x k row-major (wgmma's B here, K-major, rows of
// BlockW); B is the tokens, K x n column-major (wgmma's A here, K-major, rows of 64 a consumer); C is m x n
// column-major, ldc >= m. Source: PTX ISA, "wgmma.mma_async" (.m64nNk16), "mbarrier", "cp.async.bulk.tensor".
#pragma once


#include "tc/check.hpp"
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
#include <stdexcept>
#include <string>

// [doc:wide_tile]
// The tile: 64 x Consumers tokens (wgmma's M, a warpgroup's 64 rows each) by BlockW weights (wgmma's N), K in slices
// of 64. One block an SM, by design: the width is picked so that the tiles about fill the SMs once, so the block may
// take the whole SM's shared memory for its ring.
template <int BlockW_, int Consumers_>
struct WideTile {
  static constexpr int BlockW = BlockW_;           // weights: wgmma's N
  static constexpr int kConsumers = Consumers_;    // consumer warpgroups
  static constexpr int BlockT = 64 * kConsumers;   // tokens: wgmma's M, 64 a warpgroup
  static constexpr int kThreads = 128 * kConsumers + 32;  // and the producer warp
  static constexpr int kSliceTBytes = BlockT * tc::kSliceBytes, kSliceWBytes = BlockW * tc::kSliceBytes;
  static constexpr int kStageBytes = kSliceTBytes + kSliceWBytes;
  static constexpr int kAlign = 1024;  // the 128B swizzle's repeat (tc::aligned_smem)
  // As many stages as 227 KB holds after the alignment's 1 KB and two 8-byte barriers a stage: 5 at width 192 and
  // 128 tokens, 18 at width 32 and 64 tokens.
  static constexpr int Stages = (227 * 1024 - kAlign) / (kStageBytes + 16);
  static constexpr int kSmemBytes = Stages * kStageBytes + kAlign + 2 * Stages * 8;
  static_assert(BlockW % 8 == 0 && BlockW >= 8 && BlockW <= 256, "wgmma's N: a multiple of 8 up to 256");
  static_assert(kConsumers == 1 || kConsumers == 2, "64 or 128 tokens a tile");
  static_assert(kSliceTBytes % kAlign == 0 && kSliceWBytes % kAlign == 0, "every slice starts on a swizzle atom");
  static_assert(Stages >= 4, "enough slices in flight to cover DRAM's latency");
  static_assert(kSmemBytes <= 227 * 1024, "an H100/H200 block may have at most 227 KB of shared memory");
};
// [/doc:wide_tile]

// [doc:wide_kernel]
// One block a tile: block (x, y) computes C's rows BlockW x .. (weights) by columns BlockT y .. (tokens). The
// producer warp's first lane loads every slice: the tokens' rows into the stage's first kSliceTBytes, the weights'
// after them. Consumer c multiplies its 64 tokens (rows 64c.. of the stage's token slice) by all the weights, and
// releases the slice before (each consumer arrives once: the empty barrier counts kConsumers). Thread (c, warp w,
// lane l) then holds, by tc::wgmma_m64nNk16_d_coord, tokens 64c + 16w + l / 4 (+ 8) and weights 8j + 2 (l % 4)
// (+ 1): the pair is two neighbouring weights, contiguous in C. Preconditions: maps made by k_major_map with boxes of
// BlockW (A) and BlockT (B) rows; k >= 1; a grid of ceil(m / BlockW) x ceil(n / BlockT) blocks of kThreads; sm_90a.
// Errors: none reported.
template <typename Tile>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    wide_tile_gemm_kernel(const __grid_constant__ CUtensorMap map_w, const __grid_constant__ CUtensorMap map_t, int m,
                          int n, int k, float alpha, float beta, __nv_bfloat16* C, int ldc) {
  constexpr int S = Tile::Stages;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* const stages = tc::aligned_smem(smem_raw);
  std::uint64_t* const full = reinterpret_cast<std::uint64_t*>(stages + S * Tile::kStageBytes);
  std::uint64_t* const empty = full + S;
  const int w0 = blockIdx.x * Tile::BlockW, t0 = blockIdx.y * Tile::BlockT, slices = tc::ceil_div(k, tc::kSliceK);
  if (threadIdx.x == 0) {
    for (int i = 0; i < S; ++i) {
      tc::mbarrier_init(&full[i], 1);                  // the producer's arrival (and the slice's bytes)
      tc::mbarrier_init(&empty[i], Tile::kConsumers);  // every consumer reads every slice
    }
    tc::fence_mbarrier_init_release_cluster();  // visible to the TMA unit, which completes transactions on them
  }
  __syncthreads();  // no thread waits on a barrier before it exists

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 4 * Tile::kConsumers) {  // the producer warp
    if (lane == 0)
      for (int s = 0; s < slices; ++s) {
        const tc::RingSlot slot = tc::ring_slot(s, S);
        unsigned char* const stage = stages + slot.stage * Tile::kStageBytes;
        tc::mbarrier_wait_parity(&empty[slot.stage], tc::ring_empty_wait_parity(s, S));
        tc::mbarrier_arrive_expect_tx(&full[slot.stage], Tile::kStageBytes);  // TMA zero-fills past the edges
        // The slice is a mutation point: a test loads the middle slice's neighbour (tc_test/planted_bugs.cuh).
        const int k0 = tc::mutation_point(tc::MutationSite::KSlice, s, slices) * tc::kSliceK;
        tc::cp_async_bulk_tensor_2d_global_to_shared(stage, &map_t, k0, t0, &full[slot.stage]);
        tc::cp_async_bulk_tensor_2d_global_to_shared(stage + Tile::kSliceTBytes, &map_w, k0, w0, &full[slot.stage]);
      }
    return;  // nothing below waits for the producer: the consumers' full barriers wait for its loads
  }

  const int c = warp / 4;  // this consumer's 64 tokens: rows 64c.. of each token slice (8 KB on)
  float acc[Tile::BlockW / 2] = {};
  const std::uint64_t a_first = tc::slice_descriptor(tc::shared_address(stages) + c * 64 * tc::kSliceBytes, 0);
  const std::uint64_t b_first = tc::slice_descriptor(tc::shared_address(stages + Tile::kSliceTBytes), 0);
  for (int s = 0; s < slices; ++s) {
    const tc::RingSlot slot = tc::ring_slot(s, S);
    tc::mbarrier_wait_parity(&full[slot.stage], slot.parity);
    const std::uint32_t offset = slot.stage * Tile::kStageBytes;
    tc::wgmma_fence();  // acc was last written by the previous group, or zeroed
#pragma unroll
    for (int kk = 0; kk < tc::kSliceK / 16; ++kk)  // 32 bytes on in each 128-byte row
      tc::wgmma_m64nNk16<Tile::BlockW, __nv_bfloat16>(acc, tc::advance_wgmma_descriptor(a_first, offset + 32u * kk),
                                                      tc::advance_wgmma_descriptor(b_first, offset + 32u * kk), true);
    tc::wgmma_commit_group();
    tc::wgmma_wait_group<1>();  // slice s - 1's group is done: its stage is no longer read
    if (s > 0 && threadIdx.x % 128 == 0) tc::mbarrier_arrive(&empty[tc::ring_slot(s - 1, S).stage]);
  }
  tc::wgmma_wait_group<0>();  // the last group has written acc

#pragma unroll
  for (int i = 0; i < Tile::BlockW / 2; i += 2) {
    const tc::Coord p = tc::wgmma_m64nNk16_d_coord(warp % 4, lane, i);  // acc[i + 1]: the next weight, p.col + 1
    const int t = t0 + 64 * c + p.row, w = w0 + p.col;
    if (t >= n) continue;
    __nv_bfloat16* const out = C + w + std::size_t(t) * ldc;
    float v0 = alpha * acc[i], v1 = alpha * acc[i + 1];
    if (w + 1 < m && reinterpret_cast<std::uintptr_t>(out) % 4 == 0) {  // both weights exist, one 4-byte store
      if (beta != 0.0f) {
        const __nv_bfloat162 old = *reinterpret_cast<const __nv_bfloat162*>(out);
        v0 += beta * __low2float(old);
        v1 += beta * __high2float(old);
      }
      *reinterpret_cast<__nv_bfloat162*>(out) = __floats2bfloat162_rn(v0, v1);
    } else {  // the last weight of an odd m, or an odd ldc: one element at a time, inside C
      if (w < m) out[0] = __float2bfloat16_rn(beta != 0.0f ? v0 + beta * __bfloat162float(out[0]) : v0);
      if (w + 1 < m) out[1] = __float2bfloat16_rn(beta != 0.0f ? v1 + beta * __bfloat162float(out[1]) : v1);
    }
  }
}
// [/doc:wide_kernel]

// The widths the wide tile is compiled for: the powers of two and, between them, those that make about one tile an
// SM from the suite's weights (6144 / 48, 10240 / 80, 28672 / 224, and 160 and 192 for two token tiles).
inline constexpr int kWideWidths[] = {32, 48, 64, 80, 128, 160, 192, 224, 256};
// The most tokens a wide tile takes per consumer warpgroup count: one warpgroup up to 64 tokens, else two.
constexpr int wide_consumers(int n) { return n <= 64 ? 1 : 2; }

// [doc:wide_width]
// The width for m weights and n tokens on `sms` SMs: the one whose tiles take the fewest SM-widths of work, counting
// each wave of tiles as its width plus 32 (a tile's fixed cost: its ring's fill and its stores, about what 32 more
// weights cost). 10240 x 128 on 132 SMs: width 80, 128 tiles, one wave (64 would need two, and 128 leaves 52 SMs
// idle). Host, pure.
inline int wide_width(int m, int n, int sms) {
  const int token_tiles = tc::ceil_div(n, 64 * wide_consumers(n));
  int best = 0;
  long best_cost = 0;
  for (int w : kWideWidths) {
    const long cost = long(tc::ceil_div(token_tiles * tc::ceil_div(m, w), sms)) * (w + 32);
    if (best == 0 || cost < best_cost) best = w, best_cost = cost;
  }
  return best;
}
// [/doc:wide_width]

// Enqueues wide_tile_gemm_kernel<Tile>: C = alpha A B + beta C as step 1 takes them. Preconditions: m, n, k >= 1; A
// and B as TMA addresses them; an SM 9.0 GPU. Errors: std::runtime_error when the GPU has too little shared memory;
// std::invalid_argument from the tensor maps; tc::CudaError when the launch fails.
template <typename Tile>
void launch_wide_tile(int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B,
                      int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
  constexpr auto kKernel = wide_tile_gemm_kernel<Tile>;
  static const bool opted_in = [] {
    tc::opt_in_dynamic_shared_memory(kKernel, Tile::kSmemBytes, "step 5 (wide tile)");
    return true;
  }();
  (void)opted_in;
  const CUtensorMap map_w = tc::k_major_map(A, m, k, lda, Tile::BlockW);
  const CUtensorMap map_t = tc::k_major_map(B, n, k, ldb, Tile::BlockT);
  const dim3 grid(tc::ceil_div(m, Tile::BlockW), tc::ceil_div(n, Tile::BlockT));
  kKernel<<<grid, Tile::kThreads, Tile::kSmemBytes, stream>>>(map_w, map_t, m, n, k, alpha, beta, C, ldc);
  tc::check_launch();
}

// Enqueues the wide tile of `width` (one of kWideWidths) and wide_consumers(n). Preconditions and errors: as
// launch_wide_tile; std::invalid_argument for a width not compiled.
template <int Consumers>
void launch_wide_width(int width, int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda,
                       const __nv_bfloat16* B, int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
  auto go = [&](auto tile) {
    launch_wide_tile<decltype(tile)>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  };
  switch (width) {
    case 32: return go(WideTile<32, Consumers>{});
    case 48: return go(WideTile<48, Consumers>{});
    case 64: return go(WideTile<64, Consumers>{});
    case 80: return go(WideTile<80, Consumers>{});
    case 128: return go(WideTile<128, Consumers>{});
    case 160: return go(WideTile<160, Consumers>{});
    case 192: return go(WideTile<192, Consumers>{});
    case 224: return go(WideTile<224, Consumers>{});
    case 256: return go(WideTile<256, Consumers>{});
    default: throw std::invalid_argument("wide tile: no kernel of width " + std::to_string(width));
  }
}

// Enqueues the wide tile of `width` for n tokens: C = alpha A B + beta C as step 1 takes them. Preconditions and
// errors: as launch_wide_width.
inline void launch_wide(int width, int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda,
                        const __nv_bfloat16* B, int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
  if (wide_consumers(n) == 1) return launch_wide_width<1>(width, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  launch_wide_width<2>(width, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}
