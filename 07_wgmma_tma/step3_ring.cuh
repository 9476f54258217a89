// Chapter 07, step 3 -- a ring of Stages TMA slices, and two math warpgroups on a 128 x 256 block tile.
//
// What it adds over step 2: the loads run ahead of the math. Each stage has a "full" mbarrier (its slice landed: the
// TMA's bytes) and an "empty" one (both warpgroups have finished reading it: one arrival each). Thread 0 fills every
// stage first; then, each slice, every warpgroup waits for "full", issues its four m64n256k16 wgmmas and, once the
// previous slice's group has finished (wgmma.wait_group 1, so one group stays in flight), releases that slice's stage.
// Thread 0 refills a released stage with the slice Stages further on. Stage and parity of slice s come from
// tc::ring_slot (tc/layouts/mbarrier_ring.hpp), whose host model the tests run.
// Per 16 K-columns a 128 x 256 tile reads (128 + 256) x 32 bytes for 128 x 256 outputs, half step 2's 64 x 128 tile's
// bytes per output, and two warpgroups give the tensor cores two independent accumulators.
#pragma once

#include "step2_tma.cuh"
#include "wgmma_tile.cuh"

#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/mbarrier.cuh"
#include "tc/mutation_point.cuh"

// [doc:step3_kernel]
// As step 2's kernel, with Tile::Stages slices in a ring and Tile::kConsumers warpgroups, warpgroup g owning rows
// 64g .. 64g + 63 of the block tile. Preconditions: as step 2, and k / BlockK >= 1. Errors: none reported.
// Source: PTX ISA, "mbarrier" (phases, try_wait.parity), "cp.async.bulk.tensor", "wgmma.wait_group".
template <typename Tile, typename Input>
__global__ void __launch_bounds__(Tile::kThreads)
    wgmma_ring_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int k,
                           float alpha, float beta, float* C, int ldc) {
  constexpr int S = Tile::Stages;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* stages = tc::aligned_smem(smem_raw);
  auto* full = reinterpret_cast<std::uint64_t*>(stages + S * Tile::kStageBytes);
  std::uint64_t* empty = full + S;
  auto a_slice = [&](int stage) { return stages + stage * Tile::kStageBytes; };
  auto b_slice = [&](int stage) { return a_slice(stage) + Tile::kSliceABytes; };
  const int row0 = blockIdx.y * Tile::BlockM, col0 = blockIdx.x * Tile::BlockN;
  const int group = threadIdx.x / 128, slices = k / Tile::BlockK;
  const bool leader = threadIdx.x % 128 == 0;  // one thread per warpgroup releases its stages

  auto load = [&](int s) {  // thread 0 only: slice s into its stage, counted off its "full" barrier
    const int stage = tc::ring_slot(s, S).stage;
    tc::mbarrier_arrive_expect_tx(&full[stage], Tile::kStageBytes);
    tc::cp_async_bulk_tensor_2d_global_to_shared(a_slice(stage), &map_a, s * Tile::BlockK, row0, &full[stage]);
    // The slice of B is a mutation point: a test loads the middle slice's neighbour (tc_test/planted_bugs.cuh).
    const int b_k = tc::mutation_point(tc::MutationSite::KSlice, s, slices) * Tile::BlockK;
    tc::cp_async_bulk_tensor_2d_global_to_shared(b_slice(stage), &map_b, b_k, col0, &full[stage]);
  };
  if (threadIdx.x == 0) {
    for (int i = 0; i < S; ++i) {
      tc::mbarrier_init(&full[i], 1);                     // the issuing thread's arrival, plus the bytes
      tc::mbarrier_init(&empty[i], Tile::kConsumers);     // one arrival per warpgroup
    }
    tc::fence_mbarrier_init_release_cluster();  // initialised before the TMA unit completes on them
    for (int s = 0; s < S && s < slices; ++s) load(s);  // every stage is free at the start
  }
  __syncthreads();  // no thread waits on a barrier before it exists

  float acc[Tile::kAccumulators] = {};
  for (int s = 0; s < slices; ++s) {
    const tc::RingSlot slot = tc::ring_slot(s, S);
    tc::mbarrier_wait_parity(&full[slot.stage], slot.parity);
    tc::mma_slice<Tile::BlockN, Input>(acc, tc::shared_address(a_slice(slot.stage)) + group * 64 * Tile::kRowBytes,
                           tc::shared_address(b_slice(slot.stage)));
    tc::wgmma_wait_group<1>();  // slice s - 1's group is done: its stage is no longer read by this warpgroup
    if (s > 0) {
      const int previous = tc::ring_slot(s - 1, S).stage;
      if (leader) tc::mbarrier_arrive(&empty[previous]);
      const int next = s - 1 + S;  // the slice that goes into the released stage
      if (threadIdx.x == 0 && next < slices) {
        tc::mbarrier_wait_parity(&empty[previous], tc::ring_empty_wait_parity(next, S));
        load(next);
      }
      __syncwarp();  // warp 0 reconverges before the next wgmma, which all its lanes issue together
    }
  }
  tc::wgmma_wait_group<0>();  // the last group has written acc
  store_accumulators<Tile>(acc, C, ldc, row0 + group * 64, col0, alpha, beta);
}
// [/doc:step3_kernel]

// [doc:step3_launch]
struct Step3Ring {
  static constexpr const char* name = "3 TMA ring";
  template <typename Tile, typename Input>
  static void launch_kernel(int m, int n, int k, float alpha, const Input* A, int lda, const Input* B, int ldb,
                            float beta, float* C, int ldc, cudaStream_t stream) {
    const auto [map_a, map_b] = operand_maps<Tile>(m, n, k, A, lda, B, ldb);
    launch_on_block_tiles<Tile, wgmma_ring_gemm_kernel<Tile, Input>>(name, m, n, stream, map_a, map_b, k, alpha,
                                                                     beta, C, ldc);
  }
};
using Step3Tile = WgmmaTile<128, 256, 4>;
// [/doc:step3_launch]
