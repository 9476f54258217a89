// Chapter 08, step 1 -- warp specialization: a producer warpgroup that only loads, two consumer warpgroups that only
// compute, and registers moved from the one to the others.
//
// What it adds over chapter 07's step 3 (the same 128 x 256 tile and 4-stage ring): there, thread 0 of the first
// math warpgroup also refilled the ring, between its own wgmmas, so a late refill stalled that warpgroup's math. Here
// a third warpgroup does nothing else: its thread 0 waits on each stage's "empty" barrier and issues the next TMA
// loads as soon as both consumers release it, while the consumers wait only on "full". The producer needs a handful
// of registers, the consumers 128 accumulators each and more, so after the barriers are set up the producer gives
// registers back (setmaxnreg.dec 40) and the consumers take them (setmaxnreg.inc 232): the block's 65,536 registers
// go where the work is (WsTile's budget). Still one block per output tile, launched as a grid of tiles.
#pragma once

#include "ws_tile.cuh"

#include "tc/check.hpp"
#include "tc/dynamic_smem.hpp"
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/mbarrier.cuh"
#include "tc/warpgroup.cuh"

// [doc:step1_kernel]
// One block per 128 x 256 tile of C: (blockIdx.y, blockIdx.x) = (tile row, tile column). A's map reads boxes of 64 K
// x 128 rows, B's of 64 K x 256 rows (k_major_map). Preconditions: Tile::ClusterM == 1; maps made by operand_maps for
// these m, n, k. Errors: none reported. Source: PTX ISA, "setmaxnreg", "mbarrier", "cp.async.bulk.tensor",
// "wgmma.mma_async"; CUDA C++ Programming Guide, "Asynchronous Data Copies using TMA".
template <typename Tile, typename Input>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    ws_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int m, int n,
                   int k, float alpha, float beta, DirectEpilogue::Params out) {
  static_assert(Tile::ClusterM == 1, "step 1 has no clusters");
  constexpr int S = Tile::Stages;
  extern __shared__ unsigned char smem_raw[];
  const tc::WsSmem<Tile> smem(smem_raw);
  const int row0 = blockIdx.y * Tile::BlockM, col0 = blockIdx.x * Tile::BlockN;
  const int warpgroup = tc::warpgroup_index(), slices = tc::ceil_div(k, Tile::BlockK);
  if (threadIdx.x == 0) {
    for (int i = 0; i < S; ++i) {
      tc::mbarrier_init(&smem.full[i], 1);                  // the producer's arrival, plus the bytes
      tc::mbarrier_init(&smem.empty[i], Tile::kConsumers);  // one arrival per consumer warpgroup
    }
    tc::fence_mbarrier_init_release_cluster();  // initialised before the TMA unit completes on them
  }
  __syncthreads();  // no thread waits on a barrier before it exists

  if (warpgroup == 0) {
    tc::setmaxnreg_dec<Tile::kProducerRegisters>();  // all 128 threads: setmaxnreg is warpgroup-wide
    if (threadIdx.x == 0) {
      for (int s = 0; s < slices; ++s) {
        const tc::RingSlot slot = tc::ring_slot(s, S);
        tc::mbarrier_wait_parity(&smem.empty[slot.stage], tc::ring_empty_wait_parity(s, S));
        tc::mbarrier_arrive_expect_tx(&smem.full[slot.stage], Tile::kStageBytes);
        tc::cp_async_bulk_tensor_2d_global_to_shared(smem.a(slot.stage), &map_a, s * Tile::BlockK, row0,
                                                     &smem.full[slot.stage]);
        tc::cp_async_bulk_tensor_2d_global_to_shared(smem.b(slot.stage), &map_b, s * Tile::BlockK, col0,
                                                     &smem.full[slot.stage]);
      }
    }
  } else {  // nothing waits for the producer: the consumers' last "full" wait covers its last load
    tc::setmaxnreg_inc<Tile::kConsumerRegisters>();
    const int consumer = warpgroup - 1;
    const bool leader = threadIdx.x % 128 == 0;  // one thread per warpgroup releases its stages
    float acc[Tile::kAccumulators] = {};
    for (int s = 0; s < slices; ++s) {
      const tc::RingSlot slot = tc::ring_slot(s, S);
      tc::mbarrier_wait_parity(&smem.full[slot.stage], slot.parity);
      tc::mma_slice<Tile::BlockN, Input>(acc, tc::shared_address(smem.a(slot.stage)) + consumer * 64 * Tile::kRowBytes,
                                         tc::shared_address(smem.b(slot.stage)));
      tc::wgmma_wait_group<1>();  // slice s - 1's group is done: its stage is no longer read by this warpgroup
      if (s > 0 && leader) tc::mbarrier_arrive(&smem.empty[tc::ring_slot(s - 1, S).stage]);
    }
    tc::wgmma_wait_group<0>();  // the last group has written acc
    DirectEpilogue::store<Tile::BlockN>(out, acc, m, n, row0 + consumer * 64, col0, alpha, beta);
  }
}
// [/doc:step1_kernel]

// [doc:step1_launch]
struct Step1WarpSpecialized {
  static constexpr const char* name = "1 warp-specialized";
  static constexpr tc::OperandRule kCRule = tc::kScalarF32OperandRule;
  template <typename Tile, typename Precision>
  static void launch_kernel(int m, int n, int k, float alpha, const typename Precision::Input* A, int lda,
                            const typename Precision::Input* B, int ldb, float beta, float* C, int ldc,
                            cudaStream_t stream) {
    using Input = typename Precision::Input;
    constexpr auto kernel = ws_gemm_kernel<Tile, Input>;
    static const bool opted_in = (tc::opt_in_dynamic_shared_memory(kernel, Tile::kSmemBytes, name), true);
    (void)opted_in;
    const auto [map_a, map_b] = tc::operand_maps<Tile>(m, n, k, A, lda, B, ldb);
    const dim3 grid(tc::ceil_div(n, Tile::BlockN), tc::ceil_div(m, Tile::BlockM));  // x along N: neighbours share A
    kernel<<<grid, Tile::kThreads, Tile::kSmemBytes, stream>>>(map_a, map_b, m, n, k, alpha, beta,
                                                                DirectEpilogue::Params{C, ldc});
    tc::check_launch();
  }
};
using Step1Tile = tc::WsTile<4>;
// [/doc:step1_launch]
