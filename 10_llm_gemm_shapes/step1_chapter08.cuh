// Chapter 10, step 1 -- the baseline: chapter 08's step 5, unchanged, on the suite.
//
// What it adds: nothing to the kernel. It composes common's blocks layer (tc::launch_taller_tile_gemm, the taller-tile
// warp-specialized kernel chapter 08 ends with: 192 x 256 and 128 x 256 tiles in 2-block clusters on a persistent
// grid) into the chapter's first schedule (schedule.hpp: "ch08"), which step 1 runs at every shape, so that the
// suite runs through it exactly as chapter 08 left it, and step1_waves says on the host where its time goes: how
// many tiles a shape makes, in how many waves, and how many SMs the last wave leaves idle.
#pragma once

#include "schedule.hpp"

#include "tc/layouts/tile_order.hpp"  // tc::tile_plan, tc::HeightPlan
#include "tc/layouts/waves.hpp"
#include "tc/persistent_grid.cuh"
#include "tc/taller_tile_gemm.cuh"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

// [doc:step1]
// Enqueues chapter 08's step 5: C = alpha A B + beta C, operands as SuiteStep takes them. Preconditions: valid
// arguments that keep SuiteStep::kContract, m, n > 0 (checked once, by tc::launch_gemm_any_size); an SM 9.0 GPU.
// Errors: std::runtime_error when the GPU has too little shared memory; std::invalid_argument from the tensor maps;
// tc::CudaError when the launch fails.
inline void launch_chapter08(int m, int n, int k, float alpha, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B,
                             int ldb, float beta, __nv_bfloat16* C, int ldc, cudaStream_t stream) {
  tc::launch_taller_tile_gemm<tc::TallerTile, __nv_bfloat16>("1 chapter 08", m, n, k, alpha, A, lda, B, ldb, beta, C,
                                                             ldc, stream);
}

// Step 1: chapter 08's cluster tiles at every shape (launch_schedule runs them: schedules.cuh).
struct Step1Chapter08 {
  static constexpr const char* name = "1 chapter 08";
  using Tile = tc::TallerTile;
  static Schedule choose(int /*m*/, int /*n*/, int /*k*/, int /*sms*/) { return {ScheduleKind::Chapter08}; }
};
// [/doc:step1]

// [doc:waves]
// Where step 1's time goes at m weights and n tokens (a layer's N and M: suite.hpp), on `clusters` resident 2-block
// clusters (64 on a 132-SM H100 or H200: tc::persistent_blocks): the cluster tiles its plan cuts the m x n y^T into
// (tc::tile_plan: rows of 384 and 256 weights, 256 tokens wide), and their waves (tc::waves_of). sms: the GPU's SMs,
// of which the last wave leaves idle those of its idle clusters and those the persistent grid never used.
struct Step1Waves {
  tc::HeightPlan plan;
  tc::Waves waves;
  int idle_sms_last_wave = 0;
};

inline Step1Waves step1_waves(int m, int n, int clusters, int sms) {
  using Tile = Step1Chapter08::Tile;
  Step1Waves w;
  w.plan = tc::tile_plan<Tile>(m, n, clusters);
  w.waves = tc::waves_of(w.plan.count(), clusters);
  w.idle_sms_last_wave = sms - Tile::ClusterM * w.waves.last_wave_busy;
  return w;
}
// [/doc:waves]

// The clusters step 1's persistent grid runs on this GPU (tc::persistent_blocks over tc::resident_blocks), for
// step1_waves. Errors: std::runtime_error when the GPU has too little shared memory; tc::CudaError.
inline int step1_clusters() {
  using Tile = Step1Chapter08::Tile;
  constexpr auto kKernel =
      tc::taller_tile_gemm_kernel<Tile, __nv_bfloat16, tc::TmaStoreEpilogue<__nv_bfloat16>>;
  const int resident = tc::resident_blocks<Tile, kKernel>(Step1Chapter08::name);
  return tc::persistent_blocks<Tile>(resident, 1 << 30) / Tile::ClusterM;
}
