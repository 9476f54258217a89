// Chapter 07: Hopper's wgmma, fed first by ordinary copies, then by TMA, then by a TMA ring.
//
// Read top to bottom: (1) the command line and the three steps, for fp16 and bf16 inputs, (2) the GPU (an H100 or
// H200: sm_90a code runs on SM 9.0 alone) and the memory, (3) every step verified on integer and random operands and
// timed beside cuBLAS, by the driver (tc/gemm_driver.hpp), (4) what each kernel costs in registers and shared memory,
// (5) the verdict. Exit codes: README.md, "Exit codes".
#include "step1_wgmma.cuh"
#include "step2_tma.cuh"
#include "step3_ring.cuh"

#include "tc/chapter_driver.cuh"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"

#include <cstdio>

// The chapter's three steps at precision P, in teaching order, as one driver group (A row-major, B column-major).
template <typename P>
using Steps = tc::DriverGroup<typename P::Input, float>;
template <typename P>
Steps<P> steps() {
  return tc::driver_group<WgmmaGemm<Step1WgmmaCopy, Step1Tile, P>, WgmmaGemm<Step2Tma, Step2Tile, P>,
                          WgmmaGemm<Step3Ring, Step3Tile, P>>(P::name);
}

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The command line, and the steps: A row-major (op T), B column-major (op N), fp32 accumulate and C.
    tc::DriverConfig config{tc::this_chapter(), "Chapter 07: wgmma fed by TMA through an mbarrier ring",
                            "wgmma.mma_async from shared-memory descriptors, fed by copies, by TMA and by a TMA ring "
                            "(fp16 or bf16 in, fp32 accumulate, A row-major, B column-major), timed against cuBLAS.",
                            "write the chapter's figures into this folder",
                            {"f16", "bf16"}, "input precision (fp32 accumulation either way)"};
    config.default_sizes = "4096,8192";
    config.default_repeats = 20;
    config.rest_flag = true;
    tc::GemmDriver driver(config);
    if (!driver.parse(argc, argv)) return tc::kExitOk;
    if (driver.runs_type("f16")) driver.add(steps<tc::F16F32>());
    if (driver.runs_type("bf16")) driver.add(steps<tc::BF16F32>());

    // (2) Everything after needs an SM 9.0 GPU and the memory: else exit 77 or 6.
    driver.require_gpu("chapter 07 (wgmma and TMA kernels, sm_90a)");

    // (3) Every step at every size: verified, timed, tabled.
    const bool all_ok = driver.run();

    // (4) What each kernel costs in registers and shared memory.
    std::printf("\n== kernel resources (cudaFuncGetAttributes), f16 ==\n%-16s %10s %12s %12s\n", "kernel", "registers",
                "shared (B)", "spills (B)");
    auto print = [](const char* name, const tc::KernelResources& r, int smem) {
      std::printf("%-16s %10d %12d %12d\n", name, r.registers, smem, r.spill_bytes);
    };
    print(Step1WgmmaCopy::name, tc::kernel_resources(wgmma_copy_gemm_kernel<Step1Tile, __half>),
          Step1Tile::kSmemBytes);
    print(Step2Tma::name, tc::kernel_resources(wgmma_tma_gemm_kernel<Step2Tile, __half>), Step2Tile::kSmemBytes);
    print(Step3Ring::name, tc::kernel_resources(wgmma_ring_gemm_kernel<Step3Tile, __half>), Step3Tile::kSmemBytes);

    // (5) The verdict.
    return tc::GemmDriver::finish(all_ok);
  });
}
