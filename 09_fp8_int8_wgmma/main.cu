// Chapter 09: 8-bit wgmma. FP8 (e4m3) with per-tensor scales (steps 1 and 3: the fp8 accumulator over all of K, and
// promoted to fp32 every 128), with DeepSeek-V3's block scales (step 4), and INT8 (s8, u8; step 5), on chapter 08's
// machinery, each verified and timed beside the best cuBLAS/cuBLASLt algorithm for it.
//
// Read top to bottom: (1) the command line and the steps; (2) on the host, what an 8-bit slice is and the exact
// set's operand range at each size (this part runs on any machine); (3) the GPU (an H100 or H200: sm_90a code runs on
// SM 9.0 alone) and the memory, then step 2's probe of the fp8 accumulator (with --error-vs-k, then the error against
// K alone, and the run ends there) and the k32 wgmma ceiling; (4) the fp8 steps, verified on small integers exactly
// and on random reals against fp64, timed beside cuBLASLt's fp8 GEMM with the same scaling (fp8_run.cuh); (5) the
// int8 step, verified exactly and timed beside cublasGemmEx and cuBLASLt, by the driver; (6) the verdict. Exit codes:
// README.md, "Exit codes".
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "error_vs_k.cuh"
#include "explain.cuh"
#include "fp8_run.cuh"
#include "probes.cuh"
#include "step1_fp8_per_tensor.cuh"
#include "step3_promotion.cuh"
#include "step4_block_scaling.cuh"
#include "step5_int8.cuh"

#include "tc/chapter_driver.cuh"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"
#include "tc/precisions_8bit.hpp"
#include "tc/wgmma_ceiling_timing.cuh"

