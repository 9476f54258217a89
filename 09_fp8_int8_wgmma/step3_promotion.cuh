// Chapter 09, step 3 -- promotion: the fp8 accumulator sums one slice of 128 K values, and the CUDA cores add that
// partial sum into fp32 accumulators.
//
// What it adds over step 1: step 2's probe shows that the fp8 wgmma's additions keep only part of fp32's 24
// significand bits (the DeepSeek-V3 report found about 14 on the H800), so a sum over the whole of K loses the bits of
// small products once the running sum is large. Here each group of 128 K
// values (one slice, four k32 wgmmas) runs into a scratch accumulator, the first wgmma overwriting it (scale-d 0), and
// the warpgroup then adds the scratch into its fp32 accumulators with ordinary FADDs: each group's sum starts from
// zero, and fp32 holds the running total. The adds of one consumer overlap the other consumer's wgmmas: the two
// warpgroups share the tensor core, each issuing its next group once its adds are done, so that each one's adds run
// under the other's group. The price is registers: a scratch as large as step 1's m64n256 accumulator would take 128
// more a thread, which a consumer does not have, so the same 128 x 256 tile is split along N instead of M (each
// consumer all 128 rows by its 128 columns, two m64n128k32 row blocks: 128 accumulators, and one row block's 64 of
// scratch). A consumer now reads only its half of B, so it stages its epilogue there, in the tile's last stage, as
// chapter 08's step 5 does, instead of in 32 KB of its own.
#pragma once

#include "gemm_8bit.cuh"

#include "tc/cluster.cuh"
#include "tc/layouts/cluster.hpp"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/mbarrier.cuh"
#include "tc/mutation_point.cuh"
#include "tc/persistent_grid.cuh"
#include "tc/tma_store_epilogue.cuh"
#include "tc/warpgroup.cuh"
#include "tc/wgmma.cuh"
#include "tc/ws_block.cuh"
#include "tc/ws_tile.cuh"

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

// [doc:promoted_tile]
// The promoted tile: step 1's 128 x 256 tile (tc::WsTile: 4 stages, 2-block clusters, here one A box of 128 rows),
// split between the consumers along N instead of M, so that each holds two 64-row accumulators of N = 128 and one
// scratch row block. The constants below replace the base's where they differ (a derived struct's static members hide
// the base's of the same name): the split, and the register budget, which counts the scratch.
template <int Stages = 4>
struct PromotedTile : tc::WsTile<Stages, 2, 0, 128, 128> {
  static constexpr bool kSplitN = true;
  static constexpr int kConsumerRows = 128, kConsumerCols = 128, kRowBlocks = 2;
  static constexpr int kAccumulators = kRowBlocks * kConsumerCols / 2;  // fp32 registers a consumer thread holds
  static constexpr int kScratch = kConsumerCols / 2;                    // one row block's partial sum
  static constexpr int kProducerRegisters = 24, kConsumerRegisters = 240;
  static_assert(kConsumerRegisters >= kAccumulators + kScratch + 48, "accumulators, scratch, and room for the rest");
  static_assert((kProducerRegisters + 2 * kConsumerRegisters) * 128 <= 65536, "the SM's 65,536 registers");
  static_assert(kConsumerCols * tc::kSliceBytes == 2 * tc::EpilogueChunk<4>::kBytes,
                "a consumer's half of B in a stage holds the epilogue's two staging buffers");
};
// [/doc:promoted_tile]

// [doc:fresh]
// One row block's product over one slice into d alone: the slice's four k32 steps, the first with scale-d 0
// (accumulate false: D = A B, whatever d held). Committed as one group, not waited for.
template <int N, typename Input>
__device__ inline void mma_slice_fresh(float (&d)[N / 2], std::uint64_t a_first, std::uint64_t b_first) {
  tc::wgmma_fence();  // d was last read by the CUDA cores (the previous promotion)
#pragma unroll
  for (int kk = 0; kk < tc::kSliceBytes / 32; ++kk)
    tc::wgmma_m64nNk32<N, Input>(d, tc::advance_wgmma_descriptor(a_first, 32u * kk),
                                 tc::advance_wgmma_descriptor(b_first, 32u * kk), kk > 0);
  tc::wgmma_commit_group();
}
// [/doc:fresh]

// [doc:promoted_epilogue]
// Steps 3's and 4's epilogue: consumer c's RB row blocks of promoted sums (all the tile's rows by its N columns) into
// C at `tile`, with Epilogue (tc::TmaStoreEpilogue), staged in c's half of B in the tile's last stage (slice it - 1),
// which `held` keeps until the TMA stores have read it. Preconditions: the tile's wgmmas have all completed.
template <typename Tile, typename Epilogue, int RB, int N>
__device__ inline void store_promoted(const tc::WsConsumer<Tile>& c, const tc::WsSmem<Tile>& smem,
                                      tc::WsHeldStage& held, int it, const typename Epilogue::Params& out,
                                      const float (&acc)[RB][N / 2], int m, int n, const tc::PlannedTile& tile,
                                      float alpha, float beta) {
  unsigned char* const staging = smem.b(held.hold_last(it, c.walk.slices, Tile::Stages));
#pragma unroll
  for (int r = 0; r < RB; ++r)
    Epilogue::template store<N>(out, acc[r], m, n, tile.row + 64 * r, tile.col + c.index * N, alpha, beta, c.index,
                                staging, r);
}
// [/doc:promoted_epilogue]

