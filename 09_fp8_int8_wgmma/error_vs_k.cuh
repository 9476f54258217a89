// Chapter 09 -- the error against K (step 2's second half): how far step 1 (the fp8 accumulator over all of K) and
// step 3 (promoted every 128) land from fp64 as K grows, on random operands, and the figure of it.
//
// Both steps write fp32 D here: a bf16 D's rounding would add the same error to both and hide the accumulator's
// (tc::fp8_statistical_rms_bound's second term). Each K gets fresh operands of the random set (uniform [-1, 1),
// quantized with amax per-tensor scales), M = N = kErrorSweepMN. The errors are DeepGEMM's relative measure and the
// largest absolute error (tc::fp8_errors); each kernel must also pass the random set's checks at its own promotion
// interval, so that the sweep checks what it plots. Host and GPU; the figure is host code.
#pragma once

#include "fp8_run.cuh"
#include "step1_fp8_per_tensor.cuh"
#include "step3_promotion.cuh"

#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device_buffer.hpp"
#include "tc/fp8_gemm_check.hpp"
#include "tc/svg.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

inline constexpr int kErrorSweepMN = 1024;                      // 2^20 elements: enough for the statistics
inline constexpr int kErrorSweepFirstK = 512, kErrorSweepLastK = 65536;  // the issue's range, doubling

struct ErrorAtK {
  int k = 0;
  tc::Fp8Errors unpromoted, promoted;  // step 1, step 3
  bool passed = false;                 // both kernels within their random-set checks
};

// One kernel at one K: the launch into fp32 D, its errors, and its random-set checks (tc/fp8_gemm_check.hpp).
template <typename Gemm>
tc::Fp8Errors sweep_point(const tc::Fp8Operands<__nv_fp8_e4m3>& op, const Fp8DeviceOperands<__nv_fp8_e4m3>& d,
                          const tc::GemmReference& ref, int bits, bool& passed) {
  const int m = op.m, n = op.n, k = op.k;
  tc::DeviceBuffer<float> c(std::size_t(m) * n);
  launch_fp8_per_tensor<Gemm>(m, n, k, 1.0f, d.a.data(), k, op.scale_a, d.b.data(), k, op.scale_b, 0.0f, c.data(),
                              m, nullptr);
  const std::vector<float> got = c.download();
  tc::CompareResult r = tc::compare(m, n, k, got.data(), m, ref, tc::fp8_unpromoted_tolerance<float>());
  passed = passed && r.passed && r.rms_error <= fp8_rms_bound<Gemm>(op, ref, 1.0, bits);
  return tc::fp8_errors(m, n, got.data(), m, ref);
}

// The sweep: K = 512, 1024, ..., 65536 at M = N = kErrorSweepMN. `bits`: what step 2's probe measured. Errors:
// tc::CudaError, std::bad_alloc (about 1.1 GB of host memory at the last K, for the fp64 reference's operands).
inline std::vector<ErrorAtK> measure_error_vs_k(const tc::CublasHandle& cublas, int bits, std::uint64_t seed) {
  using Unpromoted = Gemm8<Step1Fp8, Step1Tile, tc::E4M3F32>;
  using Promoted = Gemm8<Step3Promotion, Step3Tile, tc::E4M3F32>;
  std::vector<ErrorAtK> points;
  for (int k = kErrorSweepFirstK; k <= kErrorSweepLastK; k *= 2) {
    const tc::Fp8Operands<__nv_fp8_e4m3> op =
        tc::make_fp8_operands<__nv_fp8_e4m3>(kErrorSweepMN, kErrorSweepMN, k, tc::Fp8Set::Random, seed + k);
    const Fp8DeviceOperands<__nv_fp8_e4m3> d(op);
    const tc::GemmReference ref = tc::fp8_reference(cublas, op, 1.0, 0.0, {});
    ErrorAtK p;
    p.k = k;
    p.passed = true;
    p.unpromoted = sweep_point<Unpromoted>(op, d, ref, bits, p.passed);
    p.promoted = sweep_point<Promoted>(op, d, ref, bits, p.passed);
    points.push_back(p);
  }
  return points;
}

