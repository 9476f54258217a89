// Chapter 10 -- one suite shape verified and timed beside both yardsticks, with the L2 flushed; a set of them; the
// tables and their summaries.
//
// run_shape<Steps...>: the project's two checks (tc/gemm_check.hpp: integer operands exactly, random ones against
// fp64) on the shape's problem (suite.hpp), made on the GPU once for every step (tc/device_gemm_check.cuh: a 57344 x
// 8192 weight's operands and references would take the host most of a minute per shape), each step verified and
// timed, then cublasGemmEx (default algorithm) and cuBLASLt's first 8 heuristic algorithms, timed once on the same
// random operands. Every timing is tc::FlushedTiming's: the L2 flushed by a read before every launch, which also
// keeps the queue busy, so that a 10 us launch is timed without the host's latency. run_set: every shape of a set.
// print_suite_plan: a set's layers and token counts, before any GPU work.
// print_suite: one step's table over a set of shapes (set: "" for the suite, "held-out" for the held-out suite):
// ms, TFLOP/s, operand traffic (GB/s) and its share of the measured DRAM ceiling, the share of each yardstick, the
// schedule, and the waves that explain them; then the summary line: the geomean of the yardsticks' time over the
// kernel's (above 1: the kernel is faster) and the worst shape, for each yardstick.
// Errors: tc::CudaError from CUDA, cuBLAS and cuBLASLt; std::invalid_argument from the launchers.
#pragma once

#include "suite.hpp"

#include "tc/cublas_reference.hpp"
#include "tc/cublaslt_yardstick.hpp"
#include "tc/device_gemm_check.cuh"
#include "tc/flushed_timing.cuh"
#include "tc/gemm_check.hpp"
#include "tc/gemm_driver.hpp"  // tc::time_lt_candidates
#include "tc/layouts/waves.hpp"
#include "tc/padded_gemm.hpp"
#include "tc/text_table.hpp"
#include "tc/device_buffer.hpp"

#include <cuda_bf16.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

struct ShapeResult {
  SuiteShape shape;
  std::string kernel;    // the step's name
  StepPlan plan;         // what the step chose for this shape, and its waves on this GPU
  double ms = 0.0, cublas_ms = -1.0, lt_first_ms = -1.0, lt_best_ms = -1.0;  // -1: no such yardstick
  double read_ms = -1.0;  // one read of the weights alone, under the same flush (time_weight_read); -1: not timed
  tc::GemmVerdict verdict;
  bool reads_c = false;  // beta != 0
  double check_s = 0.0;  // wall time of the step's two checks, in seconds
};

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What run_shape allocates for s: both operand sets with their references (on the device), and cuBLASLt's workspace.
inline tc::MemoryNeed shape_memory(const SuiteShape& s, double beta) {
  return tc::device_gemm_check_memory<__nv_bfloat16, __nv_bfloat16>(s.problem(1.0, beta)) +
         tc::MemoryNeed{0, tc::kLtWorkspaceBytes};
}

// The floor a shape's time has under the flush: one read of its weights (bytes, 16-byte aligned) from DRAM by
// tc::l2_flush_read_kernel on 4 blocks of 512 threads an SM, as the flush itself reads, timed like every launch here.
// A kernel cannot beat it; at one token it is what the kernel's time should approach. Errors: tc::CudaError.
inline double time_weight_read(const void* weights, std::size_t bytes, int sms, const tc::FlushedTiming& timing) {
  tc::DeviceBuffer<unsigned> sink(1);
  const auto* data = static_cast<const uint4*>(weights);
  return timing.median_ms([&] { tc::l2_flush_read_kernel<<<4 * sms, 512>>>(data, bytes / 16, sink.data()); });
}

// One shape's yardsticks, timed once for every step: cublasGemmEx's default algorithm, and cuBLASLt's first
// heuristic algorithm and the fastest of its first 8, on the random operands.
struct Yardsticks {
  double cublas_ms = -1.0, lt_first_ms = -1.0, lt_best_ms = -1.0;
};

template <typename Random>
Yardsticks time_yardsticks(const tc::CublasHandle& cublas, const tc::CublasLtHandle& lt, const tc::GemmProblem& p,
                           Random& random, const tc::FlushedTiming& timing) {
  using T = __nv_bfloat16;
  random.reset_c();  // the timed launches take the input C where beta != 0
  Yardsticks y;
  y.cublas_ms = timing.median_ms([&] {
    tc::cublas_gemm<T, T>(cublas, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, random.a(), p.lda, random.b(), p.ldb, p.beta,
                          random.c(), p.ldc, random.c(), p.ldc);
  });
  const tc::LtYardstick lt_times =
      tc::time_lt_candidates(tc::CublasLtMatmul<T, T>(lt, p), timing, random.a(), random.b(), random.c());
  y.lt_first_ms = lt_times.first_ms;
  y.lt_best_ms = lt_times.best_ms;
  return y;
}

