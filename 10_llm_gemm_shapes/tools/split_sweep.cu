// 10_split_sweep: step 3's split count, measured against the choice split_k_choice makes, on every suite shape step 3
// runs (256 tokens or fewer).
//
// For each shape it verifies (tc/device_gemm_check.cuh: integer operands exactly, random ones against fp64) and times,
// with the L2 flushed before every launch (tc/flushed_timing.cuh), step 2's kernel (1 split) and step 3's in clusters
// of 2, 4 and 8 (where each split keeps a slice of K), and one read of the weights alone under the same flush. It
// prints each time, the choice, the fastest, and the choice's time over the fastest's. Off the teaching path: docs/10
// quotes it ("Step 3"), and step 5's chooser will be held to the same comparison.
// Usage: 10_split_sweep [--suite short|full] [--tokens 1,16] [--warmup 5] [--repeats 20] [--rest-ms 20].
// Exit codes: README.md, "Exit codes" (1 on a mismatch).
#include "step3_split_k.cuh"
#include "suite.hpp"
#include "suite_run.cuh"  // time_weight_read
#include "tools/sweep_driver.hpp"

#include "tc/device_gemm_check.cuh"
#include "tc/flushed_timing.cuh"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"
#include "tc/text_table.hpp"

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  return tc::run_main([&] {
    tc::GemmDriver driver(sweep_config("10_split_sweep", "10_split_sweep: step 3's split count against its choice",
                                       "times step 2 (1 split) and step 3 in 2, 4 and 8 splits on every suite shape "
                                       "of 256 tokens or fewer, verified, with the L2 flushed; prints the choice and "
                                       "the fastest."));
    add_suite_flag(driver);
    driver.cli().add_string("tokens", "1,16,64,128", "token counts M (comma-separated, each 1 to 256)");
    if (!driver.parse(argc, argv)) return tc::kExitOk;
    const std::vector<int> tokens = tc::parse_int_list("tokens", driver.cli().get_string("tokens"));
    for (int m : tokens)
      if (m > Step2SmallM::kMaxTokens)
        throw tc::UsageError("--tokens: step 3 splits K at 256 tokens or fewer, got " + std::to_string(m));
    const std::vector<SuiteShape> shapes = suite(driver.cli().get_choice("suite") == "full", tokens);
    const tc::RunOptions& o = driver.options();
    const tc::DeviceInfo gpu = driver.require_gpu("10_split_sweep (wgmma kernels, sm_90a)");
    const tc::L2Flush flush;
    const tc::FlushedTiming timing{&flush, o.warmup, o.repeats, o.rest_ms};

    using T = __nv_bfloat16;
    tc::Table t;
    for (const char* h : {"model", "layer", "M", "N", "K"}) t.column(h, false);
    for (const char* h : {"tiles", "W read ms", "1 split ms", "2 ms", "4 ms", "8 ms", "choice", "fastest",
                          "choice / fastest"})
      t.column(h, true);
    bool all_ok = true;
    for (const SuiteShape& s : shapes) {
      const tc::GemmProblem p = s.problem();
      tc::DeviceExactCheck<T, T> exact(driver.cublas(), p, o.seed + 10);
      tc::DeviceRandomOperands<T, T> random(driver.cublas(), p, o.seed);
      const SplitChoice choice = split_k_choice(p.m, p.n, p.k, gpu.multiprocessors);
      std::vector<std::string> cells = {s.layer.model, s.layer.name, std::to_string(s.m), std::to_string(s.n()),
                                        std::to_string(s.k()), std::to_string(choice.tiles)};
      cells.push_back(tc::fixed(time_weight_read(random.a(), std::size_t(s.weight_bytes()), gpu.multiprocessors,
                                                 timing), 4));
      double choice_ms = -1.0, best_ms = -1.0;
      int best = 0;
      for (int splits : {1, 2, 4, 8}) {
        if (tc::ceil_div(p.k, tc::kSliceK) < splits) {  // a split with no slice at all: not a candidate
          cells.push_back("-");
          continue;
        }
        SplitChoice c = choice;
        c.splits = splits;
        auto launch = [&](const T* A, const T* B, T* C) {
          launch_narrow(c.block_n, c.splits, p.m, p.n, p.k, 1.0f, A, p.lda, B, p.ldb, 0.0f, C, p.ldc, nullptr);
        };
        const tc::GemmVerdict v = tc::check_gemm(exact, random, launch);
        if (!v.passed()) {
          all_ok = false;
          std::printf("FAIL %s, %d splits: %s | %s\n", s.name().c_str(), splits, v.exact.summary().c_str(),
                      v.random.summary().c_str());
        }
        random.reset_c();
        const double ms = timing.median_ms([&] { launch(random.a(), random.b(), random.c()); });
        cells.push_back(tc::fixed(ms, 4));
        if (splits == choice.splits) choice_ms = ms;
        if (best_ms < 0.0 || ms < best_ms) best_ms = ms, best = splits;
      }
      cells.push_back(std::to_string(choice.splits));
      cells.push_back(std::to_string(best));
      cells.push_back(tc::fixed(choice_ms / best_ms, 3));
      t.row(cells);
      std::printf("[%s] done\n", s.name().c_str());
      std::fflush(stdout);
    }
    std::printf("\n== step 3's splits on %s (%d SMs): ms, median of %d launches after %d warm-up, the L2 flushed "
                "before every launch by a read of %.0f MiB, every run verified ==\n",
                gpu.name.c_str(), gpu.multiprocessors, o.repeats, o.warmup, double(flush.bytes()) / (1 << 20));
    std::printf("%s", t.format().c_str());
    std::printf("tiles: step 2's 64-weight tiles; W read ms: one read of the weights alone (the floor at one token); 1 "
                "split: step 2's kernel; choice: split_k_choice's splits (step3_split_k.cuh); fastest: the splits "
                "measured fastest here\n");
    return tc::GemmDriver::finish(all_ok);
  });
}
