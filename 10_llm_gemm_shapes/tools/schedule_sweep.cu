// 10_schedule_sweep: every schedule the chapter has, measured on every suite shape, so that a choice among them (step
// 5) can be held to the fastest one measured.
//
// The schedules: chapter 08's kernel (step 1, whole cluster tiles), stream-K over its tall tiles (step 4's kernel, at
// any token count), and the 64-weight tiles of steps 2 and 3 with wgmma's N from the tokens (BN: Step2SmallM::block_n,
// at most 256, so that more tokens take more column tiles) or half of it, each in 1, 2 or 4 splits of K (a split
// keeps 8 slices at least; 1 split is step 2's kernel), and step 5's wide tile (the tokens in wgmma's M, the weights
// in its N at the width wide_width picks) and pair tile (128 weights by the token tile pair_block_n picks), from 33
// tokens. The small and pair tiles run up to 1024 tokens, the wide tile up to 2048.
// For each shape it verifies every schedule (tc/device_gemm_check.cuh: integer operands exactly, random ones against
// fp64) and times it with the L2 flushed before every launch (tc/flushed_timing.cuh), beside one read of the weights
// under the same flush, and prints each time, the fastest, and step 5's choice (step5_choice.cuh: the model's
// estimates) with the fastest time over the choice's: how far the model is from the best measured, summed up as a
// geomean and the worst shape. Off the teaching path: docs/10 quotes it.
// Usage: 10_schedule_sweep [--suite short|full|held-out] [--tokens 1,16,...] [--warmup 5] [--repeats 20]
// [--rest-ms 20].
// Exit codes: README.md, "Exit codes" (1 on a mismatch).
#include "schedules.cuh"
#include "step1_chapter08.cuh"
#include "step2_small_m.cuh"
#include "step3_split_k.cuh"
#include "step4_stream_k.cuh"
#include "step5_choice.cuh"
#include "suite.hpp"
#include "suite_run.cuh"  // time_weight_read
#include "tools/sweep_driver.hpp"

#include "tc/device_gemm_check.cuh"
#include "tc/flushed_timing.cuh"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"
#include "tc/text_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

using T = __nv_bfloat16;
using Launch = std::function<void(const T* A, const T* B, T* C)>;  // C = A B, as suite.hpp maps a shape

// The columns of the table: one a schedule, in this order; an empty launch where a schedule does not apply.
struct Column {
  std::string label;
  Launch launch;
};

const char* const kColumns[] = {"ch08",    "stream-K", "BN",   "BN s2", "BN s4",
                                "BN/2",    "BN/2 s2",  "BN/2 s4", "wide", "pair"};

