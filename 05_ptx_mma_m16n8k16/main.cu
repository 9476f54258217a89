// Chapter 05: inline PTX mma.sync.m16n8k16, with every fragment element loaded where the PTX ISA's formulas say.
//
// Read top to bottom: (1) the command line and the GEMM, (2) on the host, the three fragment layouts from the
// formulas and what a GEMM built on them loads per mma (explain.cuh; this part runs on any machine), (3) the GPU and
// the memory, (4) one tile by hand with each instruction variant, checked against the CPU and through the two checks
// of tc/gemm_check.hpp, (5) the hardware probe: where the real instruction puts each register, against the formulas
// and against chapter 01's WMMA fragments, (6) the GEMM at each size, verified and timed beside cuBLAS by the driver
// (tc/gemm_driver.hpp), (7) the verdict. Exit codes: README.md, "Exit codes".
#include "explain.cuh"
#include "mma_gemm.cuh"

#include "tc/chapter_driver.cuh"
#include "tc/gemm_check.hpp"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The command line, and the GEMM: fp16 in, fp32 accumulate, A row-major (op T), B column-major (op N).
    tc::DriverConfig config{tc::this_chapter(), "Chapter 05: inline PTX mma.sync.m16n8k16",
                            "mma.sync.m16n8k16 in inline PTX: one tile by the ISA's lane formulas, a probe of the "
                            "real instruction, and a GEMM (fp16 in, fp32 accumulate, A row-major, B column-major) "
                            "timed against cuBLAS.",
                            "write the lane diagrams (as 05_lane_figures does) into this folder"};
    config.bench_flag = true;  // the default sizes, 1024 and 4096, are the demonstration
    config.bench_sizes = "1024,2048,4096,8192";  // what docs/results records
    tc::GemmDriver driver(config);
    if (!driver.parse(argc, argv)) return tc::kExitOk;
    driver.add(tc::driver_group<MmaGemm<>>(tc::F16F32::name));

    // (2) Explain, on the host.
    explain(driver.options());

    // (3) Everything below needs a GPU of SM >= 8.0 (m16n8k16; else exit 77) and memory for every size (else exit 6).
    driver.require_gpu("chapter 05 (mma.sync kernels)");

    // (4) One tile by hand, then each variant through the chapter's two checks.
    std::printf("== one tile: A[m][k] = 0.01*(16m+k), B[k][n] = 0.01*(8k+n), both row-major, C = 0 ==\n");
    bool all_ok = single_tile<tc::MmaF16F16F16F16>(true);
    all_ok &= single_tile<tc::MmaF32F16F16F32>(false);
    all_ok &= single_tile<tc::MmaF32BF16BF16F32>(false);
    const std::uint64_t seed = driver.options().seed;
    const std::vector<tc::VerificationRow> tile_checks = {
        single_tile_checks<tc::MmaF16F16F16F16>(driver.cublas(), seed),
        single_tile_checks<tc::MmaF32F16F16F32>(driver.cublas(), seed),
        single_tile_checks<tc::MmaF32BF16BF16F32>(driver.cublas(), seed)};
    std::printf("\n== verification: one tile, D = A*B + C, integer operands checked exactly, random ones against "
                "fp64 (tc/gemm_check.hpp) ==\n");
    tc::print_verification("instruction", tile_checks);
    for (const tc::VerificationRow& r : tile_checks) all_ok &= r.verdict.passed();

    // (5) The probe, then WMMA beside it.
    std::printf("\n== probe: %d runs of the real instruction with numbered registers (mma_probe.cuh) ==\n", kProbeRuns);
    all_ok &= probe<tc::MmaF32F16F16F32>(true);
    all_ok &= probe<tc::MmaF16F16F16F16>(false);
    all_ok &= probe<tc::MmaF32BF16BF16F32>(false);
    std::printf("A and B are measured against D's (row, col) and B's K as the formulas place them (the anchors). C's "
                "(row, col) is\nnot measured: the instruction only shows that C register (lane, i) becomes D "
                "register (lane, i); the C/D formula,\nas a kernel's store uses it, is the anchor.\n");
    std::printf("\n== chapter 01's WMMA fragments (measured) against the m16n8k16 formulas ==\n");
    all_ok &= compare_with_wmma();

    // (6) The GEMM at every size: verified, timed, tabled. (7) The verdict.
    all_ok &= driver.run();
    return tc::GemmDriver::finish(all_ok);
  });
}
