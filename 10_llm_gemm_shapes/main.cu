// Chapter 10: GEMMs at the shapes LLMs run. The linear layers of Llama-3-8B and -70B at 1 to 8192 tokens (the suite,
// which the steps were tuned on) and of eight other models (the held-out suite, which they never were), bf16 in and
// out, each verified and timed beside cublasGemmEx and cuBLASLt with a cold L2, as a model step finds it.
//
// Read top to bottom: (1) the command line: which suites, which token counts; (2) on the host, each suite (suite.hpp:
// every layer, its weight's size against the L2; this part runs on any machine); (3) the GPU (an H100 or H200:
// sm_90a code runs on SM 9.0 alone) and the memory of the largest shape; (4) the DRAM ceiling, a device-to-device
// copy, and the L2 flush every timing starts from (tc/flushed_timing.cuh); (5) every shape through every step, each
// a choice from one table of schedules (schedule.hpp; Scheduled launches it, schedules.cuh): 1, chapter 08's kernel
// (step1_chapter08.cuh); 2, small M (step2_small_m.cuh); 3, split-K (step3_split_k.cuh); 4, stream-K
// (step4_stream_k.cuh); 5, the model's choice among them (step5_choice.cuh); each verified and timed, then both
// yardsticks once (suite_run.cuh); (6) a table a step, with the waves that explain it and the summary against each
// yardstick, and with --moe or the full suite step 6's mixture-of-experts table (moe_run.cuh); (7) the verification
// table and the verdict. Exit codes: README.md, "Exit codes".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "moe_routing.hpp"
#include "moe_run.cuh"
#include "schedules.cuh"
#include "step1_chapter08.cuh"
#include "step2_small_m.cuh"
#include "step3_split_k.cuh"
#include "step4_stream_k.cuh"
#include "step5_choice.cuh"
#include "suite.hpp"
#include "suite_run.cuh"

#include "tc/chapter_driver.cuh"
#include "tc/cli.hpp"
#include "tc/flushed_timing.cuh"
#include "tc/gemm_check.hpp"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"

