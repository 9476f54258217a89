// 06_ablation: where step 4's time goes, and how much of its gap to the yardsticks is the board's power limit.
//
// Part 1 times the ablation kernels (ablation.cuh) and step 4 on one fp16 -> fp32 problem (m = n = k = --size, A
// row-major, B column-major): the time each added part costs. Part 2 times step 4 and both yardsticks (cublasGemmEx
// default, and cuBLASLt's best of its first 8 heuristic algorithms, chosen on each operand set) on random operands and
// on all-zero operands: zeros flip no bits in the tensor cores' datapaths, so the same work draws less power, and a
// kernel that the 700 W limit slows on random data runs faster on zeros. Step 4's result is checked as the chapter
// checks it (integer operands exactly, the random ones against fp64: tc/gemm_check.hpp) and must be exactly zero on
// zero operands. Every timing, the yardsticks' included, starts after --rest-ms of idle GPU (tc::rest_gpu). docs/06 renders the output ("Where step 4's time goes").
// Usage: 06_ablation [--size 8192] [--warmup 5] [--repeats 20] [--rest-ms 1500]. Exit codes: README.md, "Exit codes"
// (1 on a mismatch).
#include "ablation.cuh"
#include "step3_multistage.cuh"

#include "tc/chapter_driver.cuh"
#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_check.hpp"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  const tc::ToolConfig config{
      "06_ablation", "Time step 4 with parts switched off, and step 4 and cuBLAS on random and on zero operands.",
      "mma.sync kernels", 8192, 256, "step 4's block tile", true};
  return tc::square_tool_main(argc, argv, tc::this_chapter(), config, [](const tc::SquareTool& tool) {
    const int s = tool.size();
    const tc::Timing timing = tool.timing();
    tool.print_timing_line("fp16 in, fp32 accumulate");

    const tc::GemmProblem problem = tool.problem(tc::Op::T, tc::Op::N);
    const std::uint64_t operand_bytes = tc::checked_bytes(std::uint64_t(s) * std::uint64_t(s), 2 * sizeof(__half));
    tc::require_memory("06_ablation " + std::to_string(s) + "^3",
                       tc::gemm_check_memory<__half, float>(problem) + tc::MemoryNeed{0, operand_bytes});
    tc::CublasHandle cublas;
    tc::ExactCheck<__half, float> exact(cublas, problem, 2036);
    tc::RandomOperands<__half, float> random(cublas, problem, 2026);
    const __half* d_a = random.a();
    const __half* d_b = random.b();
    tc::DeviceBuffer<__half> zero_a(problem.a_elements()), zero_b(problem.b_elements());
    TC_CHECK(cudaMemset(zero_a.data(), 0, zero_a.bytes()));
    TC_CHECK(cudaMemset(zero_b.data(), 0, zero_b.bytes()));
    float* d_c = random.c();
    const double flops = tc::gemm_flops(s, s, s);
    auto run = [&](NamedLauncher::Launcher launch, const __half* A, const __half* B) {
      return [=] { launch(s, s, s, 1.0f, A, s, B, s, 0.0f, d_c, s, nullptr); };
    };
    auto run_cublas = [&](const __half* A, const __half* B) {
      return [=, &cublas] {
        tc::cublas_gemm<__half, float>(cublas, tc::Op::T, tc::Op::N, s, s, s, 1.0, A, s, B, s, 0.0, d_c, s, d_c, s);
      };
    };

    // Step 4's result first: both of the chapter's checks, then exactly zero on zero operands.
    const tc::GemmVerdict v = tc::check_gemm(exact, random, [&](const __half* A, const __half* B, float* C) {
      launch_tuned_gemm(s, s, s, 1.0f, A, s, B, s, 0.0f, C, s);
    });
    launch_tuned_gemm(s, s, s, 1.0f, zero_a.data(), s, zero_b.data(), s, 0.0f, d_c, s);
    std::vector<float> got_zero(problem.c_elements());
    TC_CHECK(cudaMemcpy(got_zero.data(), d_c, got_zero.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const bool zero_ok = std::all_of(got_zero.begin(), got_zero.end(), [](float x) { return x == 0.0f; });
    std::printf("step 4: exact check on integer operands %s (%lld of %lld elements off); random operands %s (worst "
                "|err| %.3g, bound %.3g there); on zero operands %s\n",
                v.exact.passed ? "PASS" : "FAIL", static_cast<long long>(v.exact.failures),
                static_cast<long long>(v.exact.checked), v.random.passed ? "PASS" : "FAIL", v.random.worst_error,
                v.random.worst_bound, zero_ok ? "all zero" : "MISMATCH (not all zero)");

    // [doc:ablation_rows]
    using T = Step4Tile;
    const NamedLauncher rows[] = {
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
    for (const NamedLauncher& row : rows) {
      const double ms = timing.median_ms(run(row.launch, d_a, d_b));
      std::printf("%-42s %9.4f %9.1f", row.name, ms, tc::tflops(flops, ms));
      if (previous > 0.0) std::printf(" %+15.1f%%", 100.0 * (ms / previous - 1.0));
      std::printf("\n");
      std::fflush(stdout);
      previous = ms;
    }

    std::printf("\n== operand values and the power limit: step 4 and the yardsticks on random and on all-zero "
                "operands ==\n%-10s %15s %13s %15s %19s %21s\n",
                "operands", "step 4 TFLOP/s", "cublasGemmEx", "% cublasGemmEx", "cuBLASLt best-of-8",
                "% cuBLASLt best-of-8");
    const tc::CublasLtHandle lt;
    const tc::CublasLtMatmul<__half, float> lt_plan(lt, problem);
    for (const bool zeros : {false, true}) {
      const __half* A = zeros ? zero_a.data() : d_a;
      const __half* B = zeros ? zero_b.data() : d_b;
      const double cublas_ms = timing.median_ms(run_cublas(A, B));
      const tc::LtYardstick best = tc::time_lt_candidates(lt_plan, timing, A, B, d_c);
      const double step4_ms = timing.median_ms(run(launch_tuned_gemm, A, B));
      std::printf("%-10s %15.1f %13.1f %14.1f%%", zeros ? "all zero" : "random", tc::tflops(flops, step4_ms),
                  tc::tflops(flops, cublas_ms), 100.0 * cublas_ms / step4_ms);
      if (best.best_ms > 0.0) {
        std::printf(" %19.1f %20.1f%%\n", tc::tflops(flops, best.best_ms), 100.0 * best.best_ms / step4_ms);
      } else {
        std::printf(" %19s %21s  (cuBLASLt: %s)\n", "-", "-", best.refusal.c_str());
      }
      std::fflush(stdout);
    }
    const bool ok = v.passed() && zero_ok;
    std::printf("\nRESULT: %s\n", ok ? "step 4 matches the reference" : "MISMATCH");
    return ok ? tc::kExitOk : tc::kExitMismatch;
  });
}