// Verifies each of Steps (tc/padded_gemm.hpp kernel types, bf16 -> bf16, each with a static plan(shape, sms)) on s
// and times it, then times both yardsticks once (unless `yardsticks` is false: then their times stay -1): one row per
// step, in the order given. The operands are made once, for every step: the same matrices, the same references.
template <typename... Steps>
std::vector<ShapeResult> run_shape(const tc::CublasHandle& cublas, const tc::CublasLtHandle& lt, const SuiteShape& s,
                                   double alpha, double beta, std::uint64_t seed, const tc::FlushedTiming& timing,
                                   int sms, bool yardsticks = true) {
  using T = __nv_bfloat16;
  const tc::GemmProblem p = s.problem(alpha, beta);
  // The weights (A) come from the same stream at every token count: one layer's matrix, as a model has it.
  tc::DeviceExactCheck<T, T> exact(cublas, p, seed + 10);
  tc::DeviceRandomOperands<T, T> random(cublas, p, seed);
  std::vector<ShapeResult> rows;
  auto run_step = [&](auto step) {
    using Step = decltype(step);
    auto launch = [&](const T* A, const T* B, T* C) {
      tc::launch_gemm_any_size<Step>(p.m, p.n, p.k, float(alpha), A, p.lda, B, p.ldb, float(beta), C, p.ldc, nullptr);
    };
    ShapeResult r;
    r.shape = s;
    r.kernel = Step::name;
    r.reads_c = beta != 0.0;
    r.plan = Step::plan(s, sms);
    const auto start = std::chrono::steady_clock::now();
    r.verdict = tc::check_gemm(exact, random, launch);
    r.check_s = seconds_since(start);
    random.reset_c();  // the timed launches take the input C where beta != 0
    r.ms = timing.median_ms([&] { launch(random.a(), random.b(), random.c()); });
    rows.push_back(r);
  };
  (run_step(Steps{}), ...);
  const Yardsticks y = yardsticks ? time_yardsticks(cublas, lt, p, random, timing) : Yardsticks{};
  const double read_ms = time_weight_read(random.a(), std::size_t(s.weight_bytes()), sms, timing);
  for (ShapeResult& r : rows) {
    r.cublas_ms = y.cublas_ms, r.lt_first_ms = y.lt_first_ms, r.lt_best_ms = y.lt_best_ms;
    r.read_ms = read_ms;
  }
  return rows;
}

// Every shape of a set through Steps... (run_shape), with a progress line a shape: the rows step by step (rows[i]:
// step i + 1's, one a shape), each row's verdict appended to checks. set: "" for the suite, "held-out".
template <typename... Steps>
std::vector<std::vector<ShapeResult>> run_set(const tc::CublasHandle& cublas, const tc::CublasLtHandle& lt,
                                              const std::string& set, const std::vector<SuiteShape>& shapes,
                                              double alpha, double beta, std::uint64_t seed,
                                              const tc::FlushedTiming& timing, int sms, bool yardsticks,
                                              std::vector<tc::VerificationRow>& checks) {
  std::vector<std::vector<ShapeResult>> steps(sizeof...(Steps));
  for (const SuiteShape& s : shapes) {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<ShapeResult> rows =
        run_shape<Steps...>(cublas, lt, s, alpha, beta, seed, timing, sms, yardsticks);
    std::string verdicts;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      steps[i].push_back(rows[i]);
      checks.push_back({s.name() + " step " + rows[i].kernel, rows[i].verdict, alpha});
      verdicts += std::string(i > 0 ? ", " : "") + "step " + rows[i].kernel + " " +
                  (rows[i].verdict.passed() ? "PASS" : "FAIL");
    }
    std::printf("[%s%d/%d] %-28s %s, %.1f s\n", set.empty() ? "" : (set + " ").c_str(), int(steps[0].size()),
                int(shapes.size()), s.name().c_str(), verdicts.c_str(), seconds_since(start));
    std::fflush(stdout);  // a long suite shows its progress
  }
  return steps;
}

// A set's layers (set: "" for the suite, "held-out"), their weights against the L2 (a weight that fits would be read
// from the L2, not DRAM, by a warm timing), and the token counts.
inline void print_suite_plan(const std::string& set, const std::vector<SuiteShape>& shapes) {
  std::printf("\n== the %ssuite (suite.hpp): y = x W^T, x M x K row-major (M tokens), W N x K with K contiguous, y M "
              "x N row-major ==\n", set.empty() ? "" : (set + " ").c_str());
  std::printf("%-6s %-8s %6s %6s %8s  %s\n", "model", "layer", "N", "K", "W MiB", "tokens M");
  for (std::size_t i = 0; i < shapes.size();) {
    const SuiteShape& s = shapes[i];
    std::printf("%-6s %-8s %6d %6d %8.0f ", s.layer.model, s.layer.name, s.n(), s.k(), s.weight_bytes() / (1 << 20));
    for (; i < shapes.size() && shapes[i].n() == s.n() && shapes[i].k() == s.k(); ++i) std::printf(" %d", shapes[i].m);
    std::printf("\n");
  }
  std::printf("%d shapes; every kernel computes y^T = W x^T: the weights take the kernel's M, the tokens its N\n",
              int(shapes.size()));
}

