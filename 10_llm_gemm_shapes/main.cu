// Chapter 10: GEMMs at the shapes LLMs run. The linear layers of Llama-3-8B and -70B at 1 to 8192 tokens (the suite,
// which the steps were tuned on) and of eight other models (the held-out suite, which they never were), bf16 in and
// out, each verified and timed beside cublasGemmEx and cuBLASLt with a cold L2, as a model step finds it.
//
// Read top to bottom: (1) the command line: which suites, which token counts; (2) on the host, each suite (suite.hpp:
// every layer, its weight's size against the L2; this part runs on any machine); (3) the GPU (an H100 or H200:
// sm_90a code runs on SM 9.0 alone) and the memory of the largest shape; (4) the DRAM ceiling, a device-to-device
// copy, and the L2 flush every timing starts from (tc/flushed_timing.cuh); (5) every shape through every step (1:
// chapter 08's kernel, step1_chapter08.cuh; 2: small M, step2_small_m.cuh; 3: split-K, step3_split_k.cuh; 4:
// stream-K, step4_stream_k.cuh; 5: the model's choice among them, step5_choice.cuh), each verified and timed, then
// both yardsticks once (suite_run.cuh); (6) a table a step, with the waves that explain it and the summary against
// each yardstick, and with --moe or the full suite step 6's mixture-of-experts table (moe_run.cuh); (7) the
// verification table and the verdict. Exit codes: README.md, "Exit codes".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "step1_chapter08.cuh"
#include "step2_small_m.cuh"
#include "step3_split_k.cuh"
#include "step4_stream_k.cuh"
#include "step5_choice.cuh"
#include "moe_routing.hpp"
#include "moe_run.cuh"
#include "suite.hpp"
#include "suite_run.cuh"

#include "tc/chapter_driver.cuh"
#include "tc/cli.hpp"
#include "tc/flushed_timing.cuh"
#include "tc/gemm_check.hpp"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"
#include "tc/text_table.hpp"

namespace {

// The DRAM ceiling's copy: 4 GiB each way, large enough that no cache holds any of it.
constexpr std::size_t kCopyBytes = std::size_t(4) << 30;

// (2) The suite's layers, their weights against the L2 (a weight that fits would be read from the L2, not DRAM, by a
// warm timing), and the token counts.
void print_suite_plan(const std::string& set, const std::vector<SuiteShape>& shapes) {
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

// (6b) The mixture-of-experts table: a row a configuration, step 6 against cuBLAS's grouped GEMM.
void print_moe(const std::vector<MoeResult>& rows, const tc::FlushedTiming& timing, double flush_bytes) {
  std::printf("\n== step 6, grouped GEMM for mixture-of-experts: %d tokens, top-%d, %d routed rows sorted by expert, "
              "y_g^T = W_g x_g^T per expert (moe_run.cuh); median of %d launches after %d warm-up, the L2 flushed "
              "before every launch by a read of %.0f MiB ==\n",
              kMoeTokens, kMoeTopK, kMoeTokens * kMoeTopK, timing.repeats, timing.warmup, flush_bytes / (1 << 20));
  tc::Table t;
  for (const char* h : {"experts", "N", "K"}) t.column(h, true);
  t.column("rows a group", false);
  for (const char* h : {"empty", "tiles", "ms", "TFLOP/s", "cuBLAS grouped ms", "% cuBLAS grouped"}) t.column(h, true);
  t.column("verdict", false);
  for (const MoeResult& r : rows) {
    int rows_all = 0, empty = 0, least = 1 << 30, most = 0;
    for (int m : r.sizes) {
      rows_all += m, empty += m == 0 ? 1 : 0;
      if (m > 0) least = std::min(least, m);
      most = std::max(most, m);
    }
    const double tflops = 2.0 * rows_all * double(r.config.n) * r.config.k / (r.ms * 1e-3) / 1e12;
    t.row({std::to_string(r.config.experts), std::to_string(r.config.n), std::to_string(r.config.k),
           std::to_string(least) + " to " + std::to_string(most), std::to_string(empty), std::to_string(r.tiles),
           tc::fixed(r.ms, 4), tc::fixed(tflops, 1), r.cublas_ms > 0.0 ? tc::fixed(r.cublas_ms, 4) : "-",
           r.cublas_ms > 0.0 ? tc::fixed(100.0 * r.cublas_ms / r.ms, 1) + "%" : "-",
           r.verdict.passed() ? "PASS" : "FAIL"});
  }
  std::printf("%s", t.format().c_str());
  std::printf("rows a group: the fewest and most rows of a non-empty group; empty: groups with no rows (they have no "
              "tiles, and cuBLAS gets no problem for them); tiles: step 6's 64 x BN tiles over all groups, on a grid "
              "of one block a slot; %% cuBLAS grouped: cublasGemmGroupedBatchedEx's time (one problem a non-empty "
              "group) over step 6's; above 100%%: step 6 is faster\n");
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The command line: the short suite (Llama-3-8B at 1, 64 and 2048 tokens) by default, the full one (both
    // models, seven token counts, and the MoE table) with --suite full, the held-out one with --suite held-out, the
    // full and the held-out ones with --bench; --tokens replaces the token counts.
    tc::DriverConfig config{tc::this_chapter(),
                            "Chapter 10: GEMMs at the shapes LLMs run",
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
    for (const auto& [set, shapes] : sets) {
      std::vector<std::vector<ShapeResult>>& steps = results.emplace_back();
      for (const SuiteShape& s : shapes) {
        const auto start = std::chrono::steady_clock::now();
        const std::vector<ShapeResult> rows =
            run_shape<Step1Chapter08, Step2SmallM, Step3SplitK, Step4StreamK, Step5Choice>(
                driver.cublas(), driver.cublaslt(), s, o.alpha, o.beta, o.seed, timing, gpu.multiprocessors,
                yardsticks);
        steps.resize(rows.size());
        std::string verdicts;
        for (std::size_t i = 0; i < rows.size(); ++i) {
          steps[i].push_back(rows[i]);
          checks.push_back({s.name() + " step " + rows[i].kernel, rows[i].verdict, o.alpha});
          verdicts += std::string(i > 0 ? ", " : "") + "step " + rows[i].kernel + " " +
                      (rows[i].verdict.passed() ? "PASS" : "FAIL");
        }
        std::printf("[%s%d/%d] %-28s %s, %.1f s\n", set.empty() ? "" : (set + " ").c_str(), int(steps[0].size()),
                    int(shapes.size()), s.name().c_str(), verdicts.c_str(), seconds_since(start));
        std::fflush(stdout);  // a long suite shows its progress
      }
    }

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
