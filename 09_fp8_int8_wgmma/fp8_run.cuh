// Chapter 09 -- the fp8 steps as the binary runs them: verified on both operand sets of tc/fp8_gemm_check.hpp and
// timed beside cuBLASLt's fp8 GEMM on the same operands, with and without fast accumulation.
//
// cublasGemmEx has no fp8 path, so the chapter's driver (tc/gemm_driver.hpp) runs the int8 step alone and this file
// runs the fp8 ones, the same way: per size, the exact set (small integers, power-of-two scales: every output equal
// to the reference up to the output's rounding, Tolerance::exact_operands) and the random set (uniform reals
// quantized with per-tensor amax scales: the error against fp64, beside cuBLASLt's on the same operands), then the
// timings, each the median of --repeats launches after --warmup, after --rest-ms of idle. C is poisoned with NaN
// before every checked launch, so an element nobody wrote fails. Errors: tc::CudaError; tc::TooLargeError (exit 6)
// when a size does not fit.
#pragma once

#include "step1_fp8_per_tensor.cuh"
#include "step4_block_scaling.cuh"

#include "tc/compare.hpp"
#include "tc/bench_csv.hpp"
#include "tc/cublaslt_fp8.hpp"
#include "tc/device_buffer.hpp"
#include "tc/fp8_gemm_check.hpp"
#include "tc/gemm_driver.hpp"
#include "tc/memory.hpp"
#include "tc/timer.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

// What one fp8 kernel did at one size.
struct Fp8Row {
  tc::GemmShape size;
  std::string kernel;
  double ms = 0.0;
  tc::LtYardstick fast, exact;  // cuBLASLt with CUBLASLT_MATMUL_DESC_FAST_ACCUM on, and off
  bool block = false;  // block scales (step 4): the yardstick is cuBLASLt's block-scaled GEMM, in `exact`
  bool exact_ok = false, random_ok = false;
  tc::Fp8Errors errors, lt_errors;  // the random set against fp64: this kernel, cuBLASLt (fast, first algorithm)
  double rms_error = 0.0, rms_bound = 0.0;  // the random set's statistical check (tc::fp8_statistical_rms_bound)
};

// The memory one size takes: the operands on both sides, C, and the fp64 reference's A, B, C, result and magnitude
// (tc::fp64_reference_gemm) on both sides.
inline tc::MemoryNeed fp8_memory(const tc::GemmShape& s, int out_bytes) {
  const std::uint64_t a = std::uint64_t(s.m) * s.k, b = std::uint64_t(s.k) * s.n, c = std::uint64_t(s.m) * s.n;
  const std::uint64_t operands = tc::checked_sum({a, b, tc::checked_bytes(c, out_bytes)});
  const std::uint64_t fp64 = tc::checked_bytes(tc::checked_sum({a, b, c, c, c}), 8);
  return {tc::checked_sum({operands, fp64, tc::checked_bytes(c, out_bytes)}), tc::checked_sum({operands, fp64})};
}

// C (m x n, column-major) for beta != 0: small integers on the exact set, uniform reals on the random one, in Out.
template <typename Out>
std::vector<Out> fp8_c_input(const tc::GemmShape& s, tc::Fp8Set set, std::uint64_t seed,
                             std::vector<double>& as_double) {
  std::vector<float> c(std::size_t(s.m) * s.n);
  if (set == tc::Fp8Set::Exact) tc::fill_random_integers(c, seed, tc::kIntegerFillMax);
  else tc::fill_random(c, seed, tc::Fill::Real);
  std::vector<Out> out(c.size());
  as_double.resize(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) {
    out[i] = tc::from_double<Out>(c[i]);
    as_double[i] = tc::to_double(out[i]);
  }
  return out;
}

// The random set's statistical bound for Gemm's step (tc::fp8_statistical_rms_bound): its promotion interval, or K.
template <typename Gemm, typename Fp8>
double fp8_rms_bound(const tc::Fp8Operands<Fp8>& op, const tc::GemmReference& ref, double alpha, int bits) {
  const int interval = Gemm::Step::kPromotionInterval > 0 ? Gemm::Step::kPromotionInterval : op.k;
  return tc::fp8_statistical_rms_bound(op.k, interval, bits, alpha, tc::fp8_rms_of_products(op),
                                       tc::rms_of_reference(tc::GemmProblem::tight(tc::Op::T, tc::Op::N, op.m, op.n,
                                                                                   op.k, alpha, 0.0),
                                                            ref),
                                       tc::ElementTraits<typename Gemm::Out>::unit_roundoff);
}

