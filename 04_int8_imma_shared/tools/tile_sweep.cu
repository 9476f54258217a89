// 04_tile_sweep: the bounded sweep that chose DefaultImmaTile. Eleven tile configurations, compiled ahead, each
// run on one s8 problem (m = n = k = --size, A row-major, B column-major), checked exactly on two full-range operand
// sets (tc/gemm_check.hpp) and timed beside cuBLAS's int8 TN GEMM on the same operands, in the same process, by
// tc::GemmBench (tc/gemm_driver.hpp). Writes CSV to stdout:
// one line per configuration, with its registers and shared memory, so the choice can be re-made on another GPU.
// Usage: 04_tile_sweep [--size 4096] [--repeats 20]. Exit codes: README.md, "Exit codes" (1 on any mismatch).
#include "chapter_config.hpp"
#include "imma_shared_gemm.cuh"

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

// One configuration: verified (both operand sets are full-range integers, so both checks are exact) and timed on the
// sweep's one problem by tc::GemmBench, printed as a CSV line.
template <typename Tile>
bool sweep_one(tc::GemmBench<std::int8_t, std::int32_t>& bench, double cublas_ms) {
  const auto m = bench.measure(tc::driver_kernel<ImmaSharedGemm<tc::WmmaS8, Tile>>());
  const tc::KernelResources r = tc::kernel_resources(imma_shared_gemm_kernel<tc::WmmaS8, Tile>);
  const double flops = tc::gemm_flops(bench.problem().m, bench.problem().n, bench.problem().k);
  std::printf("%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.4f,%.1f,%.1f,%.1f,%s\n", Tile::BlockM, Tile::BlockN, Tile::BlockK,
              Tile::WarpsM, Tile::WarpsN, Tile::Stages, Tile::Skew, Tile::kThreads, Tile::kSmemBytes, r.registers,
              r.spill_bytes, m.ms, tc::tflops(flops, m.ms), tc::tflops(flops, cublas_ms), 100.0 * cublas_ms / m.ms,
              m.verdict.passed() ? "PASS" : "FAIL");
  std::fflush(stdout);
  return m.verdict.passed();
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    tc::Cli cli("04_tile_sweep", "Time eleven INT8 IMMA tile configurations against cuBLAS int8 TN; CSV to stdout.");
    cli.add_int("size", 4096, "m = n = k, a multiple of 256", 256)
        .add_int("warmup", 5, "untimed launches before timing", 0)
        .add_int("repeats", 20, "timed launches; the median is reported", 20);
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    tc::require_kernel_image(tc::chapter::kArchitectures);  // a build without code for this GPU stops here, exit 5
    const int s = int(cli.get_int("size"));
    if (s % 256 != 0) throw tc::UsageError("--size must be a multiple of 256, the largest block tile swept");
    const tc::DeviceInfo device = tc::require_sm(tc::chapter::kMinSm, "04_tile_sweep (INT8 IMMA kernels)");
    std::printf("# 04_tile_sweep --size %d --repeats %lld on %s\n", s, static_cast<long long>(cli.get_int("repeats")),
                tc::describe(device).c_str());

    const tc::GemmProblem problem = tc::GemmProblem::tight(tc::Op::T, tc::Op::N, s, s, s, 1.0, 0.0);
    tc::require_memory("04_tile_sweep " + std::to_string(s) + "^3",
                       tc::gemm_check_memory<std::int8_t, std::int32_t>(problem));
    tc::CublasHandle cublas;
    const tc::Timing timing{int(cli.get_int("warmup")), int(cli.get_int("repeats")), 0};
    tc::GemmBench<std::int8_t, std::int32_t> p(cublas, problem, 2026, timing);
    const double cublas_ms = p.cublas_ms();

    std::printf("block_m,block_n,block_k,warps_m,warps_n,stages,skew,threads,smem_bytes,registers,spill_bytes,ms,"
                "tops,cublas_tops,pct_cublas,verdict\n");
    bool ok = true;
    // Block tiles of 64 x 32 and 64 x 64 per warp, 64- and 128-byte stages, 3 to 5 stages, all with the chosen skew.
    ok &= sweep_one<ImmaTile<128, 128, 64, 2, 2, 3, 16>>(p, cublas_ms);
    ok &= sweep_one<ImmaTile<128, 128, 64, 2, 2, 4, 16>>(p, cublas_ms);
    ok &= sweep_one<ImmaTile<128, 128, 64, 2, 2, 5, 16>>(p, cublas_ms);
    ok &= sweep_one<ImmaTile<128, 128, 128, 2, 2, 3, 16>>(p, cublas_ms);
    ok &= sweep_one<ImmaTile<128, 128, 64, 2, 4, 4, 16>>(p, cublas_ms);
    ok &= sweep_one<ImmaTile<128, 64, 64, 2, 1, 4, 16>>(p, cublas_ms);
    ok &= sweep_one<ImmaTile<64, 128, 64, 1, 2, 4, 16>>(p, cublas_ms);
    ok &= sweep_one<ImmaTile<128, 256, 64, 2, 4, 3, 16>>(p, cublas_ms);
    ok &= sweep_one<ImmaTile<128, 256, 64, 2, 4, 4, 16>>(p, cublas_ms);
    ok &= sweep_one<ImmaTile<256, 128, 64, 4, 2, 3, 16>>(p, cublas_ms);
    ok &= sweep_one<ImmaTile<128, 256, 128, 2, 4, 3, 16>>(p, cublas_ms);
    return ok ? tc::kExitOk : tc::kExitMismatch;
  });
}
