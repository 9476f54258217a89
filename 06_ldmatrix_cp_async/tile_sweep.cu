// 06_tile_sweep: the bounded sweep that chose Step4Tile. Fifteen tiles of step 3's kernel (multistage_gemm_kernel on
// the swizzled layout), compiled ahead, each run on one fp16 -> fp32 problem (m = n = k = --size, A row-major, B
// column-major), checked as the chapter checks (integer operands exactly, random ones against fp64: tc/gemm_check.hpp)
// and timed on the random ones beside cuBLAS's fp16 TN GEMM on the same operands, in the same process. Writes CSV to stdout, one line per tile with its registers,
// spills and shared memory, so the choice can be re-made on another GPU; docs/06 renders it as a table.
// Every timing, cuBLAS's included, starts after --rest-ms of idle GPU (tc::rest_gpu says why).
// Usage: 06_tile_sweep [--size 8192] [--repeats 20] [--rest-ms 1500]. Exit codes: README.md, "Exit codes" (1 on any
// mismatch).
#include "chapter_config.hpp"
#include "gemm_launch.cuh"

#include "tc/arch_guard.cuh"
#include "tc/cli.hpp"
#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_check.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"
#include "tc/timer.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace {

struct Problem {
  int size, warmup, repeats, rest_ms;
  tc::ExactCheck<__half, float>* exact;
  tc::RandomOperands<__half, float>* random;
  double cublas_ms;
};

template <typename Tile>
bool sweep_one(const Problem& p) {
  using Gemm = LdsmGemm<Step3Multistage, Tile>;
  const int s = p.size;
  auto launch_on = [&](const __half* A, const __half* B, float* C) {
    Gemm::launch(s, s, s, 1.0f, A, s, B, s, 0.0f, C, s, nullptr);
  };
  const bool passed = tc::check_gemm(*p.exact, *p.random, launch_on).passed();
  tc::rest_gpu(p.rest_ms);
  const double ms =
      tc::benchmark([&] { launch_on(p.random->a(), p.random->b(), p.random->c()); }, p.warmup, p.repeats).median_ms;
  cudaFuncAttributes attr{};
  TC_CHECK(cudaFuncGetAttributes(&attr, multistage_gemm_kernel<Tile>));
  const double flops = tc::gemm_flops(s, s, s);
  std::printf("%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%zu,%.4f,%.1f,%.1f,%.1f,%s\n", Tile::BlockM, Tile::BlockN, Tile::BlockK,
              Tile::WarpsM, Tile::WarpsN, Tile::Stages, Tile::GroupN, Tile::kThreads, Tile::kSmemBytes, attr.numRegs,
              std::size_t(attr.localSizeBytes), ms, tc::tflops(flops, ms), tc::tflops(flops, p.cublas_ms),
              100.0 * p.cublas_ms / ms, passed ? "PASS" : "FAIL");
  std::fflush(stdout);  // a line per tile as it finishes, so a sweep cut short still shows what it measured
  return passed;
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
    tc::ExactCheck<__half, float> exact(cublas, problem, 2036);
    tc::RandomOperands<__half, float> random(cublas, problem, 2026);
    const int warmup = int(cli.get_int("warmup")), repeats = int(cli.get_int("repeats"));
    const int rest_ms = int(cli.get_int("rest-ms"));
    tc::rest_gpu(rest_ms);
    const double cublas_ms = tc::benchmark(
                                 [&] {
                                   tc::cublas_gemm<__half, float>(cublas, tc::Op::T, tc::Op::N, s, s, s, 1.0,
                                                                  random.a(), s, random.b(), s, 0.0, random.c(), s,
                                                                  random.c(), s);
                                 },
                                 warmup, repeats)
                                 .median_ms;
    const Problem p{s, warmup, repeats, rest_ms, &exact, &random, cublas_ms};

    std::printf("block_m,block_n,block_k,warps_m,warps_n,stages,group_n,threads,smem_bytes,registers,spill_bytes,ms,"
                "tflops,cublas_tflops,pct_cublas,verdict\n");
    bool ok = true;
    // [doc:configs]
    // Warp tiles of 64 x 32 and 64 x 64; block tiles from 128 x 128 to 256 x 128; 32- and 64-deep slices; 3 or 4
    // stages (4 at BlockK = 64 only where it fits in 227 KB); block order plain (GroupN 1) or in groups of 8 and 16
    // block columns. All on the swizzled layout, all with the serpentine mma order.
    using Sw = tc::Swizzled;
    ok &= sweep_one<GemmTile<128, 128, 32, 2, 4, 4, Sw>>(p);  // step 3's tile
    ok &= sweep_one<GemmTile<128, 128, 32, 2, 2, 4, Sw>>(p);
    ok &= sweep_one<GemmTile<128, 128, 64, 2, 2, 4, Sw>>(p);
    ok &= sweep_one<GemmTile<64, 256, 32, 1, 4, 4, Sw>>(p);
    ok &= sweep_one<GemmTile<256, 128, 32, 4, 2, 4, Sw>>(p);
    ok &= sweep_one<GemmTile<256, 128, 64, 4, 2, 3, Sw>>(p);
    ok &= sweep_one<GemmTile<128, 256, 32, 2, 4, 3, Sw>>(p);
    ok &= sweep_one<GemmTile<128, 256, 32, 2, 4, 4, Sw>>(p);
    ok &= sweep_one<GemmTile<128, 256, 64, 2, 4, 3, Sw>>(p);
    ok &= sweep_one<GemmTile<128, 256, 32, 2, 4, 3, Sw, 8>>(p);
    ok &= sweep_one<GemmTile<128, 256, 32, 2, 4, 3, Sw, 16>>(p);
    ok &= sweep_one<GemmTile<128, 256, 64, 2, 4, 3, Sw, 16>>(p);
    ok &= sweep_one<GemmTile<128, 256, 64, 2, 4, 4, Sw, 8>>(p);
    ok &= sweep_one<GemmTile<128, 256, 64, 2, 4, 4, Sw, 16>>(p);
    ok &= sweep_one<GemmTile<256, 128, 64, 4, 2, 4, Sw, 16>>(p);
    // [/doc:configs]
    return ok ? tc::kExitOk : tc::kExitMismatch;
  });
}
