// Chapter 08's own sections: what main.cu prints besides the driver's tables.
//   - explain (host): the plan the kernels keep -- registers after setmaxnreg, shared memory, who loads what in a
//     cluster, step 5's rows of two tile heights at each size, and the tile order's L2 footprint;
//   - explain_grids (GPU): how many blocks each persistent step runs on this GPU;
//   - print_kernel_resources (GPU): what each step's kernel costs in registers and shared memory.
// Units: bytes, registers, tiles. Errors: tc::CudaError from the GPU parts. Source: CUDA Runtime API,
// "cudaOccupancyMaxActiveClusters", "cudaFuncGetAttributes".
#pragma once

#include "step1_warp_specialized.cuh"
#include "step2_persistent.cuh"
#include "step3_cluster.cuh"
#include "step4_tma_store.cuh"
#include "step5_taller_tile.cuh"

#include "tc/chapter_driver.cuh"  // tc::kernel_resources
#include "tc/gemm_driver.hpp"     // tc::RunOptions
#include "tc/layouts/cluster.hpp"
#include "tc/layouts/tile_order.hpp"
#include "tc/persistent_grid.cuh"

#include <cstdint>
#include <cstdio>

// The plan, on the host (any machine).
inline void explain(const tc::RunOptions& o) {
  using T = Step4Tile;
  std::printf("\n== the plan (tc/ws_tile.cuh): one producer and %d consumer warpgroups, a %d x %d tile, %d stages ==\n",
              T::kConsumers, T::BlockM, T::BlockN, T::Stages);
  std::printf(
      "registers after setmaxnreg: producer %d + %d consumers x %d = %d a thread-row, x 128 threads = %d of "
      "65536\n",
      T::kProducerRegisters, T::kConsumers, T::kConsumerRegisters,
      T::kProducerRegisters + T::kConsumers * T::kConsumerRegisters,
      128 * (T::kProducerRegisters + T::kConsumers * T::kConsumerRegisters));
  std::printf("shared memory: %d stages x %d B + epilogue staging %d B + alignment and barriers = %d B of %d\n",
              T::Stages, T::kStageBytes, T::kEpilogueBytes, T::kSmemBytes, 227 * 1024);
  std::printf("cluster of %d along M: each block loads A (%d B) and %d rows of B (%d B) a slice, and receives %d B\n",
              T::ClusterM, T::kSliceABytes, T::kBPartRows, T::kBPartRows * T::kRowBytes,
              tc::cluster_full_bytes(T::kSliceABytes, T::kSliceBBytes));
  using T5 = Step5Tile;
  std::printf(
      "step 5: rows of %d x %d and %d x %d tiles, each consumer all the rows x %d columns (%d or %d m64n%dk16 "
      "accumulators, %d fp32 registers a thread at most); registers %d + %d x %d; %d stages x %d B + staging %d B = "
      "%d B of shared memory (each consumer stages its epilogue in its half of B in the tile's last stage)\n",
      T5::BlockM, T5::BlockN, T5::ShortM, T5::BlockN, T5::kConsumerCols, T5::kRowBlocks, T5::kShortRowBlocks,
      T5::kConsumerCols, T5::kAccumulators, T5::kProducerRegisters, T5::kConsumers, T5::kConsumerRegisters, T5::Stages,
      T5::kStageBytes, T5::kEpilogueBytes, T5::kSmemBytes);
  std::printf("bytes loaded a slice per element of C: step 4 %.3f, step 5's %d-row tile %.3f\n",
              double(T::kStageBytes) / (T::BlockM * T::BlockN), T5::BlockM,
              double(T5::kStageBytes) / (T5::BlockM * T5::BlockN));
  // Step 5's rows of two heights (tc::plan_tile_heights) on the clusters of an H100's or H200's 132 SMs.
  const int clusters = tc::persistent_blocks<T5>(132, 1 << 30) / T5::ClusterM;
  for (const tc::GemmShape& s : o.sizes) {
    const tc::HeightPlan p = tc::tile_plan<T5>(s.m, s.n, clusters);
    std::printf(
        "step 5 at %dx%dx%d on %d clusters: %d rows of %d-row cluster tiles, then %d of %d; the busiest cluster "
        "computes %d rows x %d (step 4's tiles: %d)\n",
        s.m, s.n, s.k, clusters, p.tall_rows, T5::ClusterM * T5::BlockM, p.short_rows, T5::ClusterM * T5::ShortM,
        tc::busiest_cluster_rows(p, clusters), T5::BlockN,
        tc::busiest_cluster_rows(tc::uniform_plan<T>(s.m, s.n), clusters));
  }
  // The tile order at 8192^3: what one wave of 128 tiles (persistent_blocks on 132 SMs) reads, grouped against
  // row-major.
  const tc::TileGrid g{8192 / T::BlockM, 8192 / T::BlockN};
  const std::int64_t panel_a = std::int64_t(T::BlockM) * 8192 * 2, panel_b = std::int64_t(T::BlockN) * 8192 * 2;
  const auto grouped = tc::wave_footprint_bytes([&](int t) { return tc::grouped_tile(g, tc::kGroupTiles, t); }, 0, 128,
                                                g.count(), panel_a, panel_b);
  const auto row_major =
      tc::wave_footprint_bytes([&](int t) { return tc::row_major_tile(g, t); }, 0, 128, g.count(), panel_a, panel_b);
  std::printf(
      "tile order at 8192^3, first wave of 128 tiles: grouped(%d) reads %.1f MB of A and B panels, row-major "
      "%.1f MB (L2: 50 MB on an H100, 60 MB on an H200)\n",
      tc::kGroupTiles, grouped / 1e6, row_major / 1e6);
}

