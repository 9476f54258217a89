// 08_ablation: where step 4's time goes, from the wgmma ceiling down to step 4, one part at a time.
//
// On one fp16 -> fp32 problem (m = n = k = --size, A row-major, B column-major) it measures the wgmma ceiling
// (tc/wgmma_ceiling.cuh), the two ablation launches (ablation.cuh), step 4 and both yardsticks (cublasGemmEx default,
// and cuBLASLt's best of its first 8 heuristic algorithms), each timing after --rest-ms of idle GPU. Step 4 is checked as the chapter checks it (integer operands exactly, random ones against fp64:
// tc/gemm_check.hpp), and each ablation launch on all-ones operands (every element it writes must be k).
// docs/08 renders the output ("Where the time goes").
// Usage: 08_ablation [--size 8192] [--warmup 5] [--repeats 20] [--rest-ms 1500]. Exit codes: README.md, "Exit codes"
// (1 on a mismatch).
#include "ablation.cuh"

#include "tc/chapter_driver.cuh"
#include "tc/cublas_reference.hpp"
#include "tc/gemm_check.hpp"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"
#include "tc/wgmma_ceiling_timing.cuh"

#include <cstdio>
#include <functional>
#include <type_traits>

int main(int argc, char** argv) {
  const tc::ToolConfig config{"08_ablation",
                              "Time step 4 with its loads and its epilogue taken out, against the wgmma ceiling.",
                              "wgmma kernels (sm_90a)", 8192, 256, "step 4's cluster of two 128-row tiles", true};
  return tc::square_tool_main(argc, argv, tc::this_chapter(), config, [](const tc::SquareTool& tool) {
    const int s = tool.size();
    const tc::GemmProblem problem = tool.problem(tc::Op::T, tc::Op::N);
    const tc::Timing timing = tool.timing();
    tool.print_timing_line("fp16 in, fp32 accumulate");

    // The checks' operands, and check_ablation_on_ones's own: all-ones A and B and a C, on the host and the device.
    const std::uint64_t ones_bytes = tc::checked_bytes(std::uint64_t(s) * std::uint64_t(s), 2 * 2 + 4);
    tc::require_memory("08_ablation " + std::to_string(s) + "^3",
                       tc::gemm_check_memory<__half, float>(problem) + tc::MemoryNeed{ones_bytes, ones_bytes});
    tc::CublasHandle cublas;
    tc::ExactCheck<__half, float> exact(cublas, problem, 2036);
    tc::RandomOperands<__half, float> random(cublas, problem, 2026);
    using Step4 = WsGemm<Step4TmaStore, Step4Tile, tc::F16F32>;
    using Launch = std::function<void(const __half*, const __half*, float*)>;
    const Launch step4 = [&](const __half* A, const __half* B, float* C) {
      Step4::launch(s, s, s, 1.0f, A, s, B, s, 0.0f, C, s, nullptr);
    };
    auto ablation = [&](auto part) -> Launch {
      return [&](const __half* A, const __half* B, float* C) {
        launch_ablation<decltype(part)::value, __half>(s, s, s, 1.0f, A, s, B, s, 0.0f, C, s);
      };
    };
    using LoadsOnce = std::integral_constant<Ablation, Ablation::LoadsOnce>;
    using PlusLoads = std::integral_constant<Ablation, Ablation::PlusLoads>;

    // The results first: step 4 by both of the chapter's checks, each ablation launch on all-ones operands.
    const tc::GemmVerdict v = tc::check_gemm(exact, random, step4);
    std::printf("step 4: exact check on integer operands %s (%lld of %lld elements off); random operands %s (worst "
                "|err| %.3g, bound %.3g there)\n",
                v.exact.passed ? "PASS" : "FAIL", static_cast<long long>(v.exact.failures),
                static_cast<long long>(v.exact.checked), v.random.passed ? "PASS" : "FAIL", v.random.worst_error,
                v.random.worst_bound);
    bool ok = v.passed();
    auto report = [&](const char* what, const AblationWrites& w) {
      std::printf("%s on all-ones operands: %lld of %lld written elements are k, %lld elements wrong -> %s\n", what,
                  w.written, w.expected, w.wrong, w.ok() ? "PASS" : "FAIL");
      ok &= w.ok();
    };
    report("loads once", check_ablation_on_ones<Ablation::LoadsOnce, __half>(s, s, s));
    report("+ loads", check_ablation_on_ones<Ablation::PlusLoads, __half>(s, s, s));

    // [doc:ablation_rows]
    struct Row {
      const char* name;
      Launch launch;
    };
    const Row rows[] = {
        {"step 4's loop, stages loaded once", ablation(LoadsOnce{})},
        {"+ TMA loads and releases every slice", ablation(PlusLoads{})},
        {"+ TMA-store epilogue (step 4)", step4},
    };
    // [/doc:ablation_rows]
    const double flops = tc::gemm_flops(s, s, s);
    const tc::WgmmaCeiling ceiling =
        tc::measure_wgmma_ceiling<Step4Tile::BlockN, Step4Tile::kConsumers>(timing.warmup, timing.repeats);
    const double cublas_ms = timing.median_ms([&] {
      tc::cublas_gemm<__half, float>(cublas, tc::Op::T, tc::Op::N, s, s, s, 1.0, random.a(), s, random.b(), s, 0.0,
                                     random.c(), s, random.c(), s);
    });
    const tc::CublasLtHandle lt;
    const tc::LtYardstick lt_best = tc::time_lt_candidates(tc::CublasLtMatmul<__half, float>(lt, problem), timing,
                                                           random.a(), random.b(), random.c());
    std::printf("\n== where step 4's time goes: the wgmma ceiling, then step 4's kernel with parts put back one at a "
                "time (ablation.cuh) ==\n%-40s %9s %9s %10s %9s %14s\n",
                "kernel", "ms", "TFLOP/s", "% ceiling", "% gemmEx", "time vs above");
    auto line = [&](const char* name, double ms, double previous_ms) {
      std::printf("%-40s %9.4f %9.1f %9.1f%% %8.1f%%", name, ms, tc::tflops(flops, ms),
                  100.0 * tc::tflops(flops, ms) / ceiling.tflops, 100.0 * cublas_ms / ms);
      if (previous_ms > 0.0) std::printf(" %+13.1f%%", 100.0 * (ms / previous_ms - 1.0));
      std::printf("\n");
      std::fflush(stdout);
    };
    // The ceiling's rate, as the time this problem's flops would take at it.
    const double ceiling_ms = flops / (ceiling.tflops * 1e9);
    line("wgmma ceiling (every SM, no loads)", ceiling_ms, 0.0);
    double previous = ceiling_ms;
    for (const Row& row : rows) {
      const double ms = timing.median_ms([&] { row.launch(random.a(), random.b(), random.c()); });
      line(row.name, ms, previous);
      previous = ms;
    }
    line("cublasGemmEx (default algorithm)", cublas_ms, 0.0);
    if (lt_best.best_ms > 0.0) line("cuBLASLt best-of-8", lt_best.best_ms, 0.0);
    std::printf("TFLOP/s counts 2*M*N*K; %% gemmEx: cublasGemmEx's time over the row's; the ceiling row is the time this "
                "problem would take at the ceiling's rate, measured in this process (%.1f TFLOP/s)%s%s\n",
                ceiling.tflops, lt_best.best_ms > 0.0 ? "" : "; no cuBLASLt row: ", lt_best.refusal.c_str());
    std::printf("\nRESULT: %s\n", ok ? "step 4 and the ablation launches match their references" : "MISMATCH");
    return ok ? tc::kExitOk : tc::kExitMismatch;
  });
}