namespace {

// Step 5 at precision P, as one driver group: A row-major (op T), B column-major (op N), the int8 GEMM's "TN".
template <typename P>
tc::DriverGroup<typename P::Input, std::int32_t> int8_group() {
  return {P::name, tc::Op::T, tc::Op::N, {tc::driver_kernel<Gemm8<Step5Int8, Step5Tile, P>>()}};
}

// The probe's table: for each gap g, whether 2^16 + 2^(16 - g) and 2^16 - 2^(16 - g) came out exact, with the small
// product in the large one's instruction and in the next. Returns the bits the additions keep (the fewer of the two
// placements'); the exact checks' premise is that they keep at least tc::kFp8AccumulatorBits.
int print_accumulator_probe() {
  const AccumulatorProbe same = probe_fp8_accumulator(1), next = probe_fp8_accumulator(32);
  std::printf("\n== probe (probes.cuh): D = 2^16 + s 2^(16 - g) through e4m3 wgmma, the small product in the same k32 "
              "instruction or the next ==\n");
  std::printf("%4s %22s %22s %22s %22s\n", "g", "same, s = +1", "same, s = -1", "next, s = +1", "next, s = -1");
  for (int g = 0; g <= kProbeMaxGap; ++g) {
    std::printf("%4d", g);
    for (const AccumulatorProbe* p : {&same, &next})
      for (int s = 0; s < 2; ++s) std::printf(" %14.6f %7s", p->value[s][g], p->exact[s][g] ? "exact" : "cut");
    std::printf("\n");
  }
  const int bits = std::min(same.bits_kept(), next.bits_kept());
  std::printf("significand bits kept: %d within one instruction, %d across two; the checks assume at least %d "
              "(tc/fp8_gemm_check.hpp) -> %s\n",
              same.bits_kept(), next.bits_kept(), tc::kFp8AccumulatorBits,
              bits >= tc::kFp8AccumulatorBits ? "holds" : "DOES NOT HOLD");
  return bits;
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The command line: e4m3 runs the fp8 steps with per-tensor scales (1 and 3), e4m3-block the block-scaled
    // one (4), all with bf16 D; s8 and u8 the int8 step.
    tc::DriverConfig config{tc::this_chapter(),
                            "Chapter 09: 8-bit wgmma, FP8 and INT8",
                            "fp8 (e4m3, per-tensor scales, fp32 accumulate, bf16 D) and int8 (s8, u8, s32 accumulate "
                            "and D) GEMMs on wgmma m64nNk32 and chapter 08's warp-specialized machinery, timed against "
                            "cuBLASLt (fp8: fast accumulation on and off) and cublasGemmEx (int8).",
                            "folder to write the chapter's figures into (09_*.svg; 09_error_vs_k.svg with --error-vs-k)",
                            {"e4m3", "e4m3-block", "s8", "u8"},
                            "input precision: e4m3 with per-tensor or (e4m3-block) 1 x 128 and 128 x 128 block scales "
                            "(bf16 D), s8 or u8 (s32 D)"};
    // The demonstration: 2048^3. The fp8 checks quantize and compare on the host, too slow at 4096^3 for a demo.
    config.default_sizes = "2048";
    config.bench_flag = true;
    config.bench_sizes = "4096,8192,8192x14336x4096";  // what docs/results records, each timing after --rest-ms
    config.default_repeats = 20;
    config.rest_flag = true;
    config.default_rest_ms = 200;  // under --bench: enough for the clock to recover between 8-bit timings
    tc::GemmDriver driver(config);
    driver.cli().add_flag("error-vs-k", "instead of the steps: the error of steps 1 and 3 against fp64 for K = 512 .. "
                                        "65536 (error_vs_k.cuh), and its figure where --svg names a folder");
    if (!driver.parse(argc, argv)) return tc::kExitOk;
    if (driver.runs_type("s8") || driver.runs_type("u8")) driver.require_integer_scales("s8 and u8");
    // Block scaling takes K in whole groups of 128: named alone, a size that breaks it is a usage error (exit 2);
    // under "all", that size runs without the block-scaled step, which the run says.
    const bool block = driver.runs_type("e4m3-block");
    for (const tc::GemmShape& s : driver.options().sizes)
      if (block && s.k % tc::kScaleBlockK != 0 && driver.cli().get_choice("type") == "e4m3-block")
        throw tc::UsageError("--type e4m3-block needs K a multiple of 128 (one scale per 128 values), got K = " +
                             std::to_string(s.k));
    if (driver.runs_type("s8")) driver.add(int8_group<tc::S8S32>());
    if (driver.runs_type("u8")) driver.add(int8_group<tc::U8S32>());
    const tc::RunOptions& o = driver.options();
    // A size too large for this machine, or for any SM 9.0 GPU, is refused now (exit 6), with or without a GPU.
    for (const tc::GemmShape& s : o.sizes)
      if (driver.runs_type("e4m3") || block)
        tc::require_host_memory("fp8 at this size", fp8_memory(s, 2), tc::kSm90MostDeviceBytes);
    driver.print_header();

    // (2) Explain, on the host. (3) Everything after needs an SM 9.0 GPU and the memory: else exit 77 or 6.
    explain(o);
    driver.require_gpu("chapter 09 (8-bit wgmma kernels, sm_90a)");
    using Fp8Step1 = Gemm8<Step1Fp8, Step1Tile, tc::E4M3BF16>;
    using Fp8Step3 = Gemm8<Step3Promotion, Step3Tile, tc::E4M3BF16>;
    using Fp8Step4 = Gemm8<Step4BlockScaling, Step4Tile, tc::E4M3BF16>;
    const bool error_vs_k = driver.cli().get_flag("error-vs-k");
    if (error_vs_k)
      tc::require_memory("the error against K", fp8_memory({kErrorSweepMN, kErrorSweepMN, kErrorSweepLastK}, 4));
    else if (driver.runs_type("e4m3") || block)
      for (const tc::GemmShape& s : o.sizes) tc::require_memory("fp8 at this size", fp8_memory(s, 2));

    // (3b) Step 2's probe: how many bits the fp8 accumulator keeps, within one wgmma and across two.
    bool all_ok = true;
    int bits = 0;
    if (driver.runs_type("e4m3") || block || error_vs_k) {
      bits = print_accumulator_probe();
      all_ok &= bits >= tc::kFp8AccumulatorBits;
    }

    // (3b') Or, with --error-vs-k, step 2's second half alone: the error against K, and its figure.
    if (error_vs_k) {
      const std::vector<ErrorAtK> points = measure_error_vs_k(driver.cublas(), bits, o.seed);
      print_error_vs_k(points);
      if (!o.svg_dir.empty()) tc::write_text_file(o.svg_dir + "/09_error_vs_k.svg", error_vs_k_svg(points));
      for (const ErrorAtK& p : points) all_ok &= p.passed;
      return tc::GemmDriver::finish(all_ok);
    }

    // (3c) The ceiling, in this process: two warpgroups of m64n256k32 wgmmas on a resident slice, one block per SM
    // (tc/wgmma_ceiling.cuh), for e4m3 and s8; the tables report each step's share of it, and of the datasheet's
    // peak, the figure people compare with (docs/external_figures.md).
    const tc::WgmmaCeiling fp8_ceiling = tc::measure_wgmma_ceiling<256, 2, __nv_fp8_e4m3>(o.warmup, o.repeats);
    const tc::WgmmaCeiling s8_ceiling = tc::measure_wgmma_ceiling<256, 2, std::int8_t>(o.warmup, o.repeats);
    std::printf("\n== the k32 wgmma ceiling (tc/wgmma_ceiling.cuh): two m64n256k32 warpgroups, one block per SM ==\n"
                "e4m3: %.1f TFLOP/s, s8: %.1f TOPS (median of %d launches, %.3f and %.3f ms each)\n",
                fp8_ceiling.tflops, s8_ceiling.tflops, o.repeats, fp8_ceiling.median_ms, s8_ceiling.median_ms);
    constexpr double kDatasheetPeak = 1979.0;  // dense fp8 TFLOP/s and int8 TOPS alike
    const char* const peak_what = "the H200 SXM datasheet's dense fp8 and int8 peak, 1979 TFLOP/s or TOPS "
                                  "(docs/external_figures.md)";
    driver.set_ceiling(s8_ceiling.tflops);
    driver.set_peak(kDatasheetPeak, peak_what);

    // (4) The fp8 steps at every size: 1 (the fp8 accumulator over all of K) and 3 (promoted every 128).
    std::vector<Fp8Row> fp8_rows;
    for (const tc::GemmShape& s : o.sizes) {
      if (driver.runs_type("e4m3")) {
        fp8_rows.push_back(run_fp8_step<Fp8Step1>(driver, s, bits));
        fp8_rows.push_back(run_fp8_step<Fp8Step3>(driver, s, bits, &fp8_rows.back()));
      }
      if (block && s.k % tc::kScaleBlockK == 0) fp8_rows.push_back(run_fp8_step<Fp8Step4>(driver, s, bits));
      if (block && s.k % tc::kScaleBlockK != 0)
        std::printf("\n%dx%dx%d: no block-scaled step (K is not a multiple of 128)\n", s.m, s.n, s.k);
    }
    for (const Fp8Row& r : fp8_rows) all_ok &= r.exact_ok && r.random_ok;
    print_fp8_rows(fp8_rows, o, fp8_ceiling.tflops, kDatasheetPeak, peak_what);
    if (!o.csv.empty() && !fp8_rows.empty()) tc::append_bench_csv(o.csv, fp8_ladder_rows(fp8_rows));

    // (5) The int8 step: verified exactly and timed by the driver.
    all_ok &= driver.run();

    // (6) The verdict.
    return tc::GemmDriver::finish(all_ok);
  });
}