// One operand set on the device: A, B and their scales (one each per tensor, or the block scales, dense).
template <typename Fp8>
struct Fp8DeviceOperands {
  tc::DeviceBuffer<Fp8> a, b;
  tc::DeviceBuffer<float> sa, sb;
  explicit Fp8DeviceOperands(const tc::Fp8Operands<Fp8>& o)
      : a(o.a), b(o.b), sa(o.block ? o.sa : std::vector<float>{o.scale_a}),
        sb(o.block ? o.sb : std::vector<float>{o.scale_b}) {}
};

// An fp8 step at one size: both checks, the errors, the timings. Gemm is Gemm8<Step, Tile, P>; Step::kBlockScaled
// says which scales it takes (block: tc::make_fp8_block_operands and launch_fp8_block_scaled; per tensor:
// tc::make_fp8_operands and launch_fp8_per_tensor), and cuBLASLt is timed with the same scaling (per tensor, fast
// accumulation on and off; block, the one mode cuBLASLt has). The yardsticks are timed once a size and scaling:
// `previous`, the row of an earlier step with the same size and scaling, or nullptr, lends them.
// `bits`: the significand bits step 2's probe measured, for the random set's statistical bound.
template <typename Gemm>
Fp8Row run_fp8_step(tc::GemmDriver& driver, const tc::GemmShape& s, int bits, const Fp8Row* previous = nullptr) {
  using Fp8 = typename Gemm::Input;
  using Out = typename Gemm::Out;
  constexpr bool kBlock = Gemm::Step::kBlockScaled;
  const tc::RunOptions& o = driver.options();
  const float alpha = float(o.alpha), beta = float(o.beta);
  const int m = s.m, n = s.n, k = s.k, ld = std::max(k, 1);  // lda = ldb: cuBLAS's rule, where k = 0
  Fp8Row row;
  row.size = s;
  row.kernel = Gemm::name;
  row.block = kBlock;
  tc::DeviceBuffer<Out> c(std::size_t(m) * n);
  auto make = [&](tc::Fp8Set set, std::uint64_t seed) {
    return kBlock ? tc::make_fp8_block_operands<Fp8>(m, n, k, set, seed)
                  : tc::make_fp8_operands<Fp8>(m, n, k, set, seed);
  };
  auto launch = [&](const tc::Fp8Operands<Fp8>& op, const Fp8DeviceOperands<Fp8>& d) {
    if constexpr (kBlock)
      launch_fp8_block_scaled<typename Gemm::Tile, Out>(m, n, k, alpha, d.a.data(), ld, d.sa.data(), op.ld_sa(),
                                                        d.b.data(), ld, d.sb.data(), op.ld_sb(), beta, c.data(), m,
                                                        nullptr);
    else
      launch_fp8_per_tensor<Gemm>(m, n, k, alpha, d.a.data(), ld, op.scale_a, d.b.data(), ld, op.scale_b, beta,
                                  c.data(), m, nullptr);
  };
  // One operand set: C set to its input (beta != 0) or poisoned, the kernel, the comparison with fp64.
  auto check = [&](tc::Fp8Set set, const tc::Fp8Operands<Fp8>& op, const Fp8DeviceOperands<Fp8>& d,
                   tc::Tolerance tol, tc::GemmReference& ref) {
    std::vector<double> c_double;
    const std::vector<Out> c_in = fp8_c_input<Out>(s, set, o.seed + 7, c_double);
    if (beta != 0.0f) c.upload(c_in);
    else TC_CHECK(cudaMemset(c.data(), 0xFF, c.bytes()));  // all-ones bits: NaN in bf16 and fp32
    ref = tc::fp8_reference(driver.cublas(), op, alpha, beta, beta != 0.0f ? c_double : std::vector<double>{});
    launch(op, d);
    const std::vector<Out> got = c.download();
    tc::CompareResult r = tc::compare(m, n, k, got.data(), m, ref, tol);
    if (set == tc::Fp8Set::Random) {  // and the statistical check, with the step's promotion interval
      r.rms_bound = fp8_rms_bound<Gemm>(op, ref, alpha, bits);
      r.passed = r.passed && r.rms_error <= r.rms_bound;  // a NaN rms_error fails too
      row.rms_error = r.rms_error;
      row.rms_bound = r.rms_bound;
    }
    if (!r.passed) std::printf("%s %s: %s set: %s\n", Gemm::name, tc::ElementTraits<Out>::name,
                               set == tc::Fp8Set::Exact ? "exact" : "random", r.summary().c_str());
    // Restore C's input for whoever runs next on it.
    if (beta != 0.0f) c.upload(c_in);
    return std::make_pair(r.passed, got);
  };

  tc::GemmReference ref;
  {
    const tc::Fp8Operands<Fp8> ex = make(tc::Fp8Set::Exact, o.seed);
    const Fp8DeviceOperands<Fp8> d(ex);
    row.exact_ok = check(tc::Fp8Set::Exact, ex, d, tc::Tolerance::exact_operands<Out>(), ref).first;
  }
  const tc::Fp8Operands<Fp8> rnd = make(tc::Fp8Set::Random, o.seed + 1);
  const Fp8DeviceOperands<Fp8> d(rnd);
  const auto [random_ok, got] = check(tc::Fp8Set::Random, rnd, d, tc::fp8_unpromoted_tolerance<Out>(), ref);
  row.random_ok = random_ok;
  row.errors = tc::fp8_errors(m, n, got.data(), m, ref);

  // The yardsticks, on the random set's operands and scales.
  const tc::Timing timing{o.warmup, o.repeats, o.rest_ms};
  auto time = [&](auto&& fn) { return timing.median_ms(fn); };
  const tc::Fp8Scaling scaling = kBlock ? tc::Fp8Scaling::Block : tc::Fp8Scaling::PerTensor;
  auto plan = [&](tc::Fp8Accumulation acc) {
    return std::make_unique<tc::CublasLtFp8Matmul<Fp8, Out>>(driver.cublaslt(), m, n, k, ld, ld, m, alpha, beta,
                                                              d.sa.data(), d.sb.data(), scaling, acc);
  };
  const auto exact = plan(tc::Fp8Accumulation::Exact);
  const auto fast = kBlock ? nullptr : plan(tc::Fp8Accumulation::Fast);
  const tc::CublasLtFp8Matmul<Fp8, Out>& first_plan = kBlock ? *exact : *fast;  // the like-for-like accumulation
  if (first_plan.algorithms() > 0) {  // cuBLASLt's error on the same operands, from C's same input
    std::vector<double> c_double;
    if (beta != 0.0f) c.upload(fp8_c_input<Out>(s, tc::Fp8Set::Random, o.seed + 7, c_double));
    first_plan.run(0, d.a.data(), d.b.data(), c.data());
    row.lt_errors = tc::fp8_errors(m, n, c.download().data(), m, ref);
  }
  row.ms = time([&] { launch(rnd, d); });
  if (previous != nullptr) {
    row.fast = previous->fast;
    row.exact = previous->exact;
    return row;
  }
  if (fast) row.fast = tc::time_lt_plan(*fast, time, d.a.data(), d.b.data(), c.data());
  row.exact = tc::time_lt_plan(*exact, time, d.a.data(), d.b.data(), c.data());
  return row;
}