// [doc:step3_kernel]
// gridDim.x blocks (a multiple of 2) walk the cluster tiles of the m x n C as `plan` cuts it (uniform 128-row tiles);
// each consumer computes all 128 rows of a tile by its half of the columns, one slice at a time into scratch, promoted
// into fp32 accumulators, and writes them with Epilogue (tc::TmaStoreEpilogue), staged in its half of B in the
// tile's last stage. Preconditions: maps made by tc::operand_maps; plan made by tc::tile_plan<Tile>; launched with
// clusters of 2 along x; Input fp8. Errors: none reported. Source: PTX ISA, "wgmma.mma_async" (scale-d),
// "setmaxnreg", "mbarrier", "cp.async.bulk.tensor"; DeepSeek-V3 Technical Report, section 3.3.2.
template <typename Tile, typename Input, typename Epilogue>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    promoted_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int m,
                         int n, int k, float alpha, float beta, const __grid_constant__ typename Epilogue::Params out,
                         const tc::HeightPlan plan) {
  constexpr int RB = Tile::kRowBlocks, N = Tile::kConsumerCols;
  constexpr std::uint32_t kRowBlockBytes = 64u * tc::kSliceBytes;  // 64 rows of A in a slice
  extern __shared__ unsigned char smem_raw[];
  const tc::WsSmem<Tile> smem(smem_raw);
  // Chapter 08's skeleton (tc/ws_block.cuh): the ring's set-up, the producer, the cluster exit; this kernel is its
  // consumers, each with all the rows of A and its half of B in a stage.
  tc::ws_gemm_block<Tile, Input>(smem, map_a, map_b, plan, k, [&](const tc::WsConsumer<Tile>& c) {
    // Cluster tile t as in chapter 08's step 5 (tc/taller_tile_gemm.cuh): its slices, `it` counting them over the
    // block's tiles, then its epilogue staged in its last stage, held into the next tile. What is new: each slice's
    // row blocks run into `part` one after the other and are promoted into acc.
    int it = 0;
    tc::WsHeldStage held;  // the stage this consumer's last epilogue staged C in
    for (int t = c.walk.first; t < plan.count(); t += c.walk.stride) {
      float acc[RB][N / 2] = {};  // fp32: the promoted sums
      float part[N / 2] = {};     // one row block's sum over one slice, in the fp8 accumulator
      for (int s = 0; s < c.walk.slices; ++s, ++it) {
        const int stage = c.ring.wait(it).stage;
        const std::uint64_t a = c.operands.a(stage), b = c.operands.b(stage);  // the stage's A and B (descriptors)
#pragma unroll
        for (int r = 0; r < RB; ++r) {
          // Each consumer issues its group as soon as its last adds are done, and the tensor core runs the two
          // consumers' groups in the order they arrive: while one consumer adds, the other's group runs. No
          // barrier orders them: strict turns (a named barrier between the consumers) measured 1-3% slower on an
          // H200 (docs/results/09_no_turns_h200.txt), a barrier's wait more before each group.
          mma_slice_fresh<N, Input>(part, tc::advance_wgmma_descriptor(a, r * kRowBlockBytes), b);
          tc::wgmma_wait_group<0>();  // the group's sum is in part (and, for the last row block, the stage is read)
          // The promotion: FADDs on the CUDA cores. (The sum added is a mutation point: a test skips slice 1's.)
#pragma unroll
          for (int i = 0; i < N / 2; ++i) acc[r][i] += tc::mutation_point(tc::MutationSite::PromotedSum, part[i], s);
        }
        // Every row block has read the stage: release it, but for the tile's last, where the epilogue stages C.
        if (s + 1 < c.walk.slices) c.ring.release(stage);
        if (s == 0) held.give_back(c.ring);  // the previous tile's staging, a slice into this one (tc::WsHeldStage)
      }
      store_promoted<Tile, Epilogue, RB, N>(c, smem, held, it, out, acc, m, n, c.walk.tile(plan, t), alpha, beta);
    }
    Epilogue::finish(out, c.index);  // its last TMA stores have read the staging
  });
}
// [/doc:step3_kernel]

// [doc:step3]
struct Step3Promotion {
  static constexpr const char* name = "3 promoted";
  static constexpr bool kBlockScaled = false;
  static constexpr int kPromotionInterval = tc::kSliceElements<__nv_fp8_e4m3>;  // K values the fp8 accumulator sums
  template <typename Tile, typename Precision>
  static void launch_kernel(int m, int n, int k, float alpha, const typename Precision::Input* A, int lda,
                            const typename Precision::Input* B, int ldb, float beta, tc::output_t<Precision>* C,
                            int ldc, cudaStream_t stream) {
    using Out = tc::output_t<Precision>;
    using Epilogue = tc::TmaStoreEpilogue<Out>;
    const typename Epilogue::Params out{tc::output_map(C, m, n, ldc), C, ldc};
    tc::launch_on_persistent_grid<Tile, promoted_gemm_kernel<Tile, typename Precision::Input, Epilogue>>(
        name, m, n, k, alpha, A, lda, B, ldb, beta, out, stream);
  }
};
using Step3Tile = PromotedTile<>;
// [/doc:step3]