// Every column's launch at p: chapter 08 and stream-K at any token count, the narrow tiles where step 5's model
// considers them (estimate_schedules), each through the launcher step 5 would call (launch_schedule).
std::vector<Column> columns(const tc::GemmProblem& p) {
  std::vector<ScheduleEstimate> runs = estimate_schedules(p.m, p.n, p.k, current_machine());
  ScheduleEstimate stream_k;  // step 4's kernel at every token count, not only where step 5 weighs it
  stream_k.kind = ScheduleKind::StreamK;
  runs.push_back(stream_k);
  std::vector<Column> out;
  for (const char* label : kColumns) {
    const auto e =
        std::find_if(runs.begin(), runs.end(), [&](const ScheduleEstimate& r) { return r.label() == label; });
    if (e == runs.end()) {
      out.push_back({label, Launch{}});
      continue;
    }
    out.push_back({label, [p, e = *e](const T* A, const T* B, T* C) {
                     launch_schedule(e, p.m, p.n, p.k, 1.0f, A, p.lda, B, p.ldb, 0.0f, C, p.ldc, nullptr);
                   }});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    tc::GemmDriver driver(sweep_config("10_schedule_sweep",
                                       "10_schedule_sweep: every schedule of the chapter on every suite shape",
                                       "times chapter 08's kernel, stream-K, the 64-weight tiles (BN and BN/2 "
                                       "columns, 1, 2 and 4 splits), the wide tile and the pair tile on every suite "
                                       "shape, verified, with the L2 flushed; prints the fastest."));
    add_suite_flag(driver, true);
    driver.cli().add_string("tokens", "", "token counts M (comma-separated, each >= 1) instead of the suite's");
    if (!driver.parse(argc, argv)) return tc::kExitOk;
    const std::string tokens_text = driver.cli().get_string("tokens"), which = driver.cli().get_choice("suite");
    const std::vector<int> tokens =
        tokens_text.empty() ? std::vector<int>{} : tc::parse_int_list("tokens", tokens_text);
    const bool held_out = which == "held-out";
    const std::vector<SuiteShape> shapes =
        held_out ? held_out_suite(tokens) : suite(which == "full", tokens.empty() ? kSuiteTokens : tokens);
    const tc::RunOptions& o = driver.options();
    const tc::DeviceInfo gpu = driver.require_gpu("10_schedule_sweep (wgmma kernels, sm_90a)");
    const tc::L2Flush flush;
    const tc::FlushedTiming timing{&flush, o.warmup, o.repeats, o.rest_ms};

    tc::Table t;
    for (const char* h : {"model", "layer", "M", "N", "K"}) t.column(h, false);
    t.column("BN", true);
    t.column("W read ms", true);
    for (const char* label : kColumns) t.column(label, true);
    t.column("fastest", false);
    t.column("model", false);
    t.column("fastest / model", true);
    bool all_ok = true;
    double log_sum = 0.0, worst = 2.0;
    std::string worst_shape;
    for (const SuiteShape& s : shapes) {
      const tc::GemmProblem p = s.problem();
      tc::DeviceExactCheck<T, T> exact(driver.cublas(), p, o.seed + 10);
      tc::DeviceRandomOperands<T, T> random(driver.cublas(), p, o.seed);
      std::vector<std::string> cells = {s.layer.model, s.layer.name, std::to_string(s.m), std::to_string(s.n()),
                                        std::to_string(s.k()), std::to_string(Step2SmallM::block_n(s.m))};
      cells.push_back(tc::fixed(time_weight_read(random.a(), std::size_t(s.weight_bytes()), gpu.multiprocessors,
                                                 timing), 4));
      double best_ms = -1.0, chosen_ms = -1.0;
      std::string best;
      const std::string chosen = choose_schedule(p.m, p.n, p.k, current_machine()).label();
      for (const Column& schedule : columns(p)) {
        if (!schedule.launch) {
          cells.push_back("-");
          continue;
        }
        const tc::GemmVerdict v = tc::check_gemm(exact, random, schedule.launch);
        if (!v.passed()) {
          all_ok = false;
          std::printf("FAIL %s, %s: %s | %s\n", s.name().c_str(), schedule.label.c_str(), v.exact.summary().c_str(),
                      v.random.summary().c_str());
        }
        random.reset_c();
        const double ms = timing.median_ms([&] { schedule.launch(random.a(), random.b(), random.c()); });
        cells.push_back(tc::fixed(ms, 4));
        if (best_ms < 0.0 || ms < best_ms) best_ms = ms, best = schedule.label;
        if (schedule.label == chosen) chosen_ms = ms;
      }
      cells.push_back(best);
      cells.push_back(chosen);
      const double ratio = best_ms / chosen_ms;  // the chosen schedule is always one of the columns
      cells.push_back(tc::fixed(ratio, 3));
      log_sum += std::log(ratio);
      if (ratio < worst) worst = ratio, worst_shape = s.name();
      t.row(cells);
      std::printf("[%s] done\n", s.name().c_str());
      std::fflush(stdout);
    }
    std::printf("\n== every schedule on %s (%d SMs): ms, median of %d launches after %d warm-up, the L2 flushed before "
                "every launch by a read of %.0f MiB, every run verified ==\n",
                gpu.name.c_str(), gpu.multiprocessors, o.repeats, o.warmup, double(flush.bytes()) / (1 << 20));
    std::printf("%s", t.format().c_str());
    std::printf("BN: wgmma's N for the tokens (at most 256: more tokens take more column tiles); W read ms: one read "
                "of the weights alone (the floor at one token); ch08: chapter 08's kernel (step 1); stream-K: step "
                "4's kernel; BN, BN/2: 64-weight tiles that wide, in 1 split (step 2's kernel) or sN splits of K "
                "(step 3's); wide: step 5's wide tile, the tokens in wgmma's M and the weights in its N, at the width "
                "step 5 picks; pair: step 5's pair tile, 128 weights by the token tile step 5 picks; -: not run (a "
                "split under %d slices, over %d tokens (the wide tile: %d), or under %d tokens for the wide and "
                "pair tiles)\n",
                kMinSlicesPerSplit, kNarrowMaxTokens, kWideMaxTokens, kWideMinTokens);
    std::printf("model: step 5's choice (step5_choice.cuh); fastest / model: the fastest time over the choice's (1: "
                "the model chose the fastest)\nthe model over %d %sshapes: geomean %.3f of the fastest measured, "
                "worst %.3f (%s)\n",
                int(shapes.size()), held_out ? "held-out " : "", std::exp(log_sum / double(shapes.size())), worst,
                worst_shape.c_str());
    return tc::GemmDriver::finish(all_ok);
  });
}