// The fp8 table: TFLOP/s and % of each yardstick, of `ceiling` (the k32 wgmma ceiling measured in this process,
// TFLOP/s) and of `peak` (a datasheet's, described in the legend by peak_what), then the checks and the errors.
inline void print_fp8_rows(const std::vector<Fp8Row>& rows, const tc::RunOptions& o, double ceiling, double peak,
                           const char* peak_what) {
  if (rows.empty()) return;
  std::printf("\n== fp8: e4m3 in, fp32 accumulate, bf16 D, A row-major, B column-major (cuBLASLt: TN) ==\n");
  std::printf("%-16s %-18s %9s %9s %11s %11s %11s %11s %8s %8s\n", "size", "kernel", "ms", "TFLOP/s", "%LtFast1st",
              "%LtFastBst", "%Lt1st", "%LtBst", "%ceil", "%peak");
  auto pct = [](double lt_ms, double ms) {
    char text[16] = "-";
    if (lt_ms > 0.0) std::snprintf(text, sizeof text, "%.1f%%", 100.0 * lt_ms / ms);
    return std::string(text);
  };
  auto size_of = [](const Fp8Row& r) {
    return std::to_string(r.size.m) + "x" + std::to_string(r.size.n) + "x" + std::to_string(r.size.k);
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Fp8Row& r = rows[i];
    const double flops = tc::gemm_flops(r.size.m, r.size.n, r.size.k);
    const double rate = tc::tflops(flops, r.ms);
    std::printf("%-16s %-18s %9.4f %9.1f %11s %11s %11s %11s %7.1f%% %7.1f%%\n", size_of(r).c_str(), r.kernel.c_str(),
                r.ms, rate, pct(r.fast.first_ms, r.ms).c_str(), pct(r.fast.best_ms, r.ms).c_str(),
                pct(r.exact.first_ms, r.ms).c_str(), pct(r.exact.best_ms, r.ms).c_str(), 100.0 * rate / ceiling,
                100.0 * rate / peak);
    if (i + 1 < rows.size() && rows[i + 1].size == r.size && rows[i + 1].block == r.block) continue;
    // The yardsticks, after the last step that shares them.
    if (!r.block)
      std::printf("%-16s %-18s %9.4f %9.1f   (cuBLASLt, per-tensor scales, fast accumulation, best of %d)\n", "",
                  "cuBLASLt fast", r.fast.best_ms, tc::tflops(flops, r.fast.best_ms), r.fast.candidates);
    std::printf("%-16s %-18s %9.4f %9.1f   (cuBLASLt, %s, best of %d)\n", "", r.block ? "cuBLASLt block" : "cuBLASLt",
                r.exact.best_ms, tc::tflops(flops, r.exact.best_ms),
                r.block ? "1 x 128 and 128 x 128 block scales" : "per-tensor scales, exact accumulation",
                r.exact.candidates);
  }
  std::printf("%% Lt: cuBLASLt's time over the kernel's, with the kernel's scaling: per-tensor scales with fast "
              "accumulation (LtFast) or without (Lt), or block scales (Lt); the heuristic's first algorithm (1st) or "
              "the fastest of its first %d, timed again (Bst); 64 MiB workspace. %%ceil: of the k32 wgmma ceiling "
              "above (%.1f TFLOP/s); %%peak: of %s. Median of %d launches after %d warm-up, each timing after %d ms "
              "idle.\n",
              tc::kLtCandidates, ceiling, peak_what, o.repeats, o.warmup, o.rest_ms);
  std::printf("\n== fp8 checks against fp64: the exact set (integers; scales 1/8 and 4, or blocks' in {1/2, 1, 2}) and "
              "the random set (uniform [-1, 1), blocks times 2^-4 .. 2^4 for block scaling; amax scales) ==\n");
  std::printf("%-16s %-18s %6s %7s %11s %11s %12s %11s %14s %12s\n", "size", "kernel", "exact", "random", "rms error",
              "rms bound", "rel. error", "max |err|", "Lt rel. error", "Lt max |err|");
  for (const Fp8Row& r : rows)
    std::printf("%-16s %-18s %6s %7s %11.3e %11.3e %12.3e %11.3e %14.3e %12.3e\n", size_of(r).c_str(),
                r.kernel.c_str(), r.exact_ok ? "PASS" : "FAIL", r.random_ok ? "PASS" : "FAIL", r.rms_error,
                r.rms_bound, r.errors.relative, r.errors.max_abs, r.lt_errors.relative, r.lt_errors.max_abs);
  std::printf("rms bound: tc::fp8_statistical_rms_bound with the probe's bits and the step's promotion interval; rel. "
              "error: 1 - 2 sum(x y) / sum(x^2 + y^2) over all elements (DeepGEMM's measure); Lt: cuBLASLt's first "
              "algorithm on the same operands (per-tensor: fast accumulation; block: block scales).\n");
}

