// The taller-tile warp-specialized GEMM: chapter 08's step 5, complete, as a building block that chapter 10 times
// and builds on without including chapter 08.
//
// What it adds over chapter 08's step 4 (08_warp_specialized_gemm/step4_tma_store.cuh): a block loads A's rows and
// B's rows of its tile every slice, and does rows(A) x rows(B) multiplies with them. 192 x 256 loads 448 rows for
// 49,152 outputs, 128 x 256 loads 384 for 32,768: 22% fewer bytes a multiply. It pays with what the SM has least of:
// wgmma's M is 64 a warpgroup, so the two consumers split the tile along N (192 x 128 each, three m64n128k16
// accumulators, 192 fp32 registers a thread, setmaxnreg 240 and the producer's 24: tc::WsTile), and a stage is
// 56 KB, so beside step 4's 32 KB of staging only three fit. So the kernel has no staging of its own: split along N,
// a consumer alone reads its 16 KB half of B, and after the tile's last slice it stages its epilogue there and holds
// that stage until the TMA stores have read it. Four stages fit again.
// 192 rows divide few M: at 4096 a last row of 192-row tiles would be a third full, and the waves uneven. So the host
// cuts M into rows of both heights (tc::plan_tile_heights): at 4096, 8 rows of 384-row cluster tiles and 4 of 256,
// so that each of an H200's 64 clusters takes two tall tiles and one short one; at 6144, all tall. A short tile is the
// same code with two accumulators a consumer instead of three, and A comes in 64-row boxes, three or two a slice.
// Inputs are 16-bit only: with 8-bit ones chapter 09 measured a 128 x 256 tile of one m64n256 accumulator a consumer
// faster than this one (its step 1 says why), and a path that no chapter runs would be a path that no test checks.
// Calls inside namespace tc stay qualified, as in the chapter's steps, so that the walkthrough's diff from step 4
// shows only what changed.
#pragma once

#include "tc/cluster.cuh"
#include "tc/layouts/cluster.hpp"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/tile_order.hpp"
#include "tc/mbarrier.cuh"
#include "tc/persistent_grid.cuh"
#include "tc/tma_store_epilogue.cuh"
#include "tc/warpgroup.cuh"
#include "tc/ws_block.cuh"
#include "tc/ws_pipeline.cuh"
#include "tc/ws_producer.cuh"
#include "tc/ws_tile.cuh"

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace tc {

// [doc:kernel]
// gridDim.x blocks (a multiple of Tile::ClusterM) walk the cluster tiles of the m x n C as `plan` cuts it into rows
// of BlockM- and ShortM-high tiles (tc::plan_tile_heights); each consumer computes all the rows of a tile by its half
// of the columns, and writes them with Epilogue (tc::TmaStoreEpilogue), staged in its half of B in the tile's last
// stage. Preconditions: maps made by tc::operand_maps; plan made by tc::tile_plan<Tile>; launched with clusters of
// Tile::ClusterM along x; Epilogue's two buffers a consumer fill exactly its half of B in a stage; Input __half or
// __nv_bfloat16 (fp32 accumulators: Epilogue::Scalar float). Errors: none reported.
// Source: PTX ISA, "setmaxnreg", "mbarrier", "cp.async.bulk.tensor" (.multicast::cluster), "barrier.cluster", "mapa",
// "wgmma.mma_async"; CUDA C++ Programming Guide, "Thread Block Clusters".
template <typename Tile, typename Input, typename Epilogue>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    taller_tile_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int m,
                            int n, int k, typename Epilogue::Scalar alpha, typename Epilogue::Scalar beta,
                            const __grid_constant__ typename Epilogue::Params out, const tc::HeightPlan plan) {
  constexpr int S = Tile::Stages;
  using Acc = tc::wgmma_accumulator_t<Input>;
  static_assert(std::is_same_v<Acc, typename Epilogue::Scalar>, "the epilogue takes the wgmma's accumulators");
  static_assert(sizeof(Input) == 2, "16-bit inputs: no chapter runs this kernel on 8-bit ones (see the header)");
  static_assert(Tile::ClusterM == 2, "as step 3: the 2-block cluster");
  static_assert(Tile::kSplitN && Tile::kTwoHeights && Tile::kEpilogueBytes == 0,
                "a taller tile split along N, in rows of two heights, staging its epilogue in its stages");
  extern __shared__ unsigned char smem_raw[];
  const tc::WsSmem<Tile> smem(smem_raw);
  // The skeleton (tc/ws_block.cuh): the ring's set-up, common's producer (tc/ws_producer.cuh), the cluster exit.
  // What is this kernel's own is its consumers: c, each one's index, ring, walk over the tiles, and part of a stage
  // (all the rows of A, and its half of B).
  tc::ws_gemm_block<Tile, Input>(smem, map_a, map_b, plan, k, [&](const tc::WsConsumer<Tile>& c) {
    const int col0 = c.index * Tile::kConsumerCols;
    // Cluster tile t: its slices through the ring, then its epilogue. `it` counts slices over all this block's
    // tiles. A short tile uses the first kShort of the tall tile's accumulators, on the same code path: with a
    // path per height ptxas spilled. The epilogue is staged in the tile's last stage, which is released during
    // the next tile's first slice, once the TMA stores have read it.
    int it = 0;
    tc::WsHeldStage held;  // the stage this consumer's last epilogue staged C in
    for (int t = c.walk.first; t < plan.count(); t += c.walk.stride) {
      constexpr int RB = Tile::kRowBlocks, kShort = Tile::kShortRowBlocks;  // 64-row accumulators: 3, or 2
      const bool tall = t < plan.tall_count();
      Acc acc[RB][Tile::kConsumerCols / 2] = {};
      for (int s = 0; s < c.walk.slices; ++s, ++it) {
        const int stage = c.ring.wait(it).stage;
        const std::uint64_t a = c.operands.a(stage), b = c.operands.b(stage);  // the stage's A and B (descriptors)
        if (!tall)  // acc's first kShort rows, as an array of their own
          tc::mma_slice_row_blocks<kShort, Tile::kConsumerCols, Input>(
              reinterpret_cast<Acc(&)[kShort][Tile::kConsumerCols / 2]>(acc), a, b);
        else
          tc::mma_slice_row_blocks<RB, Tile::kConsumerCols, Input>(acc, a, b);
        tc::wgmma_wait_group<1>();  // slice s - 1's group is done: its stage is no longer read by this warpgroup
        if (s > 0) c.ring.release(tc::ring_slot(it - 1, S).stage);
        if (s == 0) held.give_back(c.ring);  // the previous tile's staging, a slice into this one
      }
      tc::wgmma_wait_group<0>();  // the tile's last group has written acc, and read its stage
      // The staging: this consumer's half of B in the tile's last stage, which it alone read (with k = 0, no stage
      // was loaded: stage 0). The k = 0 case is a branch here, not hold_last's own: through hold_last's select,
      // ptxas put an IADD3 before every one of the epilogue's 384 staging stores instead of addressing each as
      // [register + uniform register] (docs/results/08_skeleton_final_before_after_h200.txt).
      unsigned char* staging = smem.b(0);
      if (c.walk.slices > 0) staging = smem.b(held.hold_last(it, c.walk.slices, S));
      const tc::PlannedTile tile = c.walk.tile(plan, t);
#pragma unroll
      for (int r = 0; r < RB; ++r)
        if (r < kShort || tall)
          Epilogue::template store<Tile::kConsumerCols>(out, acc[r], m, n, tile.row + 64 * r, tile.col + col0,
                                                        alpha, beta, c.index, staging, r);
    }
    Epilogue::finish(out, c.index);  // its last TMA stores have read the staging
    // The last staging stage is never released: no load waits for it.
  });
}
// [/doc:kernel]

