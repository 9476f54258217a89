// Chapter 08: warp specialization, a persistent tile scheduler, 2-block clusters with TMA multicast, a TMA-store
// epilogue and taller tiles: the steps from chapter 07's ring to cuBLAS's speed and past it.
//
// Read top to bottom: (1) the command line and the steps, for fp16 and bf16 inputs with fp32 C, and bf16 C; (2) on
// the host, the plan the kernels keep: registers after setmaxnreg, shared memory, who loads what in a cluster, the
// tile order's L2 footprint, and with --svg the figures (this part runs on any machine); (3) the GPU (an H100 or
// H200: sm_90a code runs on SM 9.0 alone) and the memory; (4) the probe: step 4's epilogue against
// tc/layouts/epilogue.hpp; (5) the wgmma ceiling; (6) every step verified on integer and random operands and timed
// beside cuBLAS, by the driver; (7) the best step and cuBLAS on all-zero operands, where the power limit does not
// bite; (8) what each kernel costs in registers and shared memory; (9) the verdict. Exit codes: README.md, "Exit
// codes".
#include <algorithm>
#include <cstdio>
#include <string>

#include "probes.cuh"
#include "step1_warp_specialized.cuh"
#include "step2_persistent.cuh"
#include "step3_cluster.cuh"
#include "step4_tma_store.cuh"
#include "step5_taller_tile.cuh"
#include "tc/chapter_driver.cuh"
#include "tc/cublas_reference.hpp"
#include "tc/gemm_driver.hpp"
#include "tc/layouts/tile_order.hpp"
#include "tc/main.hpp"
#include "tc/wgmma_ceiling_timing.cuh"
#include "tools/figures.hpp"