// The rows as benchmark-ladder rows of chapter 09 (tc/bench_csv.hpp): no cublasGemmEx column (it has no fp8 GEMM);
// the cuBLASLt column is the like-for-like algorithm, the best of 8 with the kernel's scaling and accumulation
// (per-tensor: fast accumulation for step 1, exact for step 3; block scales for step 4). Precisions: "e4m3->bf16",
// and "e4m3 block->bf16" for block scales, whose yardstick differs.
inline std::vector<tc::BenchRow> fp8_ladder_rows(const std::vector<Fp8Row>& rows) {
  std::vector<tc::BenchRow> out;
  for (const Fp8Row& r : rows) {
    tc::BenchRow b;
    b.chapter = "09";
    b.kernel = r.kernel;
    b.precision = r.block ? "e4m3 block->bf16" : "e4m3->bf16";
    b.layout = "TN";
    b.shape = r.size;
    b.ms = r.ms;
    b.cublas_ms = 0.0;
    b.passed = r.exact_ok && r.random_ok;
    const bool fast = !r.block && r.kernel.rfind("1 ", 0) == 0;  // step 1 accumulates as fast accumulation does
    b.lt_best_ms = fast ? r.fast.best_ms : r.exact.best_ms;
    out.push_back(b);
  }
  return out;
}
