// Chapter 08 -- where step 4's time goes: its kernel with parts taken out, so that two rows differ by one part.
//
// Step 4 runs below the wgmma ceiling (tc/wgmma_ceiling.cuh: no loads, no barriers, no epilogue, every SM). These
// launches keep step 4's tile, cluster, grid, registers and tile order:
// - LoadsOnce (loads_once_kernel): the producer fills the ring once, with the first Stages slices of the block's
//   first tile, and the consumers run every slice of every tile on those stages. Left: the wgmma loop, its
//   full-barrier waits (which pass at once), persistence over tiles. Gone: the loads and the stage releases.
// - PlusLoads: step 4's own kernel (tma_store_gemm_kernel) with every slice through the ring, but storing one
//   register a thread (StoreOneEpilogue) instead of the tile: the loads and releases back, the epilogue still out.
// - step 4 itself puts back the TMA-store epilogue (08_ablation prints the rows; docs/08, "Where the time goes").
// Each still writes a defined result, so a test can tell that nothing was skipped: on all-ones operands every element
// they write is alpha * k + beta * C (tests/test_warp_specialized_gemm.cu).
#pragma once

#include "step4_tma_store.cuh"

#include "tc/device_buffer.hpp"
#include "tc/types.hpp"

#include <stdexcept>
#include <string>
#include <vector>

// An epilogue that writes one element a consumer thread: register 0, at tc::wgmma_m64nNk16_d_coord(warp, lane, 0),
// as alpha * acc + beta * C (fp32 C, column-major, ldc). 256 of a tile's 32,768 elements: the accumulators stay live,
// the epilogue's cost goes.
struct StoreOneEpilogue {
  using Params = DirectEpilogue::Params;
  template <int N>
  __device__ static void store(const Params& out, const float (&acc)[N / 2], int m, int n, int row0, int col0,
                               float alpha, float beta, int /*consumer*/, unsigned char* /*staging*/,
                               int /*row_block*/ = 0) {
    const tc::Coord p = tc::wgmma_m64nNk16_d_coord((threadIdx.x / 32) % 4, threadIdx.x % 32, 0);
    const int row = row0 + p.row, col = col0 + p.col;
    if (row < m && col < n) {
      float* c = out.C + row + static_cast<std::size_t>(col) * out.ldc;
      *c = beta != 0.0f ? alpha * acc[0] + beta * *c : alpha * acc[0];
    }
  }
  __device__ static void finish(const Params& /*out*/, int /*consumer*/) {}
};

