// Chapter 08: warp specialization, a persistent tile scheduler, 2-block clusters with TMA multicast, a TMA-store
// epilogue and taller tiles: the steps from chapter 07's ring to cuBLAS's speed and past it.
//
// Read top to bottom: (1) the command line and the steps, for fp16 and bf16 inputs with fp32 C, and bf16 C; (2) on
// the host, the plan the kernels keep (explain.cuh: registers after setmaxnreg, shared memory, who loads what in a
// cluster, the tile order's L2 footprint; this part runs on any machine); (3) the GPU (an H100 or H200: sm_90a code
// runs on SM 9.0 alone), the memory, and the persistent grids; (4) the probe: step 4's epilogue against
// tc/layouts/epilogue.hpp; (5) the wgmma ceiling; (6) every step verified on integer and random operands and timed
// beside cuBLAS, by the driver; (7) the best step and cuBLAS on all-zero operands, where the power limit does not
// bite; (8) what each kernel costs in registers and shared memory; (9) the verdict. Exit codes: README.md, "Exit
// codes".
#include <algorithm>
#include <cstdio>
#include <string>

#include "explain.cuh"
#include "probes.cuh"
#include "step1_warp_specialized.cuh"
#include "step2_persistent.cuh"
#include "step3_cluster.cuh"
#include "step4_tma_store.cuh"
#include "step5_taller_tile.cuh"

#include "tc/chapter_driver.cuh"
#include "tc/cublas_reference.hpp"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"
#include "tc/wgmma_ceiling_timing.cuh"

namespace {

// The chapter's five steps at precision P (fp32 C), in teaching order, as one driver group (A row-major, B
// column-major).
template <typename P>
tc::DriverGroup<typename P::Input, float> steps() {
  return tc::driver_group<WsGemm<Step1WarpSpecialized, Step1Tile, P>, WsGemm<Step2Persistent, Step2Tile, P>,
                          WsGemm<Step3Cluster, Step3Tile, P>, WsGemm<Step4TmaStore, Step4Tile, P>,
                          WsGemm<Step5TallerTile, Step5Tile, P>>(P::name);
}

// Every group --type names: the steps for fp16 and for bf16 in, and steps 4 and 5 (the steps with a 16-bit
// epilogue) with bf16 C.
void add_steps(tc::GemmDriver& driver) {
  if (driver.runs_type("f16")) driver.add(steps<tc::F16F32>());
  if (driver.runs_type("bf16")) driver.add(steps<tc::BF16F32>());
  if (driver.runs_type("bf16-out"))
    driver.add(tc::driver_group<WsGemm<Step4TmaStore, Step4Tile, tc::BF16F32BF16>,
                                WsGemm<Step5TallerTile, Step5Tile, tc::BF16F32BF16>>(tc::BF16F32BF16::name));
}
using Best = WsGemm<Step5TallerTile, Step5Tile, tc::F16F32>;

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
                            "",  // no --svg: 08_figures writes the chapter's figures
                            {"f16", "bf16", "bf16-out"},
                            "input precision, or bf16-out: bf16 in and out (fp32 accumulation either way)"};
    config.default_sizes = "4096";  // the demonstration: seconds on an H200
    config.bench_flag = true;
    config.bench_sizes = "4096,6144,8192,12288";  // what docs/results records, each timing after --rest-ms
    config.default_repeats = 20;
    config.rest_flag = true;
    tc::GemmDriver driver(config);
    if (!driver.parse(argc, argv)) return tc::kExitOk;
    add_steps(driver);

    // (2) Explain, on the host. (3) Everything after needs an SM 9.0 GPU and the memory: else exit 77 or 6.
    explain(driver.options());
    driver.require_gpu("chapter 08 (warp-specialized wgmma kernels, sm_90a)");
    explain_grids();
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
    print_kernel_resources();

    // (9) The verdict.
    return tc::GemmDriver::finish(all_ok);
  });
}