namespace {

// The chapter's five steps at precision P (fp32 C), in teaching order, as one driver group (A row-major, B
// column-major); the bf16-out group has steps 4 and 5, the steps with a 16-bit epilogue.
template <typename P>
tc::DriverGroup<typename P::Input, float> steps() {
  return tc::driver_group<WsGemm<Step1WarpSpecialized, Step1Tile, P>, WsGemm<Step2Persistent, Step2Tile, P>,
                          WsGemm<Step3Cluster, Step3Tile, P>, WsGemm<Step4TmaStore, Step4Tile, P>,
                          WsGemm<Step5TallerTile, Step5Tile, P>>(P::name);
}
using Best = WsGemm<Step5TallerTile, Step5Tile, tc::F16F32>;

// (2) The plan, on the host.
void explain(const tc::RunOptions& o) {
  using T = Step4Tile;
  std::printf("\n== the plan (ws_tile.cuh): one producer and %d consumer warpgroups, a %d x %d tile, %d stages ==\n",
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
      "%d B of shared memory (%s)\n",
      T5::BlockM, T5::BlockN, T5::ShortM, T5::BlockN, T5::kConsumerCols, T5::kRowBlocks, T5::kShortRowBlocks,
      T5::kConsumerCols, T5::kAccumulators, T5::kProducerRegisters, T5::kConsumers, T5::kConsumerRegisters, T5::Stages,
      T5::kStageBytes, T5::kEpilogueBytes, T5::kSmemBytes,
      T5::kStageStaging ? "each consumer stages its epilogue in its half of B in the tile's last stage"
                        : "the epilogue has staging of its own");
  std::printf("bytes loaded a slice per element of C: step 4 %.3f, step 5's %d-row tile %.3f\n",
              double(T::kStageBytes) / (T::BlockM * T::BlockN), T5::BlockM,
              double(T5::kStageBytes) / (T5::BlockM * T5::BlockN));
  // Step 5's rows of two heights (tc::plan_tile_heights) on the clusters of an H100's or H200's 132 SMs.
  const int clusters = persistent_blocks<T5>(132, 1 << 30) / T5::ClusterM;
  for (const tc::GemmShape& s : o.sizes) {
    const tc::HeightPlan p = tile_plan<T5>(s.m, s.n, clusters);
    std::printf(
        "step 5 at %dx%dx%d on %d clusters: %d rows of %d-row cluster tiles, then %d of %d; the busiest cluster "
        "computes %d rows x %d (step 4's tiles: %d)\n",
        s.m, s.n, s.k, clusters, p.tall_rows, T5::ClusterM * T5::BlockM, p.short_rows, T5::ClusterM * T5::ShortM,
        tc::busiest_cluster_rows(p, clusters), T5::BlockN,
        tc::busiest_cluster_rows(uniform_plan<T>(s.m, s.n), clusters));
  }
  // The tile order at 8192^3: what one wave of 128 tiles (persistent_blocks on 132 SMs) reads, grouped against
  // row-major.
  const tc::TileGrid g{8192 / T::BlockM, 8192 / T::BlockN};
  const std::int64_t panel_a = std::int64_t(T::BlockM) * 8192 * 2, panel_b = std::int64_t(T::BlockN) * 8192 * 2;
  const auto grouped = tc::wave_footprint_bytes([&](int t) { return tc::grouped_tile(g, kGroupTiles, t); }, 0, 128,
                                                g.count(), panel_a, panel_b);
  const auto row_major =
      tc::wave_footprint_bytes([&](int t) { return tc::row_major_tile(g, t); }, 0, 128, g.count(), panel_a, panel_b);
  std::printf(
      "tile order at 8192^3, first wave of 128 tiles: grouped(%d) reads %.1f MB of A and B panels, row-major "
      "%.1f MB (L2: 50 MB on an H100, 60 MB on an H200)\n",
      kGroupTiles, grouped / 1e6, row_major / 1e6);
  if (!o.svg_dir.empty()) tc::write_figures(o.svg_dir, chapter_figures());
}

// (7) The best step and both yardsticks on all-zero operands at every size (the power limit's share of the ratio).
void time_zero_operands(const tc::RunOptions& o, const tc::CublasHandle& cublas, const tc::CublasLtHandle& lt) {
  std::printf("\n== all-zero operands: %s and the yardsticks, f16 -> f32, A row-major, B column-major ==\n",
              Best::name);
  std::printf("%-16s %12s %12s %14s %18s %20s\n", "size", "kernel", "cublasGemmEx", "% cublasGemmEx",
              "cuBLASLt best-of-8", "% cuBLASLt best-of-8");
  const tc::Timing timing{o.warmup, o.repeats, o.rest_ms};
  for (const tc::GemmShape& s : o.sizes) {
    const int ld = std::max(s.k, 1);  // lda = ldb = k, and at least 1 (cuBLAS's rule) where k = 0
    tc::DeviceBuffer<__half> a(std::size_t(s.m) * s.k), b(std::size_t(s.k) * s.n);
    tc::DeviceBuffer<float> c(std::size_t(s.m) * s.n);
    TC_CHECK(cudaMemset(a.data(), 0, a.size() * sizeof(__half)));
    TC_CHECK(cudaMemset(b.data(), 0, b.size() * sizeof(__half)));
    TC_CHECK(cudaMemset(c.data(), 0, c.size() * sizeof(float)));
    const double kernel_ms = timing.median_ms([&] {
      tc::launch_gemm_any_size<Best>(s.m, s.n, s.k, 1.0f, a.data(), ld, b.data(), ld, 0.0f, c.data(), s.m, nullptr);
    });
    const double cublas_ms = timing.median_ms([&] {
      tc::cublas_gemm<__half, float>(cublas, tc::Op::T, tc::Op::N, s.m, s.n, s.k, 1.0, a.data(), ld, b.data(), ld, 0.0,
                                     c.data(), s.m, c.data(), s.m);
    });
    const tc::GemmProblem p = tc::GemmProblem::tight(tc::Op::T, tc::Op::N, s.m, s.n, s.k, 1.0, 0.0);  // lda = ldb = ld
    const tc::LtYardstick best =
        tc::time_lt_candidates(tc::CublasLtMatmul<__half, float>(lt, p), timing, a.data(), b.data(), c.data());
    const double flops = tc::gemm_flops(s.m, s.n, s.k);
    const std::string size = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    std::printf("%-16s %12.1f %12.1f %13.1f%%", size.c_str(), tc::tflops(flops, kernel_ms),
                tc::tflops(flops, cublas_ms), 100.0 * cublas_ms / kernel_ms);
    if (best.best_ms > 0.0) {
      std::printf(" %18.1f %19.1f%%\n", tc::tflops(flops, best.best_ms), 100.0 * best.best_ms / kernel_ms);
    } else {
      std::printf(" %18s %20s  (cuBLASLt: %s)\n", "-", "-", best.refusal.c_str());
    }
  }
  std::printf("TFLOP/s, median of %d launches after %d warm-up, each timing after %d ms idle\n", o.repeats, o.warmup,
              o.rest_ms);
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The command line, and the steps: A row-major (op T), B column-major (op N), fp32 accumulate.
    tc::DriverConfig config{tc::this_chapter(),
                            "Chapter 08: warp-specialized, persistent, clustered wgmma GEMM",
                            "a producer warpgroup and two consumer warpgroups (setmaxnreg), a persistent tile "
                            "scheduler, 2-block clusters with TMA multicast, a TMA-store epilogue, and (step 5) "
                            "taller 192 x 256 tiles in rows of two heights (fp16 or bf16 in, fp32 accumulate, fp32 "
                            "or bf16 C), timed against cuBLAS and the wgmma ceiling.",
                            "write the chapter's figures (as 08_figures does) into this folder",
                            {"f16", "bf16", "bf16-out"},
                            "input precision, or bf16-out: bf16 in and out (fp32 accumulation either way)"};
    config.default_sizes = "4096,6144,8192";
    config.default_repeats = 20;
    config.rest_flag = true;
    tc::GemmDriver driver(config);
    if (!driver.parse(argc, argv)) return tc::kExitOk;
    if (driver.runs_type("f16")) driver.add(steps<tc::F16F32>());
    if (driver.runs_type("bf16")) driver.add(steps<tc::BF16F32>());
    if (driver.runs_type("bf16-out"))
      driver.add(tc::driver_group<WsGemm<Step4TmaStore, Step4Tile, tc::BF16F32BF16>,
                                  WsGemm<Step5TallerTile, Step5Tile, tc::BF16F32BF16>>(tc::BF16F32BF16::name));

    // (2) Explain, on the host. (3) Everything after needs an SM 9.0 GPU and the memory: else exit 77 or 6.
    explain(driver.options());
    driver.require_gpu("chapter 08 (warp-specialized wgmma kernels, sm_90a)");
    const int step2_blocks =
        resident_blocks<Step2Tile, persistent_gemm_kernel<Step2Tile, __half, DirectEpilogue>>(Step2Persistent::name);
    const int step4_blocks =
        resident_blocks<Step4Tile, persistent_gemm_kernel<Step4Tile, __half, TmaStoreEpilogue<float>>>(
            Step4TmaStore::name);
    const int step5_blocks =
        resident_blocks<Step5Tile, persistent_gemm_kernel<Step5Tile, __half, TmaStoreEpilogue<float>>>(
            Step5TallerTile::name);
    std::printf(
        "persistent grids on this GPU (persistent_grid.cuh, persistent_blocks): step 2 %d of %d resident "
        "blocks; steps 3 and 4 %d of %d (clusters of 2); step 5 %d of %d, whose plans the host makes for %d clusters\n",
        persistent_blocks<Step2Tile>(step2_blocks, 1 << 30), step2_blocks,
        persistent_blocks<Step4Tile>(step4_blocks, 1 << 30), step4_blocks,
        persistent_blocks<Step5Tile>(step5_blocks, 1 << 30), step5_blocks,
        persistent_blocks<Step5Tile>(step5_blocks, 1 << 30) / Step5Tile::ClusterM);

    // (4) The probe: step 4's epilogue against the layout functions.
    std::printf("\n== probe: step 4's epilogue on registers that name their coordinates (probes.cuh) ==\n");
    bool all_ok = true;
    auto report = [&](const char* type, const EpilogueProbe& p) {
      std::printf("%-5s: %d of %d elements of C not at their own (row, col) -> %s\n", type, p.differ, p.checked,
                  p.differ == 0 ? "match" : "MISMATCH");
      all_ok &= p.differ == 0;
    };
    report("fp32", probe_epilogue<float>());
    report("bf16", probe_epilogue<__nv_bfloat16>());

    // (5) The ceiling, in this process: the table reports each step's share of it.
    const tc::RunOptions& o = driver.options();
    const tc::WgmmaCeiling ceiling =
        tc::measure_wgmma_ceiling<Step4Tile::BlockN, Step4Tile::kConsumers>(o.warmup, o.repeats);
    std::printf(
        "\n== the wgmma ceiling (tc/wgmma_ceiling.cuh): two m64n256k16 warpgroups, one block per SM ==\n"
        "%.1f TFLOP/s (median of %d launches, %.3f ms each)\n",
        ceiling.tflops, o.repeats, ceiling.median_ms);
    driver.set_ceiling(ceiling.tflops);
    // The datasheet's dense fp16/bf16 peak of the H100 and H200 SXM, quoted in docs/external_figures.md: no kernel
    // reaches it, but it is the figure people compare with.
    constexpr double kDatasheetPeakTflops = 989.0;
    driver.set_peak(kDatasheetPeakTflops,
                    "the H100/H200 SXM datasheet's dense fp16/bf16 peak, 989 TFLOP/s "
                    "(docs/external_figures.md)");

    // (6) Every step at every size: verified, timed, tabled.
    all_ok &= driver.run();

    // (7) Zero operands.
    if (driver.runs_type("f16")) time_zero_operands(o, driver.cublas(), driver.cublaslt());

    // (8) What each kernel costs in registers and shared memory.
    std::printf("\n== kernel resources (cudaFuncGetAttributes), f16 -> f32 ==\n%-22s %10s %12s %12s\n", "kernel",
                "registers", "shared (B)", "spills (B)");
    auto print = [](const char* name, const tc::KernelResources& r, int smem) {
      std::printf("%-22s %10d %12d %12d\n", name, r.registers, smem, r.spill_bytes);
    };
    print(Step1WarpSpecialized::name, tc::kernel_resources(ws_gemm_kernel<Step1Tile, __half>), Step1Tile::kSmemBytes);
    print(Step2Persistent::name, tc::kernel_resources(persistent_gemm_kernel<Step2Tile, __half, DirectEpilogue>),
          Step2Tile::kSmemBytes);
    print(Step3Cluster::name, tc::kernel_resources(persistent_gemm_kernel<Step3Tile, __half, DirectEpilogue>),
          Step3Tile::kSmemBytes);
    print(Step4TmaStore::name, tc::kernel_resources(persistent_gemm_kernel<Step4Tile, __half, TmaStoreEpilogue<float>>),
          Step4Tile::kSmemBytes);
    print(Step5TallerTile::name,
          tc::kernel_resources(persistent_gemm_kernel<Step5Tile, __half, TmaStoreEpilogue<float>>),
          Step5Tile::kSmemBytes);
    std::printf("registers: the count every thread starts with; setmaxnreg then moves them (the plan above)\n");

    // (9) The verdict.
    return tc::GemmDriver::finish(all_ok);
  });
}
