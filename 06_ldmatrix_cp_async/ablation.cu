// 06_ablation: where step 4's time goes, and how much of % cuBLAS is the board's power limit.
//
// Part 1 times the ablation kernels (ablation.cuh) and step 4 on one fp16 -> fp32 problem (m = n = k = --size, A
// row-major, B column-major): the time each added part costs. Part 2 times step 4 and cuBLAS on random operands and
// on all-zero operands: zeros flip no bits in the tensor cores' datapaths, so the same work draws less power, and a
// kernel that the 700 W limit slows on random data runs faster on zeros. Step 4's result is checked against the
// reference on random operands and must be exactly zero on zero operands. Every timing, cuBLAS's included, starts
// after --rest-ms of idle GPU (tc::rest_gpu). docs/06 renders the output ("Where step 4's time goes").
// Usage: 06_ablation [--size 8192] [--warmup 5] [--repeats 20] [--rest-ms 1500]. Exit codes: README.md, "Exit codes"
// (1 on a mismatch).
#include "ablation.cuh"
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

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

namespace {

using Launcher = void (*)(int, int, int, float, const __half*, int, const __half*, int, float, float*, int,
                          cudaStream_t);

struct Row {
  const char* name;
  Launcher launch;
};

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    tc::Cli cli("06_ablation", "Time step 4 with parts switched off, and step 4 and cuBLAS on random and on zero "
                               "operands.");
    cli.add_int("size", 8192, "m = n = k, a multiple of 256", 256)
        .add_int("warmup", 5, "untimed launches before timing", 0)
        .add_int("repeats", 20, "timed launches; the median is reported", 20)
        .add_int("rest-ms", 1500, "idle milliseconds before each timing", 0);
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    tc::require_kernel_image(tc::chapter::kArchitectures);  // a build without code for this GPU stops here, exit 5
    const int s = int(cli.get_int("size"));
    if (s % 256 != 0) throw tc::UsageError("--size must be a multiple of 256, step 4's block tile");
    const tc::DeviceInfo device = tc::require_sm(tc::chapter::kMinSm, "06_ablation (mma.sync kernels)");
    const int warmup = int(cli.get_int("warmup")), repeats = int(cli.get_int("repeats"));
    const int rest_ms = int(cli.get_int("rest-ms"));
    std::printf("# command: 06_ablation --size %d --repeats %d\n# device:  %s\n", s, repeats,
                tc::describe(device).c_str());
    std::printf("# each timing: median of %d launches after %d warm-up, after %d ms idle; %dx%dx%d, fp16 in, fp32 "
                "accumulate\n",
                repeats, warmup, rest_ms, s, s, s);

    std::vector<__half> a(std::size_t(s) * s), b(std::size_t(s) * s);
    tc::fill_random(a, 2026, tc::Fill::Real);
    tc::fill_random(b, 2027, tc::Fill::Real);
    tc::CublasHandle cublas;
    const tc::GemmReference ref =
        tc::reference_for<tc::WmmaF16>(cublas, tc::Op::T, tc::Op::N, s, s, s, 1.0, a, s, b, s, 0.0, {}, s);
    tc::DeviceBuffer<__half> d_a(a), d_b(b), zero_a(a.size()), zero_b(b.size());
    TC_CHECK(cudaMemset(zero_a.data(), 0, zero_a.bytes()));
    TC_CHECK(cudaMemset(zero_b.data(), 0, zero_b.bytes()));
    tc::DeviceBuffer<float> d_c(std::size_t(s) * s);
    const double flops = tc::gemm_flops(s, s, s);
    auto time_ms = [&](const std::function<void()>& launch) {
      tc::rest_gpu(rest_ms);
      return tc::benchmark(launch, warmup, repeats).median_ms;
    };
    auto run = [&](Launcher launch, const __half* A, const __half* B) {
      return [=, &d_c] { launch(s, s, s, 1.0f, A, s, B, s, 0.0f, d_c.data(), s, nullptr); };
    };
    auto run_cublas = [&](const __half* A, const __half* B) {
      return [=, &cublas, &d_c] {
        tc::cublas_gemm<__half, float>(cublas, tc::Op::T, tc::Op::N, s, s, s, 1.0, A, s, B, s, 0.0, d_c.data(), s,
                                       d_c.data(), s);
      };
    };

    // Step 4's result first: on random operands against the reference, on zeros exactly zero.
    launch_tuned_gemm(s, s, s, 1.0f, d_a.data(), s, d_b.data(), s, 0.0f, d_c.data(), s);
    const std::vector<float> got = d_c.download();
    const tc::CompareResult r =
        tc::compare(s, s, s, got.data(), s, ref, tc::tolerance_for<tc::WmmaF16>(tc::Fill::Real));
    launch_tuned_gemm(s, s, s, 1.0f, zero_a.data(), s, zero_b.data(), s, 0.0f, d_c.data(), s);
    const std::vector<float> got_zero = d_c.download();
    const bool zero_ok = std::all_of(got_zero.begin(), got_zero.end(), [](float v) { return v == 0.0f; });
    std::printf("step 4 on random operands: %s; on zero operands: %s\n",
                r.passed ? "matches the reference" : "MISMATCH", zero_ok ? "all zero" : "MISMATCH (not all zero)");

    // [doc:ablation_rows]
    using T = Step4Tile;
    const Row rows[] = {
        {"mma.sync only (fragments loaded once)", launch_ablation<T, Ablation::MmaOnly>},
        {"+ ldmatrix.x4 every K step", launch_ablation<T, Ablation::PlusLdmatrix>},
        {"+ block barrier every slice", launch_ablation<T, Ablation::PlusBarrier>},
        {"+ cp.async every slice (L2-resident K)", launch_ablation<T, Ablation::PlusCopies>},
        {"step 4 (real panels from DRAM)", launch_tuned_gemm},
    };
    // [/doc:ablation_rows]
    std::printf("\n== where step 4's time goes: its kernel with parts of a K slice put back one at a time "
                "(ablation.cuh) ==\n%-42s %9s %9s %16s\n",
                "kernel", "ms", "TFLOP/s", "time vs above");
    double previous = 0.0;
    for (const Row& row : rows) {
      const double ms = time_ms(run(row.launch, d_a.data(), d_b.data()));
      std::printf("%-42s %9.4f %9.1f", row.name, ms, tc::tflops(flops, ms));
      if (previous > 0.0) std::printf(" %+15.1f%%", 100.0 * (ms / previous - 1.0));
      std::printf("\n");
      std::fflush(stdout);
      previous = ms;
    }

    std::printf("\n== operand values and the power limit: step 4 and cuBLAS on random and on all-zero operands ==\n"
                "%-10s %16s %16s %10s\n",
                "operands", "step 4 TFLOP/s", "cuBLAS TFLOP/s", "% cuBLAS");
    for (const bool zeros : {false, true}) {
      const __half* A = zeros ? zero_a.data() : d_a.data();
      const __half* B = zeros ? zero_b.data() : d_b.data();
      const double cublas_ms = time_ms(run_cublas(A, B));
      const double step4_ms = time_ms(run(launch_tuned_gemm, A, B));
      std::printf("%-10s %16.1f %16.1f %9.1f%%\n", zeros ? "all zero" : "random", tc::tflops(flops, step4_ms),
                  tc::tflops(flops, cublas_ms), 100.0 * cublas_ms / step4_ms);
      std::fflush(stdout);
    }
    const bool ok = r.passed && zero_ok;
    std::printf("\nRESULT: %s\n", ok ? "step 4 matches the reference" : "MISMATCH");
    return ok ? tc::kExitOk : tc::kExitMismatch;
  });
}