// [doc:loads_once_kernel]
// tma_store_gemm_kernel's block, grid and tile order, with the ring filled once: tile t's slice s reads stage
// (slices * (tiles before t) + s) % Stages, which holds the block's first tile's K slice of that number. On all-ones
// operands every element it writes is alpha * k + beta * C. A (row-major) and B (column-major) as the maps say; C as
// StoreOneEpilogue writes it. Preconditions: m, n multiples of ClusterM * BlockM and BlockN, k a multiple of BlockK
// and at least Stages * BlockK (launch_loads_once checks); launched as tma_store_gemm_kernel. Errors: none reported.
// Source: as tma_store_gemm_kernel (step4_tma_store.cuh).
template <typename Tile, typename Input>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    loads_once_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int m,
                      int n, int k, float alpha, float beta, const __grid_constant__ StoreOneEpilogue::Params out,
                      const tc::HeightPlan plan) {
  constexpr int S = Tile::Stages, kCluster = Tile::ClusterM;
  extern __shared__ unsigned char smem_raw[];
  const tc::WsSmem<Tile> smem(smem_raw);
  const int warpgroup = threadIdx.x / 128, slices = k / Tile::BlockK;
  const int rank = kCluster > 1 ? tc::cluster_ctarank() : 0;
  const int first = blockIdx.x / kCluster, stride = gridDim.x / kCluster;
  if (threadIdx.x == 0) {
    for (int i = 0; i < S; ++i) tc::mbarrier_init(&smem.full[i], 1);  // the producer's arrival and the bytes
    tc::fence_mbarrier_init_release_cluster();  // visible to the TMA unit, and to the peer's multicast
  }
  // As tma_store_gemm_kernel: no wait and no peer's multicast before the barriers exist.
  if constexpr (kCluster > 1)
    tc::cluster_sync();
  else
    __syncthreads();

  if (warpgroup == 0) {
    tc::setmaxnreg_dec<Tile::kProducerRegisters>();
    if (threadIdx.x == 0 && first < plan.count()) {  // the first tile's first S slices, once
      const tc::PlannedTile origin = tc::planned_tile(plan, tc::kGroupClusterRows<Tile>, rank, first);
      const int part = tc::cluster_b_part_first_row(rank, Tile::BlockN, kCluster);
      for (int s = 0; s < S; ++s) {
        tc::mbarrier_arrive_expect_tx(&smem.full[s], tc::cluster_full_bytes(Tile::kSliceABytes, Tile::kSliceBBytes));
        tc::cp_async_bulk_tensor_2d_global_to_shared(smem.a(s), &map_a, s * Tile::BlockK, origin.row, &smem.full[s]);
        if constexpr (kCluster > 1) {
          tc::cp_async_bulk_tensor_2d_global_to_shared_multicast(smem.b(s) + part * Tile::kRowBytes, &map_b,
                                                                 s * Tile::BlockK, origin.col + part, &smem.full[s],
                                                                 tc::cluster_multicast_mask(kCluster));
        } else {
          tc::cp_async_bulk_tensor_2d_global_to_shared(smem.b(s), &map_b, s * Tile::BlockK, origin.col, &smem.full[s]);
        }
      }
    }
  } else {
    tc::setmaxnreg_inc<Tile::kConsumerRegisters>();
    const int consumer = warpgroup - 1;
    // As tma_store_gemm_kernel: stage 0's descriptors and the "full" barriers' address, computed once.
    const std::uint64_t a_first =
        tc::slice_descriptor(tc::shared_address(smem.a(0)) + consumer * 64 * Tile::kRowBytes, 0);
    const std::uint64_t b_first = tc::slice_descriptor(tc::shared_address(smem.b(0)), 0);
    const std::uint32_t full_first = tc::shared_address(&smem.full[0]);
    int it = 0;
    for (int t = first; t < plan.count(); t += stride) {
      const tc::PlannedTile origin = tc::planned_tile(plan, tc::kGroupClusterRows<Tile>, rank, t);
      float acc[1][Tile::kAccumulators] = {};  // one row block of 64: mma_slice_row_blocks<1, ...>
      for (int s = 0; s < slices; ++s, ++it) {
        const int stage = it % S;
        tc::mbarrier_wait_parity_at(full_first + 8u * stage, 0);  // phase 0 completes once; nothing refills it
        const std::uint32_t stage_offset = stage * Tile::kStageBytes;
        tc::mma_slice_row_blocks<1, Tile::BlockN, Input>(acc, tc::advance_wgmma_descriptor(a_first, stage_offset),
                                                         tc::advance_wgmma_descriptor(b_first, stage_offset));
        tc::wgmma_wait_group<1>();  // as step 4: one group in flight while the next is issued
      }
      tc::wgmma_wait_group<0>();
      StoreOneEpilogue::store<Tile::BlockN>(out, acc[0], m, n, origin.row + consumer * 64, origin.col, alpha, beta,
                                            consumer, nullptr);
    }
  }
  // No block leaves while its peer may still multicast into it: every block waited for all its stages (k >= S
  // slices), and the cluster barrier orders both blocks' waits before either exits.
  if constexpr (kCluster > 1) {
    __syncwarp();  // warp 0 reconverges after thread 0's loads: barrier.cluster is .aligned
    tc::cluster_sync();
  }
}
// [/doc:loads_once_kernel]