// The persistent grids on this GPU (tc::resident_blocks, tc::persistent_blocks). Needs the GPU.
inline void explain_grids() {
  const int step2_blocks =
      tc::resident_blocks<Step2Tile, persistent_gemm_kernel<Step2Tile, __half>>(Step2Persistent::name);
  const int step4_blocks =
      tc::resident_blocks<Step4Tile, tma_store_gemm_kernel<Step4Tile, __half, tc::TmaStoreEpilogue<float>>>(
          Step4TmaStore::name);
  const int step5_blocks =
      tc::resident_blocks<Step5Tile, tc::taller_tile_gemm_kernel<Step5Tile, __half, tc::TmaStoreEpilogue<float>>>(
          Step5TallerTile::name);
  std::printf(
      "persistent grids on this GPU (tc/persistent_grid.cuh, persistent_blocks): step 2 %d of %d resident "
      "blocks; steps 3 and 4 %d of %d (clusters of 2); step 5 %d of %d, whose plans the host makes for %d clusters\n",
      tc::persistent_blocks<Step2Tile>(step2_blocks, 1 << 30), step2_blocks,
      tc::persistent_blocks<Step4Tile>(step4_blocks, 1 << 30), step4_blocks,
      tc::persistent_blocks<Step5Tile>(step5_blocks, 1 << 30), step5_blocks,
      tc::persistent_blocks<Step5Tile>(step5_blocks, 1 << 30) / Step5Tile::ClusterM);
}

// What each kernel costs in registers and shared memory, f16 -> f32. Needs the GPU.
inline void print_kernel_resources() {
  std::printf("\n== kernel resources (cudaFuncGetAttributes), f16 -> f32 ==\n%-22s %10s %12s %12s\n", "kernel",
              "registers", "shared (B)", "spills (B)");
  auto print = [](const char* name, const tc::KernelResources& r, int smem) {
    std::printf("%-22s %10d %12d %12d\n", name, r.registers, smem, r.spill_bytes);
  };
  print(Step1WarpSpecialized::name, tc::kernel_resources(ws_gemm_kernel<Step1Tile, __half>), Step1Tile::kSmemBytes);
  print(Step2Persistent::name, tc::kernel_resources(persistent_gemm_kernel<Step2Tile, __half>),
        Step2Tile::kSmemBytes);
  print(Step3Cluster::name, tc::kernel_resources(cluster_gemm_kernel<Step3Tile, __half>),
        Step3Tile::kSmemBytes);
  print(Step4TmaStore::name, tc::kernel_resources(tma_store_gemm_kernel<Step4Tile, __half, tc::TmaStoreEpilogue<float>>),
        Step4Tile::kSmemBytes);
  print(Step5TallerTile::name,
        tc::kernel_resources(tc::taller_tile_gemm_kernel<Step5Tile, __half, tc::TmaStoreEpilogue<float>>),
        Step5Tile::kSmemBytes);
  std::printf("registers: the count every thread starts with; setmaxnreg then moves them (the plan above)\n");
}
