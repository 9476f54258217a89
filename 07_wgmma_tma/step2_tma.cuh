// Chapter 07, step 2 -- TMA loads and an mbarrier's transaction count replace the copies.
//
// What it adds over step 1: one thread, not 128, moves each slice. It tells the mbarrier how many bytes to expect
// (mbarrier.arrive.expect_tx) and issues two cp.async.bulk.tensor loads, one box of A and one of B, which the TMA unit
// writes into shared memory already in the 128-byte swizzle; every thread then waits on the barrier's phase
// (mbarrier.try_wait.parity), which completes when the last byte has landed. The tensor maps (tc/tma.hpp) are made on
// the host and reach the kernel as `const __grid_constant__` parameters. Still one stage: the load of slice s + 1
// waits until the wgmmas of slice s have read it.
#pragma once

#include "wgmma_tile.cuh"

#include "tc/mbarrier.cuh"
#include "tc/tma.hpp"

#include <cuda.h>

#include <type_traits>
#include <utility>

// A's and B's maps for Tile: boxes of BlockM and BlockN rows. k = 0 loads no slice (the kernel only scales C by
// beta), and a tensor map cannot have an empty dimension, so then both are left empty.
template <typename Tile, typename Input>
std::pair<CUtensorMap, CUtensorMap> operand_maps(int m, int n, int k, const Input* A, int lda, const Input* B,
                                                 int ldb) {
  if (k == 0) return {};
  return {tc::k_major_map(A, m, k, lda, Tile::BlockM), tc::k_major_map(B, n, k, ldb, Tile::BlockN)};
}

// [doc:step2_kernel]
// As step 1's kernel, with A and B read through map_a (A: K x M boxes of 64 x BlockM) and map_b (B: 64 x BlockN).
// Preconditions: as step 1, and the maps made by k_major_map for these A and B. Errors: none reported.
// Source: PTX ISA, "cp.async.bulk.tensor", "mbarrier.arrive.expect_tx", "mbarrier.try_wait".
template <typename Tile, typename Input>
__global__ void __launch_bounds__(Tile::kThreads)
    wgmma_tma_gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int k,
                          float alpha, float beta, float* C, int ldc) {
  static_assert(Tile::kConsumers == 1 && Tile::Stages == 1, "step 2 is one warpgroup and one stage");
  extern __shared__ unsigned char smem_raw[];
  unsigned char* a_slice = tc::aligned_smem(smem_raw);
  unsigned char* b_slice = a_slice + Tile::kSliceABytes;
  auto* full = reinterpret_cast<std::uint64_t*>(b_slice + Tile::kSliceBBytes);
  const int row0 = blockIdx.y * Tile::BlockM, col0 = blockIdx.x * Tile::BlockN;
  if (threadIdx.x == 0) {
    tc::mbarrier_init(full, 1);                // one arrival (the issuing thread's) plus the bytes it announces
    tc::fence_mbarrier_init_release_cluster();  // the barrier is initialised before the TMA unit completes on it
  }
  __syncthreads();  // no thread waits on the barrier before it exists
  float acc[Tile::kAccumulators] = {};

  for (int s = 0; s < k / Tile::BlockK; ++s) {
    if (threadIdx.x == 0) {
      tc::mbarrier_arrive_expect_tx(full, Tile::kStageBytes);
      tc::cp_async_bulk_tensor_2d_global_to_shared(a_slice, &map_a, s * Tile::BlockK, row0, full);
      tc::cp_async_bulk_tensor_2d_global_to_shared(b_slice, &map_b, s * Tile::BlockK, col0, full);
    }
    tc::mbarrier_wait_parity(full, s % 2);  // slice s is the barrier's s-th phase: parity s % 2
    tc::mma_slice<Tile::BlockN, Input>(acc, tc::shared_address(a_slice), tc::shared_address(b_slice));
    tc::wgmma_wait_group<0>();  // this warpgroup's wgmmas have read the slice
    __syncthreads();            // ... and every warp's, before thread 0 lets TMA overwrite it
  }
  store_accumulators<Tile>(acc, C, ldc, row0, col0, alpha, beta);
}
// [/doc:step2_kernel]

// [doc:step2_launch]
struct Step2Tma {
  static constexpr const char* name = "2 TMA+mbarrier";
  template <typename Tile, typename Input>
  static void launch_kernel(int m, int n, int k, float alpha, const Input* A, int lda, const Input* B, int ldb,
                            float beta, float* C, int ldc, cudaStream_t stream) {
    const auto [map_a, map_b] = operand_maps<Tile>(m, n, k, A, lda, B, ldb);
    launch_on_block_tiles<Tile, wgmma_tma_gemm_kernel<Tile, Input>>(name, m, n, stream, map_a, map_b, k, alpha, beta,
                                                                    C, ldc);
  }
};
using Step2Tile = WgmmaTile<64, 128, 1>;
// [/doc:step2_launch]
