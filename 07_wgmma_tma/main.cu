// Chapter 07: Hopper's wgmma, fed first by ordinary copies, then by TMA, then by a TMA ring.
//
// Read top to bottom: (1) the command line and the three steps, for fp16 and bf16 inputs, (2) on the host
// (explain.cuh), what the hardware is told: the descriptors of step 3's slices, the swizzle (this part runs on any
// machine), (3) the GPU (an H100 or H200: sm_90a code runs on SM 9.0 alone) and the memory, (4) the probes: TMA's
// swizzle in every mode and the wgmma accumulator against tc/layouts/wgmma.hpp, (5) the wgmma ceiling, (6) every step
// verified on integer and random operands and timed beside cuBLAS, by the driver (tc/gemm_driver.hpp), (7) what each
// kernel costs in registers and shared memory, (8) the verdict. Exit codes: README.md, "Exit codes".
#include "explain.cuh"
#include "probes.cuh"
#include "step1_wgmma.cuh"
#include "step2_tma.cuh"
#include "step3_ring.cuh"

#include "tc/chapter_driver.cuh"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"
#include "tc/wgmma_ceiling_timing.cuh"

#include <cstdio>
#include <string>
#include <vector>

namespace {

// The chapter's three steps at precision P, in teaching order, as one driver group (A row-major, B column-major).
template <typename P>
using Steps = tc::DriverGroup<typename P::Input, float>;
template <typename P>
Steps<P> steps() {
  return tc::driver_group<WgmmaGemm<Step1WgmmaCopy, Step1Tile, P>, WgmmaGemm<Step2Tma, Step2Tile, P>,
                          WgmmaGemm<Step3Ring, Step3Tile, P>>(P::name);
}

// (4) The probes, one line each.
bool report_swizzle_probe(tc::Swizzle mode) {
  const SwizzleProbe p = probe_tma_swizzle(mode);
  const int span = tc::swizzle_span_bytes(mode);
  std::printf("swizzle %-4s box %2d x %2d elements: %3d of %4d elements moved, %d not where tc::swizzle_address puts "
              "them -> %s\n",
              span == 0 ? "none" : (std::to_string(span) + "B").c_str(), kSwizzleProbeRows, p.box_inner, p.moved,
              p.box_bytes / 2, p.differ, p.differ == 0 ? "match" : "MISMATCH");
  return p.differ == 0;
}

template <int N>
bool report_accumulator_probe() {
  const std::vector<tc::LaneMap> measured = probe_wgmma_accumulator<N>();
  int differ = 0;
  for (int w = 0; w < 4; ++w) {
    const tc::LaneMap predicted = tc::wgmma_d_map(N, w);
    for (int lane = 0; lane < tc::kWarpSize; ++lane)
      for (int i = 0; i < N / 2; ++i) differ += measured[w].at(lane, i) != predicted.at(lane, i);
  }
  std::printf("m64n%dk16: 128 threads x %3d registers: %d differ from tc::wgmma_m64nNk16_d_coord -> %s\n", N, N / 2,
              differ, differ == 0 ? "match" : "MISMATCH");
  return differ == 0;
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The command line, and the steps: A row-major (op T), B column-major (op N), fp32 accumulate and C.
    tc::DriverConfig config{tc::this_chapter(), "Chapter 07: wgmma fed by TMA through an mbarrier ring",
                            "wgmma.mma_async from shared-memory descriptors, fed by copies, by TMA and by a TMA ring "
                            "(fp16 or bf16 in, fp32 accumulate, A row-major, B column-major), timed against cuBLAS "
                            "and the wgmma ceiling.",
                            "",  // no --svg: 07_figures writes the chapter's figures
                            {"f16", "bf16"}, "input precision (fp32 accumulation either way)"};
    config.default_sizes = "4096";  // the demonstration: seconds on an H200
    config.bench_flag = true;
    config.bench_sizes = "4096,8192";  // what docs/results records, each timing after --rest-ms
    config.default_repeats = 20;
    config.rest_flag = true;
    tc::GemmDriver driver(config);
    if (!driver.parse(argc, argv)) return tc::kExitOk;
    if (driver.runs_type("f16")) driver.add(steps<tc::F16F32>());
    if (driver.runs_type("bf16")) driver.add(steps<tc::BF16F32>());

    // (2) Explain, on the host. (3) Everything after needs an SM 9.0 GPU and the memory: else exit 77 or 6.
    explain();
    driver.require_gpu("chapter 07 (wgmma and TMA kernels, sm_90a)");

    // (4) The probes: the hardware against the layout functions.
    std::printf("== probe: TMA loads a coordinate-encoded %dx%d box in each swizzle mode (probes.cuh) ==\n",
                kSwizzleProbeRows, kSwizzleProbeCols);
    bool all_ok = true;
    for (tc::Swizzle mode : {tc::Swizzle::None, tc::Swizzle::B32, tc::Swizzle::B64, tc::Swizzle::B128})
      all_ok &= report_swizzle_probe(mode);
    std::printf("\n== probe: one wgmma m64nNk16 with D(row, col) = 256 row + col, registers decoded (probes.cuh) ==\n");
    all_ok &= report_accumulator_probe<64>() & report_accumulator_probe<128>() & report_accumulator_probe<256>();

    // (5) The ceiling, in this process: the table reports each step's share of it.
    const tc::RunOptions& o = driver.options();
    const tc::WgmmaCeiling ceiling =
        tc::measure_wgmma_ceiling<Step3Tile::BlockN, Step3Tile::kConsumers>(o.warmup, o.repeats);
    std::printf("\n== the wgmma ceiling (wgmma_ceiling.cuh): step 3's block, one per SM, on a resident slice ==\n"
                "%.1f TFLOP/s (median of %d launches, %.3f ms each)\n",
                ceiling.tflops, o.repeats, ceiling.median_ms);
    driver.set_ceiling(ceiling.tflops);

    // (6) Every step at every size: verified, timed, tabled.
    all_ok &= driver.run();

    // (7) What each kernel costs in registers and shared memory.
    std::printf("\n== kernel resources (cudaFuncGetAttributes), f16 ==\n%-16s %10s %12s %12s\n", "kernel", "registers",
                "shared (B)", "spills (B)");
    auto print = [](const char* name, const tc::KernelResources& r, int smem) {
      std::printf("%-16s %10d %12d %12d\n", name, r.registers, smem, r.spill_bytes);
    };
    print(Step1WgmmaCopy::name, tc::kernel_resources(wgmma_copy_gemm_kernel<Step1Tile, __half>),
          Step1Tile::kSmemBytes);
    print(Step2Tma::name, tc::kernel_resources(wgmma_tma_gemm_kernel<Step2Tile, __half>), Step2Tile::kSmemBytes);
    print(Step3Ring::name, tc::kernel_resources(wgmma_ring_gemm_kernel<Step3Tile, __half>), Step3Tile::kSmemBytes);

    // (8) The verdict.
    return tc::GemmDriver::finish(all_ok);
  });
}
