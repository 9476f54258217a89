// 06_tile_sweep: the bounded sweep that chose Step4Tile. Fifteen tiles of step 3's kernel (multistage_gemm_kernel on
// the swizzled layout), compiled ahead, each run on one fp16 -> fp32 problem (m = n = k = --size, A row-major, B
// column-major), checked against the reference (cuBLAS at this size, tc/reference_for.cuh) and timed beside cuBLAS's
// fp16 TN GEMM on the same operands, in the same process. Writes CSV to stdout, one line per tile with its registers,
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
#include "tc/main.hpp"
#include "tc/random.hpp"
#include "tc/reference_for.cuh"
#include "tc/timer.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace {

struct Problem {
  int size, warmup, repeats, rest_ms;
  const __half *a, *b;
  float* c;
  const tc::GemmReference* ref;
  double cublas_ms;
};

template <typename Tile>
bool sweep_one(const Problem& p) {
  using Gemm = LdsmGemm<Step3Multistage, Tile>;
  const int s = p.size;
  auto launch = [&] { Gemm::launch(s, s, s, 1.0f, p.a, s, p.b, s, 0.0f, p.c, s, nullptr); };
  launch();
  std::vector<float> got(std::size_t(s) * s);
  TC_CHECK(cudaMemcpy(got.data(), p.c, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  const tc::CompareResult r =
      tc::compare(s, s, s, got.data(), s, *p.ref, tc::tolerance_for<tc::WmmaF16>(tc::Fill::Real));
  tc::rest_gpu(p.rest_ms);
  const double ms = tc::benchmark(launch, p.warmup, p.repeats).median_ms;
  cudaFuncAttributes attr{};
  TC_CHECK(cudaFuncGetAttributes(&attr, multistage_gemm_kernel<Tile>));
  const double flops = tc::gemm_flops(s, s, s);
  std::printf("%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%zu,%.4f,%.1f,%.1f,%.1f,%s\n", Tile::BlockM, Tile::BlockN, Tile::BlockK,
              Tile::WarpsM, Tile::WarpsN, Tile::Stages, Tile::GroupN, Tile::kThreads, Tile::kSmemBytes, attr.numRegs,
              std::size_t(attr.localSizeBytes), ms, tc::tflops(flops, ms), tc::tflops(flops, p.cublas_ms),
              100.0 * p.cublas_ms / ms, r.passed ? "PASS" : "FAIL");
  std::fflush(stdout);  // a line per tile as it finishes, so a sweep cut short still shows what it measured
  return r.passed;
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

    std::vector<__half> a(std::size_t(s) * s), b(std::size_t(s) * s);
    tc::fill_random(a, 2026, tc::Fill::Real);
    tc::fill_random(b, 2027, tc::Fill::Real);
    tc::CublasHandle cublas;
    const tc::GemmReference ref =
        tc::reference_for<tc::WmmaF16>(cublas, tc::Op::T, tc::Op::N, s, s, s, 1.0, a, s, b, s, 0.0, {}, s);
    tc::DeviceBuffer<__half> d_a(a), d_b(b);
    tc::DeviceBuffer<float> d_c(std::size_t(s) * s);
    const int warmup = int(cli.get_int("warmup")), repeats = int(cli.get_int("repeats"));
    const int rest_ms = int(cli.get_int("rest-ms"));
    tc::rest_gpu(rest_ms);
    const double cublas_ms = tc::benchmark(
                                 [&] {
                                   tc::cublas_gemm<__half, float>(cublas, tc::Op::T, tc::Op::N, s, s, s, 1.0,
                                                                  d_a.data(), s, d_b.data(), s, 0.0, d_c.data(), s,
                                                                  d_c.data(), s);
                                 },
                                 warmup, repeats)
                                 .median_ms;
    const Problem p{s, warmup, repeats, rest_ms, d_a.data(), d_b.data(), d_c.data(), &ref, cublas_ms};

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
