// Chapter 06: ldmatrix, cp.async and a multi-stage swizzled pipeline -- the tutorial's fastest mma.sync GEMM, one idea
// per step.
//
// Read top to bottom: (1) the command line and the four steps, (2) on the host (explain.cuh), what each step
// changes: the ldmatrix addressing, the shared-memory layouts and their bank cost, each step's tile (this part runs on
// any machine), (3) the GPU, (4) ldmatrix probed against tc/layouts/ldmatrix.hpp, (5) the mma.sync ceiling, (6) every
// step at every size, verified and timed beside cuBLAS by the driver (tc/gemm_driver.hpp), (7) each kernel's
// registers and shared memory, (8) the verdict. Exit codes: README.md, "Exit codes".
#include "explain.cuh"
#include "ldmatrix_probe.cuh"
#include "mma_ceiling.cuh"
#include "step1_ldmatrix.cuh"
#include "step2_cp_async.cuh"
#include "step3_multistage.cuh"

#include "tc/chapter_driver.cuh"
#include "tc/gemm_driver.hpp"
#include "tc/layout_maps.hpp"
#include "tc/layouts/ldmatrix.hpp"
#include "tc/layouts/smem_banks.hpp"
#include "tc/main.hpp"

#include <cstdio>
#include <string>

namespace {

// (4) The probe: one ldmatrix variant against the layout functions.
template <int Num, bool Trans>
bool probe_one() {
  const tc::LaneMap measured = probe_ldmatrix<Num, Trans>();
  const tc::LaneMap predicted = tc::ldmatrix_map(Num, Trans);
  int differ = 0;
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    for (int e = 0; e < 2 * Num; ++e) differ += measured.at(lane, e) != predicted.at(lane, e);
  std::printf("ldmatrix.x%d%-6s %2d lanes x %d elements: %d differ from tc::ldmatrix_map -> %s\n", Num,
              Trans ? ".trans" : "", tc::kWarpSize, 2 * Num, differ, differ == 0 ? "match" : "MISMATCH");
  return differ == 0;
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The command line (the driver's flags; the default statistic rests the GPU before every timing), and the
    // steps, fp16 in, fp32 accumulate, A row-major, B column-major: one group, one set of operands per size.
    tc::DriverConfig config{tc::this_chapter(), "Chapter 06: ldmatrix, cp.async and a multi-stage swizzled pipeline",
                            "ldmatrix + cp.async + a multi-stage swizzled pipeline: four mma.sync GEMM steps (fp16 in, "
                            "fp32 accumulate, A row-major, B column-major) timed against cuBLAS and the mma.sync "
                            "ceiling.",
                            ""};  // no --svg: 06_figures writes the chapter's figures
    config.default_sizes = "4096";  // the demonstration: seconds on an H200
    config.bench_flag = true;
    config.bench_sizes = "4096,8192";  // what docs/results records, each timing after --rest-ms
    config.default_repeats = 20;
    config.rest_flag = true;
    tc::GemmDriver driver(config);
    if (!driver.parse(argc, argv)) return tc::kExitOk;
    tc::DriverGroup<__half, float> steps{tc::F16F32::name, tc::Op::T, tc::Op::N, {}};
    for_each_step([&](auto gemm, const char*) { steps.kernels.push_back(tc::driver_kernel<decltype(gemm)>()); });
    driver.add(steps);

    // (2) Explain, on the host. (3) Everything after needs a GPU of SM >= 8.0 and the memory: else exit 77 or 6.
    explain();
    driver.require_gpu("chapter 06 (cp.async and mma.sync kernels)");

    // (4) The probe.
    std::printf("== probe: every ldmatrix variant on a coordinate-encoded tile (ldmatrix_probe.cuh) ==\n");
    bool all_ok = probe_one<1, false>() & probe_one<2, false>() & probe_one<4, false>();
    all_ok &= probe_one<1, true>() & probe_one<2, true>() & probe_one<4, true>();

    // (5) The ceiling, in this process: the table reports each step's share of it.
    const tc::RunOptions& o = driver.options();
    const MmaCeiling ceiling = measure_mma_ceiling(o.warmup, o.repeats);
    std::printf("\n== the mma.sync ceiling (mma_ceiling.cuh): %d warps per SM, %d independent m16n8k16 chains each, "
                "operands in registers ==\n%.1f TFLOP/s (median of %d launches, %.3f ms each)\n",
                MmaCeiling::kBlocksPerSm * MmaCeiling::kThreads / tc::kWarpSize, MmaCeiling::kChains, ceiling.tflops,
                o.repeats, ceiling.median_ms);
    driver.set_ceiling(ceiling.tflops);

    // (6) Every step at every size: verified, timed, tabled.
    all_ok &= driver.run();

    // (7) What each kernel costs in registers and shared memory.
    std::printf("\n== kernel resources (cudaFuncGetAttributes) ==\n%-14s %10s %12s %12s\n", "kernel", "registers",
                "shared (B)", "spills (B)");
    for_each_step([](auto gemm, const char*) {
      using G = decltype(gemm);
      const tc::KernelResources r = tc::kernel_resources(G::Step::template kernel<typename G::Tile>());
      std::printf("%-14s %10d %12d %12d\n", G::name, r.registers, G::Tile::kSmemBytes, r.spill_bytes);
    });

    // (8) The verdict.
    return tc::GemmDriver::finish(all_ok);
  });
}