enum class Ablation { LoadsOnce, PlusLoads };

// Launches Part with step 4's tile and grid, with the tutorial's launcher signature: A row-major m x k (lda), B
// column-major k x n (ldb), C column-major fp32 (ldc); elements. Preconditions: LoadsOnce's whole tiles and k (below);
// PlusLoads any m, n, k that keep step 4's TMA rule (16-byte strides and bases); an SM 9.0 GPU. Errors:
// std::invalid_argument (one line) when LoadsOnce's sizes are broken or the tensor maps refuse the operands;
// tc::CudaError when the launch fails.
template <Ablation Part, typename Input>
void launch_ablation(int m, int n, int k, float alpha, const Input* A, int lda, const Input* B, int ldb, float beta,
                     float* C, int ldc, cudaStream_t stream = nullptr) {
  using T = Step4Tile;
  const StoreOneEpilogue::Params out{C, ldc};
  if constexpr (Part == Ablation::PlusLoads) {
    tc::launch_on_persistent_grid<T, tma_store_gemm_kernel<T, Input, StoreOneEpilogue>>(
        "ablation: + loads", m, n, k, alpha, A, lda, B, ldb, beta, out, stream);
  } else {
    constexpr int kRows = T::ClusterM * T::BlockM, kMinK = T::Stages * T::BlockK;
    if (m % kRows != 0 || n % T::BlockN != 0 || k % T::BlockK != 0 || k < kMinK)
      throw std::invalid_argument("ablation: loads once needs m % " + std::to_string(kRows) + ", n % " +
                                  std::to_string(T::BlockN) + ", k % " + std::to_string(T::BlockK) +
                                  " == 0 and k >= " + std::to_string(kMinK) + ", got " + std::to_string(m) + "x" +
                                  std::to_string(n) + "x" + std::to_string(k));
    tc::launch_on_persistent_grid<T, loads_once_kernel<T, Input>>("ablation: loads once", m, n, k, alpha, A, lda, B,
                                                                  ldb, beta, out, stream);
  }
}

// What an ablation launch wrote on all-ones m x n x k operands (alpha 1, beta 0) into a C of zeros: `written`
// elements equal k, `wrong` elements are neither k nor 0, `expected` is how many StoreOneEpilogue writes (256 a
// tile). A launch that skipped or repeated a slice, or a tile, shows as wrong > 0 or written != expected.
struct AblationWrites {
  long long written = 0, wrong = 0, expected = 0;
  bool ok() const { return wrong == 0 && written == expected; }
};

// Runs Part on all-ones operands of m x n x k (tight leading dimensions) and counts what it wrote. Preconditions: as
// launch_ablation's; m, n multiples of 128 and 256 (whole tiles, so every tile writes all 256 of its elements).
// Errors: as launch_ablation; tc::CudaError.
template <Ablation Part, typename Input>
AblationWrites check_ablation_on_ones(int m, int n, int k) {
  std::vector<Input> ones_a(std::size_t(m) * k, tc::ElementTraits<Input>::from_double(1.0)),
      ones_b(std::size_t(k) * n, tc::ElementTraits<Input>::from_double(1.0));
  tc::DeviceBuffer<Input> a(ones_a.size()), b(ones_b.size());
  tc::DeviceBuffer<float> c(std::size_t(m) * n);
  a.upload(ones_a);
  b.upload(ones_b);
  TC_CHECK(cudaMemset(c.data(), 0, c.bytes()));
  launch_ablation<Part>(m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, c.data(), m);
  const std::vector<float> got = c.download();  // after the launch: the copy waits for it
  AblationWrites w;
  w.expected = 256LL * (m / Step4Tile::BlockM) * (n / Step4Tile::BlockN);
  for (float x : got) {
    if (x == float(k)) {
      ++w.written;
    } else if (x != 0.0f) {
      ++w.wrong;
    }
  }
  return w;
}
