// 06_tile_sweep: the bounded sweep that chose Step4Tile. Fifteen tiles of step 3's kernel (multistage_gemm_kernel on
// the swizzled layout), compiled ahead, each run on one fp16 -> fp32 problem (m = n = k = --size, A row-major, B
// column-major), checked as the chapter checks (integer operands exactly, random ones against fp64: tc/gemm_check.hpp)
// and timed on the random ones beside cuBLAS's fp16 TN GEMM on the same operands, in the same process, by
// tc::GemmBench (tc/gemm_driver.hpp). Writes CSV to stdout, one line per tile with its registers, spills and shared
// memory, so the choice can be re-made on another GPU; docs/06 renders it as a table.
// Every timing, cuBLAS's included, starts after --rest-ms of idle GPU (tc::rest_gpu says why).
// Usage: 06_tile_sweep [--size 8192] [--repeats 20] [--rest-ms 1500]. Exit codes: README.md, "Exit codes" (1 on any
// mismatch).
#include "chapter_config.hpp"
#include "step3_multistage.cuh"

#include "tc/arch_guard.cuh"
#include "tc/cli.hpp"
#include "tc/device.hpp"
#include "tc/dynamic_smem.hpp"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"

#include <cstdio>
#include <string>

namespace {

// One tile: verified and timed on the sweep's one problem by tc::GemmBench, printed as a CSV line.
template <typename Tile>
bool sweep_one(tc::GemmBench<__half, float>& bench, double cublas_ms) {
  const auto m = bench.measure(tc::driver_kernel<LdsmGemm<Step3Multistage, Tile>>());
  const tc::KernelResources r = tc::kernel_resources(multistage_gemm_kernel<Tile>);
  const double flops = tc::gemm_flops(bench.problem().m, bench.problem().n, bench.problem().k);
  std::printf("%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.4f,%.1f,%.1f,%.1f,%s\n", Tile::BlockM, Tile::BlockN, Tile::BlockK,
              Tile::WarpsM, Tile::WarpsN, Tile::Stages, Tile::GroupN, Tile::kThreads, Tile::kSmemBytes, r.registers,
              r.spill_bytes, m.ms, tc::tflops(flops, m.ms), tc::tflops(flops, cublas_ms), 100.0 * cublas_ms / m.ms,
              m.verdict.passed() ? "PASS" : "FAIL");
  std::fflush(stdout);  // a line per tile as it finishes, so a sweep cut short still shows what it measured
  return m.verdict.passed();
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    tc::Cli cli("06_tile_sweep", "Time fifteen tiles of chapter 06's multistage kernel against cuBLAS fp16 TN; CSV to "
                                 "stdout.");
    cli.add_int("size", 8192, "m = n = k, a multiple of 256", 256)
        .add_int("warmup", 5, "untimed launches before timing", 0)
        .add_int("repeats", 20, "timed launches; the median is reported", 20)
        .add_int("rest-ms", 1500, "idle milliseconds before each timing", 0);
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    tc::require_kernel_image(tc::chapter::kArchitectures);  // a build without code for this GPU stops here, exit 5
    const int s = int(cli.get_int("size"));
    if (s % 256 != 0) throw tc::UsageError("--size must be a multiple of 256, the largest block tile swept");
    const tc::DeviceInfo device = tc::require_sm(tc::chapter::kMinSm, "06_tile_sweep (mma.sync kernels)");
    std::printf("# 06_tile_sweep --size %d --repeats %lld on %s\n", s, static_cast<long long>(cli.get_int("repeats")),
                tc::describe(device).c_str());

    const tc::GemmProblem problem = tc::GemmProblem::tight(tc::Op::T, tc::Op::N, s, s, s, 1.0, 0.0);
    tc::require_memory("06_tile_sweep " + std::to_string(s) + "^3", tc::gemm_check_memory<__half, float>(problem));
    tc::CublasHandle cublas;
    const tc::Timing timing{int(cli.get_int("warmup")), int(cli.get_int("repeats")), int(cli.get_int("rest-ms"))};
    tc::GemmBench<__half, float> p(cublas, problem, 2026, timing);
    const double cublas_ms = p.cublas_ms();

    std::printf("block_m,block_n,block_k,warps_m,warps_n,stages,group_n,threads,smem_bytes,registers,spill_bytes,ms,"
                "tflops,cublas_tflops,pct_cublas,verdict\n");
    bool ok = true;
    // [doc:configs]
    // Warp tiles of 64 x 32 and 64 x 64; block tiles from 128 x 128 to 256 x 128; 32- and 64-deep slices; 3 or 4
    // stages (4 at BlockK = 64 only where it fits in 227 KB); block order plain (GroupN 1) or in groups of 8 and 16
    // block columns. All on the swizzled layout, all with the serpentine mma order.
    using Sw = tc::Swizzled;
    ok &= sweep_one<GemmTile<128, 128, 32, 2, 4, 4, Sw>>(p, cublas_ms);  // step 3's tile
    ok &= sweep_one<GemmTile<128, 128, 32, 2, 2, 4, Sw>>(p, cublas_ms);
    ok &= sweep_one<GemmTile<128, 128, 64, 2, 2, 4, Sw>>(p, cublas_ms);
    ok &= sweep_one<GemmTile<64, 256, 32, 1, 4, 4, Sw>>(p, cublas_ms);
    ok &= sweep_one<GemmTile<256, 128, 32, 4, 2, 4, Sw>>(p, cublas_ms);
    ok &= sweep_one<GemmTile<256, 128, 64, 4, 2, 3, Sw>>(p, cublas_ms);
    ok &= sweep_one<GemmTile<128, 256, 32, 2, 4, 3, Sw>>(p, cublas_ms);
    ok &= sweep_one<GemmTile<128, 256, 32, 2, 4, 4, Sw>>(p, cublas_ms);
    ok &= sweep_one<GemmTile<128, 256, 64, 2, 4, 3, Sw>>(p, cublas_ms);
    ok &= sweep_one<GemmTile<128, 256, 32, 2, 4, 3, Sw, 8>>(p, cublas_ms);
    ok &= sweep_one<GemmTile<128, 256, 32, 2, 4, 3, Sw, 16>>(p, cublas_ms);
    ok &= sweep_one<GemmTile<128, 256, 64, 2, 4, 3, Sw, 16>>(p, cublas_ms);
    ok &= sweep_one<GemmTile<128, 256, 64, 2, 4, 4, Sw, 8>>(p, cublas_ms);
    ok &= sweep_one<GemmTile<128, 256, 64, 2, 4, 4, Sw, 16>>(p, cublas_ms);
    ok &= sweep_one<GemmTile<256, 128, 64, 4, 2, 4, Sw, 16>>(p, cublas_ms);
    // [/doc:configs]
    return ok ? tc::kExitOk : tc::kExitMismatch;
  });
}