// [doc:launch]
// The tile step 5 runs: 192 x 256 tiles and 128 x 256 ones, 4 stages, 2-block clusters, no staging of its own.
using TallerTile = WsTile<4, 2, 0, 192, 128>;

// Enqueues taller_tile_gemm_kernel<Tile, Input, TmaStoreEpilogue<Out>> on persistent_blocks blocks in clusters of
// Tile::ClusterM: C = alpha * A * B + beta * C, A row-major m x k (lda), B column-major k x n (ldb), C column-major
// m x n (ldc); Input __half or __nv_bfloat16 with Out float or __nv_bfloat16 (fp32 accumulation, float alpha and
// beta: Scalar). `name` names the kernel in errors.
// Preconditions: m, n > 0; A, B and C as TMA addresses them (16-byte aligned bases, ld a multiple of 16 bytes), and
// m * sizeof(Out) a multiple of 16 bytes, as the TMA store writes whole 16-byte pieces of a column
// (tc::kTmaStoreOperandRule; the chapters' padded path, tc/padded_gemm.hpp, copies other operands); an SM 9.0 GPU.
// Errors: std::runtime_error when the GPU has too little shared memory; std::invalid_argument from the tensor maps;
// CudaError when the launch fails.
template <typename Tile, typename Input, typename Out, typename Scalar = typename TmaStoreEpilogue<Out>::Scalar>
void launch_taller_tile_gemm(const char* name, int m, int n, int k, Scalar alpha, const Input* A, int lda,
                             const Input* B, int ldb, Scalar beta, Out* C, int ldc, cudaStream_t stream) {
  using Epilogue = TmaStoreEpilogue<Out>;
  static_assert(Epilogue::kBytesPerConsumer == Tile::kConsumerCols * Tile::kRowBytes,
                "the two staging buffers are exactly a consumer's half of B in a stage");
  const typename Epilogue::Params out{output_map(C, m, n, ldc), C, ldc};
  launch_on_persistent_grid<Tile, taller_tile_gemm_kernel<Tile, Input, Epilogue>>(name, m, n, k, alpha, A, lda, B, ldb,
                                                                                   beta, out, stream);
}
// [/doc:launch]

}  // namespace tc