// The DRAM ceiling's copy: 4 GiB each way, large enough that no cache holds any of it.
constexpr std::size_t kCopyBytes = std::size_t(4) << 30;

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The command line: the short suite (Llama-3-8B at 1, 64 and 2048 tokens) by default, the full one (both
    // models, seven token counts, and the MoE table) with --suite full, the held-out one with --suite held-out, the
    // full and the held-out ones with --bench; --tokens replaces the token counts.
    tc::DriverConfig config{tc::this_chapter(), "Chapter 10: GEMMs at the shapes LLMs run",
                            "the linear layers of Llama-3-8B and -70B at 1 to 8192 tokens (bf16 in and out, fp32 "
                            "accumulate), verified and timed with the L2 flushed beside cublasGemmEx and cuBLASLt, "
                            "with the waves that explain each shape.",
                            ""};  // no figures yet
    config.sizes_flag = false;    // the suite names the shapes
    config.default_repeats = 20;
    config.rest_flag = true;
    config.default_rest_ms = 100;  // under --bench: 106 shapes x 11 timings, so the rests stay near two minutes
    config.bench_flag = true;      // --bench: the full suite, the held-out one and the MoE table (docs/results)
    tc::GemmDriver driver(config);
    tc::Cli& cli = driver.cli();
    cli.add_choice("suite", "short", {"short", "full", "held-out"},
                   "short: Llama-3-8B at 1, 64 and 2048 tokens; full: both models at 1, 16, 64, 128, 512, 2048 and "
                   "8192 tokens; held-out: 25 layers of 8 other models at token counts drawn from 1 to 8192, never "
                   "tuned on (suite.hpp); --bench runs full, then held-out");
    cli.add_string("tokens", "", "token counts M (comma-separated, each >= 1) instead of the suite's");
    cli.add_string("shapes", "", "instead of the suite: these shapes, MxNxK (M tokens, an N x K weight), "
                                 "comma-separated");
    cli.add_flag("moe", "also run step 6's mixture-of-experts table (always with --suite full)");
    cli.add_string("groups", "", "instead of the Zipf draw: the routed rows of each expert for the MoE table "
                                 "(comma-separated, summing to 8192, at most 64 groups)");
    cli.add_flag("no-yardsticks", "verify and time the steps alone (the sanitizer runs: racecheck reports hazards "
                                  "inside cuBLASLt's own kernels, which are not this chapter's code)");
    // The chapter's own flags become sets of shapes and MoE layers before the run header, so that a bad one's error
    // is the first line printed. The MoE layers: the four of kMoeConfigs, routed by the Zipf draw, or the two weights
    // with --groups' rows. A set's name heads its tables and summaries: "" for the suite and for --shapes.
    std::vector<std::pair<std::string, std::vector<SuiteShape>>> sets;
    std::vector<std::pair<MoeConfig, std::vector<int>>> moe_layers;
    const auto check_flags = [&] {
      const bool bench = cli.get_flag("bench") && !cli.given("suite");
      const bool full = cli.get_choice("suite") == "full" || bench;
      const bool held_out = cli.get_choice("suite") == "held-out" || bench;
      const std::string tokens = cli.get_string("tokens"), custom = cli.get_string("shapes");
      const std::vector<int> given = tokens.empty() ? std::vector<int>{} : tc::parse_int_list("tokens", tokens);
      if (!custom.empty()) {
        std::vector<SuiteShape> shapes;
        for (const tc::GemmShape& g : tc::parse_gemm_shapes("shapes", custom))
          shapes.push_back({g.m, LinearLayer{"-", "custom", g.n, g.k}});
        sets.push_back({"", shapes});
      } else {
        if (full || !held_out) sets.push_back({"", suite(full, !given.empty() ? given : full ? kSuiteTokens
                                                                                            : kShortSuiteTokens)});
        if (held_out) sets.push_back({"held-out", held_out_suite(given)});
      }
      if (const std::string groups = cli.get_string("groups"); !groups.empty()) {
        const std::vector<int> sizes = moe::parse_group_sizes(groups, kMoeTokens * kMoeTopK, grouped::kMaxGroups);
        for (const MoeConfig& c : {kMoeConfigs[0], kMoeConfigs[1]})
          moe_layers.push_back({MoeConfig{int(sizes.size()), c.n, c.k}, sizes});
      } else if (full || cli.get_flag("moe")) {
        for (const MoeConfig& c : kMoeConfigs)
          moe_layers.push_back({c, moe::zipf_routing(kMoeTokens, kMoeTopK, c.experts, kMoeZipf, kMoeSeed)});
      }
    };
    if (!driver.parse(argc, argv, check_flags)) return tc::kExitOk;
    const bool yardsticks = !cli.get_flag("no-yardsticks");
    const tc::RunOptions& o = driver.options();
    tc::MemoryNeed largest;  // one shape's operands live at a time
    for (const auto& [set, shapes] : sets)
      for (const SuiteShape& s : shapes) {
        const tc::MemoryNeed need = shape_memory(s, o.beta);
        largest.host_bytes = std::max(largest.host_bytes, need.host_bytes);
        largest.device_bytes = std::max(largest.device_bytes, need.device_bytes);
      }
    for (const auto& [c, sizes] : moe_layers)
      largest.device_bytes = std::max(largest.device_bytes, moe_memory(c, kMoeTokens * kMoeTopK).device_bytes);
    largest = largest + tc::MemoryNeed{0, 2 * kCopyBytes};  // and the DRAM copy's two buffers
    const std::string what = "the largest shape's operands, references and the DRAM copy";
    tc::require_host_memory(what, largest, tc::kSm90MostDeviceBytes);  // refused with or without a GPU (exit 6)
    driver.print_header();

    // (2) The suite, on the host. (3) Everything after needs an SM 9.0 GPU and the memory: else exit 77 or 6.
    for (const auto& [set, shapes] : sets) print_suite_plan(set, shapes);
    const tc::DeviceInfo gpu = driver.require_gpu("chapter 10 (warp-specialized wgmma kernels, sm_90a)");
    tc::require_memory(what, largest);

    // (4) The DRAM ceiling, and the flush.
    const double dram_gbps = tc::measure_copy_gbps(kCopyBytes, 10);
    const tc::L2Flush flush;
    std::printf("\n== the DRAM ceiling: cudaMemcpyAsync device to device, %.0f GiB, bytes read + written ==\n"
                "%.0f GB/s (median of 10 copies); the L2: %.0f MiB, flushed before every timed launch by a read of "
                "%.0f MiB (tc/flushed_timing.cuh)\n",
                double(kCopyBytes) / (1 << 30), dram_gbps, double(flush.l2_bytes()) / (1 << 20),
                double(flush.bytes()) / (1 << 20));
    const tc::FlushedTiming timing{&flush, o.warmup, o.repeats, o.rest_ms};

    // (5) Every shape through every step: verified, then timed, and the yardsticks timed once.
    std::printf("\n== every shape through every step: verified, then timed; then cublasGemmEx and cuBLASLt "
                "(suite_run.cuh) ==\n");
    std::vector<tc::VerificationRow> checks;
    std::vector<std::vector<std::vector<ShapeResult>>> results;  // results[set][i]: step i + 1's rows, one a shape
    for (const auto& [set, shapes] : sets)
      results.push_back(run_set<Scheduled<Step1Chapter08>, Scheduled<Step2SmallM>, Scheduled<Step3SplitK>,
                                Scheduled<Step4StreamK>, Scheduled<Step5Choice>>(
          driver.cublas(), driver.cublaslt(), set, shapes, o.alpha, o.beta, o.seed, timing, gpu.multiprocessors,
          yardsticks, checks));

    // (5b) Step 6 on the MoE layers: every group verified, then timed beside cuBLAS's grouped GEMM.
    std::vector<MoeResult> moe_rows;
    for (const auto& [c, sizes] : moe_layers) {
      const auto start = std::chrono::steady_clock::now();
      moe_rows.push_back(run_moe(driver.cublas(), c, sizes, o.seed, timing, yardsticks));
      const std::string name = "MoE " + std::to_string(c.experts) + " x " + std::to_string(c.n) + "x" +
                               std::to_string(c.k) + " step 6";
      checks.push_back({name, moe_rows.back().verdict, 1.0});
      std::printf("[%s] %s, %.1f s\n", name.c_str(), moe_rows.back().verdict.passed() ? "PASS" : "FAIL",
                  seconds_since(start));
      std::fflush(stdout);
    }

    // (6) A table and its summary a step, and the MoE table. (7) The verification table and the verdict.
    for (std::size_t set = 0; set < sets.size(); ++set)
      for (const std::vector<ShapeResult>& rows : results[set])
        print_suite(sets[set].first, rows, dram_gbps, timing, flush.bytes());
    if (!moe_rows.empty()) print_moe(moe_rows, timing, double(flush.bytes()));
    std::printf("\n== verification: integer operands checked exactly, random ones against fp64 (tc/gemm_check.hpp, "
                "made on the GPU: tc/device_gemm_check.cuh) ==\n");
    tc::print_verification("shape and step", checks);
    bool all_ok = true;
    for (const tc::VerificationRow& c : checks) all_ok &= c.verdict.passed();
    return tc::GemmDriver::finish(all_ok);
  });
}