// The geomean of ratios, and where the smallest is.
struct RatioSummary {
  double geomean = 0.0;
  double worst = 0.0;
  std::string worst_shape;
  int shapes = 0;
};

// yardstick time / kernel time over the rows that have that yardstick (ms > 0).
template <typename Ms>
RatioSummary summarize_ratios(const std::vector<ShapeResult>& rows, Ms&& yardstick_ms) {
  RatioSummary s;
  double log_sum = 0.0;
  for (const ShapeResult& r : rows) {
    const double y = yardstick_ms(r);
    if (y <= 0.0 || r.ms <= 0.0) continue;
    const double ratio = y / r.ms;
    log_sum += std::log(ratio);
    if (s.shapes == 0 || ratio < s.worst) s.worst = ratio, s.worst_shape = r.shape.name();
    ++s.shapes;
  }
  if (s.shapes > 0) s.geomean = std::exp(log_sum / s.shapes);
  return s;
}

// The results table, its legend and the summary lines.
inline void print_suite(const std::string& set, const std::vector<ShapeResult>& rows, double dram_gbps,
                        const tc::FlushedTiming& timing, std::size_t flush_bytes) {
  using tc::fixed;
  tc::Table t;
  for (const char* h : {"model", "layer", "M", "N", "K", "kernel"}) t.column(h, false);
  for (const char* h : {"ms", "TFLOP/s", "GB/s", "% DRAM", "% W read", "% cublasGemmEx", "% cuBLASLt best-of-8",
                        "tiles", "waves", "idle SMs"})
    t.column(h, true);
  t.column("schedule", false);
  t.column("verdict", false);
  for (const ShapeResult& r : rows) {
    const double gbps = r.shape.operand_bytes(r.reads_c) / (r.ms * 1e-3) / 1e9;
    auto share = [&](double y) { return y > 0.0 ? fixed(100.0 * y / r.ms, 1) + "%" : std::string("-"); };
    t.row({r.shape.layer.model, r.shape.layer.name, std::to_string(r.shape.m), std::to_string(r.shape.n()),
           std::to_string(r.shape.k()), r.kernel, fixed(r.ms, 4), fixed(tc::tflops(r.shape.flops(), r.ms), 1),
           fixed(gbps, 0), fixed(100.0 * gbps / dram_gbps, 1) + "%", share(r.read_ms), share(r.cublas_ms),
           share(r.lt_best_ms),
           std::to_string(r.plan.waves.units), std::to_string(r.plan.waves.waves),
           std::to_string(r.plan.idle_sms_last_wave), r.plan.schedule,
           r.verdict.passed() ? "PASS" : "FAIL"});
  }
  const std::string step = rows.empty() ? std::string("-") : rows.front().kernel;
  const std::string on = set.empty() ? std::string() : " on the " + set + " suite", of = set.empty() ? "" : set + " ";
  std::printf("\n== results of step %s%s: y = x W^T, bf16 in and out, fp32 accumulation (y^T = W x^T column-major: "
              "suite.hpp); median of %d launches after %d warm-up, each timing after %d ms idle; the L2 flushed before "
              "every launch by a read of %.0f MiB ==\n",
              step.c_str(), on.c_str(), timing.repeats, timing.warmup, timing.rest_ms, double(flush_bytes) / (1 << 20));
  std::printf("%s", t.format().c_str());
  std::printf(
      "GB/s: operand traffic, 2 (MK + NK + MN) bytes over the kernel's time (x and W read once, y written once); "
      "%% DRAM: of the\n%.0f GB/s copy above. %% W read: the time of one read of the weights alone, under the same "
      "flush (the floor\nat one token), over the kernel's. %% cublasGemmEx: cublasGemmEx's time (CUBLAS_GEMM_DEFAULT) "
      "over the kernel's; %% cuBLASLt\nbest-of-8: the fastest of cuBLASLt's first 8 heuristic algorithms (64 MiB "
      "workspace), timed again, over the kernel's;\nabove 100%%: the kernel is faster. tiles, waves, idle SMs: the "
      "kernel's work units on this GPU's persistent grid, the\nwaves they take, and the SMs the last wave leaves idle "
      "(computed on the host from the kernel's plan).\n",
      dram_gbps);
  const RatioSummary cublas = summarize_ratios(rows, [](const ShapeResult& r) { return r.cublas_ms; });
  const RatioSummary lt = summarize_ratios(rows, [](const ShapeResult& r) { return r.lt_best_ms; });
  if (cublas.shapes == 0 && lt.shapes == 0) {
    std::printf("step %s: no yardsticks were timed (--no-yardsticks)\n", step.c_str());
    return;
  }
  std::printf("step %s, summary over %d %sshapes: geomean %.3fx cublasGemmEx (worst %.3fx, %s), %.3fx cuBLASLt "
              "best-of-8 (worst %.3fx, %s)\n",
              step.c_str(), int(rows.size()), of.c_str(), cublas.geomean, cublas.worst, cublas.worst_shape.c_str(),
              lt.geomean, lt.worst, lt.worst_shape.c_str());
}
