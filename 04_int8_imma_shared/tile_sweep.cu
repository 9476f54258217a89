// 04_tile_sweep: the bounded sweep that chose DefaultImmaTile. Eleven tile configurations, compiled ahead, each
// run on one s8 problem (m = n = k = --size, A row-major, B column-major), checked exactly against the fp64
// reference and timed beside cuBLAS's int8 TN GEMM on the same operands, in the same process. Writes CSV to stdout:
// one line per configuration, with its registers and shared memory, so the choice can be re-made on another GPU.
// Usage: 04_tile_sweep [--size 4096] [--repeats 20]. Exit codes: README.md, "Exit codes" (1 on any mismatch).
#include "chapter_config.hpp"
#include "imma_shared_gemm.cuh"

#include "tc/arch_guard.cuh"
#include "tc/cli.hpp"
#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_check.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"
#include "tc/random.hpp"
#include "tc/reference_for.cuh"
#include "tc/timer.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace {

struct Problem {
  int size, warmup, repeats;
  const std::int8_t *a, *b;
  std::int32_t* c;
  const tc::GemmReference* ref;
  double cublas_ms;
};

template <typename Tile>
bool sweep_one(const Problem& p) {
  using Gemm = ImmaSharedGemm<tc::WmmaS8, Tile>;
  const int s = p.size;
  auto launch = [&] { Gemm::launch(s, s, s, 1, p.a, s, p.b, s, 0, p.c, s, nullptr); };
  launch();
  std::vector<std::int32_t> got(std::size_t(s) * s);
  TC_CHECK(cudaMemcpy(got.data(), p.c, got.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  const tc::CompareResult r = tc::compare(s, s, s, got.data(), s, *p.ref, tc::Tolerance::exact());
  const double ms = tc::benchmark(launch, p.warmup, p.repeats).median_ms;
  cudaFuncAttributes attr{};
  TC_CHECK(cudaFuncGetAttributes(&attr, imma_shared_gemm_kernel<tc::WmmaS8, Tile>));
  const double flops = tc::gemm_flops(s, s, s);
  std::printf("%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%zu,%.4f,%.1f,%.1f,%.1f,%s\n", Tile::BlockM, Tile::BlockN, Tile::BlockK,
              Tile::WarpsM, Tile::WarpsN, Tile::Stages, Tile::Skew, Tile::kThreads, Tile::kSmemBytes, attr.numRegs,
              std::size_t(attr.localSizeBytes), ms, tc::tflops(flops, ms), tc::tflops(flops, p.cublas_ms),
              100.0 * p.cublas_ms / ms, r.passed ? "PASS" : "FAIL");
  return r.passed;
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

    // Its operands, result and fp64 reference fit in what a pair of the chapter's checks takes (tc/gemm_check.hpp).
    tc::require_memory("04_tile_sweep " + std::to_string(s) + "^3",
                       tc::gemm_check_memory<std::int8_t, std::int32_t>(
                           tc::GemmProblem::tight(tc::Op::T, tc::Op::N, s, s, s, 1.0, 0.0)));
    std::vector<std::int8_t> a(std::size_t(s) * s), b(std::size_t(s) * s);
    tc::fill_random(a, 2026, tc::Fill::Real);  // s8: full range [-128, 127]
    tc::fill_random(b, 2027, tc::Fill::Real);
    tc::CublasHandle cublas;
    const tc::GemmReference ref =
        tc::reference_for<tc::WmmaS8>(cublas, tc::Op::T, tc::Op::N, s, s, s, 1.0, a, s, b, s, 0.0, {}, s);
    tc::DeviceBuffer<std::int8_t> d_a(a), d_b(b);
    tc::DeviceBuffer<std::int32_t> d_c(std::size_t(s) * s);
    const int warmup = int(cli.get_int("warmup")), repeats = int(cli.get_int("repeats"));
    const double cublas_ms =
        tc::benchmark(
            [&] {
              tc::cublas_gemm<std::int8_t, std::int32_t>(
                  cublas, tc::Op::T, tc::Op::N, s, s, s, 1.0, d_a.data(), s,
                  d_b.data(), s, 0.0, d_c.data(), s, d_c.data(), s);
            },
            warmup, repeats)
            .median_ms;
    const Problem p{s, warmup, repeats, d_a.data(), d_b.data(), d_c.data(), &ref, cublas_ms};

    std::printf("block_m,block_n,block_k,warps_m,warps_n,stages,skew,threads,smem_bytes,registers,spill_bytes,ms,"
                "tops,cublas_tops,pct_cublas,verdict\n");
    bool ok = true;
    // Block tiles of 64 x 32 and 64 x 64 per warp, 64- and 128-byte stages, 3 to 5 stages, all with the chosen skew.
    ok &= sweep_one<ImmaTile<128, 128, 64, 2, 2, 3, 16>>(p);
    ok &= sweep_one<ImmaTile<128, 128, 64, 2, 2, 4, 16>>(p);
    ok &= sweep_one<ImmaTile<128, 128, 64, 2, 2, 5, 16>>(p);
    ok &= sweep_one<ImmaTile<128, 128, 128, 2, 2, 3, 16>>(p);
    ok &= sweep_one<ImmaTile<128, 128, 64, 2, 4, 4, 16>>(p);
    ok &= sweep_one<ImmaTile<128, 64, 64, 2, 1, 4, 16>>(p);
    ok &= sweep_one<ImmaTile<64, 128, 64, 1, 2, 4, 16>>(p);
    ok &= sweep_one<ImmaTile<128, 256, 64, 2, 4, 3, 16>>(p);
    ok &= sweep_one<ImmaTile<128, 256, 64, 2, 4, 4, 16>>(p);
    ok &= sweep_one<ImmaTile<256, 128, 64, 4, 2, 3, 16>>(p);
    ok &= sweep_one<ImmaTile<128, 256, 128, 2, 4, 3, 16>>(p);
    return ok ? tc::kExitOk : tc::kExitMismatch;
  });
}