inline void print_error_vs_k(const std::vector<ErrorAtK>& points) {
  std::printf("\n== error against K (error_vs_k.cuh): e4m3, fp32 D, M = N = %d, random set, against fp64 ==\n",
              kErrorSweepMN);
  std::printf("%8s %18s %18s %18s %18s %8s\n", "K", "step 1 rel. error", "step 3 rel. error", "step 1 max |err|",
              "step 3 max |err|", "checks");
  for (const ErrorAtK& p : points)
    std::printf("%8d %18.3e %18.3e %18.3e %18.3e %8s\n", p.k, p.unpromoted.relative, p.promoted.relative,
                p.unpromoted.max_abs, p.promoted.max_abs, p.passed ? "PASS" : "FAIL");
  std::printf("rel. error: 1 - 2 sum(x y) / sum(x^2 + y^2) (DeepGEMM's measure); checks: both steps within the random "
              "set's checks at their own promotion interval (step 1: K; step 3: 128)\n");
}

// The figure: two log-log panels, the relative error and the largest absolute error against K, step 1 and step 3.
inline std::string error_vs_k_svg(const std::vector<ErrorAtK>& points) {
  constexpr int kPanelW = 360, kPanelH = 240, kLeft = 70, kTop = 40, kGap = 90;
  std::string body;
  auto panel = [&](int x0, const char* title, auto value) {
    double lo = 1e300, hi = 0.0;
    for (const ErrorAtK& p : points)
      for (double v : {value(p.unpromoted), value(p.promoted)})
        if (v > 0.0) lo = std::fmin(lo, v), hi = std::fmax(hi, v);
    const double d0 = std::floor(std::log10(lo)), d1 = std::ceil(std::log10(hi));  // whole decades
    const double span = std::fmax(d1 - d0, 1.0);
    auto px = [&](int k) {
      return x0 + int(kPanelW * std::log2(double(k) / kErrorSweepFirstK) / std::log2(double(kErrorSweepLastK) /
                                                                                      kErrorSweepFirstK));
    };
    auto py = [&](double v) { return kTop + int(kPanelH * (d1 - std::log10(v)) / span); };
    body += tc::svg::text(x0, kTop - 14, title, " font-weight=\"bold\"");
    body += "<rect x=\"" + std::to_string(x0) + "\" y=\"" + std::to_string(kTop) + "\" width=\"" +
            std::to_string(kPanelW) + "\" height=\"" + std::to_string(kPanelH) + "\" fill=\"none\" stroke=\"#999\"/>\n";
    for (double e = d0; e <= d1; e += 1.0)  // decade labels
      body += tc::svg::text(x0 - 48, py(std::pow(10.0, e)) + 4, "1e" + std::to_string(int(e)));
    for (const ErrorAtK& p : points)  // K labels, every other one
      if (int(std::log2(double(p.k))) % 2 == 1)
        body += tc::svg::text(px(p.k) - 14, kTop + kPanelH + 16, std::to_string(p.k));
    for (int which = 0; which < 2; ++which) {
      std::string line;
      for (const ErrorAtK& p : points) {
        const double v = value(which == 0 ? p.unpromoted : p.promoted);
        if (v > 0.0) line += std::to_string(px(p.k)) + "," + std::to_string(py(v)) + " ";
      }
      body += "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" +
              std::string(which == 0 ? "#d62728" : "#1f77b4") + "\" points=\"" + line + "\"/>\n";
    }
    body += tc::svg::text(x0 + kPanelW / 2 - 6, kTop + kPanelH + 34, "K");
  };
  panel(kLeft, "relative error (DeepGEMM's)", [](const tc::Fp8Errors& e) { return e.relative; });
  panel(kLeft + kPanelW + kGap, "largest absolute error", [](const tc::Fp8Errors& e) { return e.max_abs; });
  const int legend_y = kTop + kPanelH + 56;
  body += tc::svg::text(kLeft, legend_y, "red: step 1, the fp8 accumulator over all of K", " fill=\"#d62728\"");
  body += tc::svg::text(kLeft + 400, legend_y, "blue: step 3, promoted every 128", " fill=\"#1f77b4\"");
  return tc::svg::document(2 * kPanelW + kGap + kLeft + 20, legend_y + 16, body);
}
