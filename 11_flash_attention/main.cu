// Chapter 11: a FlashAttention-3-style forward on Hopper. Read top to bottom: the command line, the problem, each
// step verified against the fp32 reference, then timed beside cuDNN; with --bench, the ceilings (ceilings.cuh), then
// the same for every problem of the benchmark (bench.hpp), one line each, and the geomean against cuDNN over the
// suite and over the held-out shapes.
#include "bench.hpp"
#include "ceilings.cuh"
#include "cudnn_sdpa.hpp"
#include "problem.hpp"
#include "run.cuh"

#include "chapter_config.hpp"
#include "tc/cli.hpp"
#include "tc/device.hpp"
#include "tc/exit_codes.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"
#include "tc/timer.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace {

struct Row {
  std::string name;
  double ms = 0.0;
  attention::CheckResult check;
};

struct Timing {
  int warmup, repeats, rest_ms;
};

// One launcher on the problem: checked, then timed (after rest_ms of idle GPU, so that each row starts at the same
// clock).
template <typename T, typename Launch>
Row run_one(const std::string& name, attention::Problem<T>& p, Launch launch, const Timing& t) {
  Row row{name, 0.0, attention::run_and_check(p, launch)};
  tc::rest_gpu(t.rest_ms);
  row.ms = tc::benchmark([&] { launch(p.shape, p.tensors(), cudaStream_t{nullptr}); }, t.warmup, t.repeats).median_ms;
  return row;
}

// Every step on `s`, then cuDNN's SDPA where this binary has it and with_cudnn asks for it (the last row).
template <typename T>
std::vector<Row> run_steps(const attention::Shape& s, bool with_cudnn, const Timing& t) {
  attention::Problem<T> p = attention::make_problem<T>(s, 2026);
  using Tensors = attention::DeviceTensors<T>;
  std::vector<Row> rows;
  rows.push_back(run_one(
      "1 one warpgroup", p,
      [](const attention::Shape& sh, const Tensors& d, cudaStream_t st) { attention::launch_step1(sh, d, st); }, t));
  rows.push_back(run_one(
      "2 warp-specialized", p,
      [](const attention::Shape& sh, const Tensors& d, cudaStream_t st) { attention::launch_step2(sh, d, st); }, t));
  rows.push_back(run_one(
      "3 ping-pong", p,
      [](const attention::Shape& sh, const Tensors& d, cudaStream_t st) { attention::launch_step3(sh, d, st); }, t));
  rows.push_back(run_one(
      "4 softmax under P V", p,
      [](const attention::Shape& sh, const Tensors& d, cudaStream_t st) { attention::launch_step4(sh, d, st); }, t));
  rows.push_back(run_one(
      "5 persistent", p,
      [](const attention::Shape& sh, const Tensors& d, cudaStream_t st) { attention::launch_step5(sh, d, st); }, t));
#if defined(TC_HAVE_CUDNN)
  if (with_cudnn) {  // the yardstick, on the same tensors, held to the same check
    attention::CudnnSdpa sdpa = attention::CudnnSdpa::make<T>(s);
    rows.push_back(run_one("cuDNN SDPA " + attention::CudnnSdpa::version(), p,
                           [&](const attention::Shape&, const Tensors& d, cudaStream_t st) {
                             sdpa.run(d.q, d.k, d.v, d.o, d.lse, st);
                           },
                           t));
  }
#else
  (void)with_cudnn;
#endif
  return rows;
}

constexpr int kSteps = 5;  // rows 0 .. 4 are the steps; a sixth is cuDNN's

std::string describe(const attention::Shape& s) {
  return std::to_string(s.batch) + " x " + std::to_string(s.seqlen_q) +
         (s.seqlen_k != s.seqlen_q ? "/" + std::to_string(s.seqlen_k) : "") + (s.cu_seqlens.empty() ? "" : " varlen") +
         ", heads " + std::to_string(s.heads) + (s.kv_heads != s.heads ? "/" + std::to_string(s.kv_heads) : "") +
         ", d " + std::to_string(s.head_dim) + (s.causal ? ", causal" : "");
}

// The demonstration: one problem, a row a kernel with its check. Returns whether every row passed.
template <typename T>
bool demonstrate(const attention::Shape& s, bool with_cudnn, const Timing& t) {
  const std::vector<Row> rows = run_steps<T>(s, with_cudnn, t);
  const double cudnn_ms = rows.size() > kSteps ? rows.back().ms : 0.0;
  if (with_cudnn && cudnn_ms == 0.0)
    std::printf("cuDNN: not found when this binary was built (11_flash_attention/CMakeLists.txt): no yardstick\n");
  std::printf("%-24s %9s %9s %9s   %s\n", "kernel", "ms", "TFLOP/s", "% cuDNN", "check against the fp32 reference");
  bool ok = true;
  for (const Row& r : rows) {
    const std::string vs_cudnn = cudnn_ms > 0.0 ? std::to_string(int(100.0 * cudnn_ms / r.ms + 0.5)) + "%" : "-";
    std::printf("%-24s %9.4f %9.1f %9s   O %s (worst %.2f of its bound), L %s\n", r.name.c_str(), r.ms,
                tc::tflops(attention::flops(s), r.ms), vs_cudnn.c_str(), r.check.o_off == 0 ? "match" : "MISMATCH",
                r.check.o_worst, r.check.l_off == 0 ? "match" : "MISMATCH");
    ok &= r.check.pass();
  }
  return ok;
}

// The benchmark: first the ceilings (ceilings.cuh); then a line a problem: each kernel's TFLOP/s, and step 5 in % of
// cuDNN, of the wgmma mix's ceiling, of the 989 TFLOP/s peak and, for GQA and varlen, of the same work without them
// (bench.hpp), with the checks; then per set the geomean and the worst of step 5 against cuDNN, and against the same
// work. Returns whether every check passed and the ceilings are under their peaks.
template <typename T>
bool bench(bool with_cudnn, const Timing& t) {
  constexpr double kPeakTflops = 989.0;  // H100/H200 SXM dense bf16 (docs/external_figures.md, h200-fp16-dense)
  const attention::Ceilings c = attention::measure_ceilings<T>(t.warmup, t.repeats);
  std::printf("the ceilings (ceilings.cuh): the wgmma mix of a key tile at %.1f / %.1f / %.1f TFLOP/s (head_dim 64 / "
              "128 / 256); ex2.approx (MUFU.EX2) at %.0f G/s, so that with no overlap of exponentials and matmuls "
              "attention is bound at %.1f / %.1f / %.1f TFLOP/s\n",
              c.wgmma(64), c.wgmma(128), c.wgmma(256), c.ex2_per_s / 1e9,
              attention::no_overlap_bound(c.wgmma(64), c.ex2_per_s, 64),
              attention::no_overlap_bound(c.wgmma(128), c.ex2_per_s, 128),
              attention::no_overlap_bound(c.wgmma(256), c.ex2_per_s, 256));
  std::printf("the peaks at the GPU's highest SM clock: %.1f TFLOP/s (tensor cores), %.0f G/s (MUFU.EX2)\n",
              c.tensor_peak_tflops, c.ex2_peak_per_s / 1e9);
  // A ceiling above its peak timed a kernel that lost work to the compiler: no share of it would mean a thing.
  bool ok = c.within_peaks();
  if (!ok) std::printf("FAIL: a ceiling above its peak: the compiler took work out of its kernel (ceilings.cuh)\n");
  std::vector<attention::BenchProblem> problems = attention::bench_suite();
  for (attention::BenchProblem& p : attention::bench_held_out()) problems.push_back(p);
  std::printf("%-9s %-24s %-42s %7s %7s %7s %7s %7s %7s %8s %7s %7s %7s  %s\n", "set", "problem", "shape", "1", "2",
              "3", "4", "5", "cuDNN", "5 % cuDNN", "% ceil", "% peak", "% same", "checks");
  struct Ratios {
    double log_sum = 0.0, worst = 1e30;
    int n = 0;
    void add(double r) { log_sum += std::log(r), worst = std::min(worst, r), ++n; }
  };
  Ratios suite, held_out, same_work;
  auto pct = [](double r) { return std::to_string(int(100.0 * r + 0.5)) + "%"; };
  for (const attention::BenchProblem& bp : problems) {
    // cuDNN's SDPA is built here for fixed lengths (cudnn_sdpa.hpp): a varlen problem's row has no yardstick.
    const std::vector<Row> rows = run_steps<T>(bp.shape, with_cudnn && bp.shape.cu_seqlens.empty(), t);
    const double flops = attention::flops(bp.shape), step5 = tc::tflops(flops, rows[kSteps - 1].ms);
    std::string line, checks = "pass";
    for (const Row& r : rows) {
      char cell[16];
      std::snprintf(cell, sizeof cell, " %7.1f", tc::tflops(flops, r.ms));
      line += cell;
      if (!r.check.pass()) checks = "FAIL: " + r.name;
      ok &= r.check.pass();
    }
    if (rows.size() == kSteps) line += "       -";
    std::string vs = "-", same = "-";
    if (rows.size() > kSteps) {
      const double ratio = rows.back().ms / rows[kSteps - 1].ms;
      (bp.set == "suite" ? suite : held_out).add(ratio);
      vs = pct(ratio);
    }
    if (const std::optional<attention::Shape> twin = attention::same_work_without_gqa_or_varlen(bp.shape)) {
      attention::Problem<T> tp = attention::make_problem<T>(*twin, 2026);
      const Row r = run_one("5 persistent, same work", tp,
                            [](const attention::Shape& sh, const attention::DeviceTensors<T>& d, cudaStream_t st) {
                              attention::launch_step5(sh, d, st);
                            },
                            t);
      if (!r.check.pass()) checks = "FAIL: " + r.name;
      ok &= r.check.pass();
      const double ratio = step5 / tc::tflops(attention::flops(*twin), r.ms);
      same_work.add(ratio);
      same = pct(ratio);
    }
    std::printf("%-9s %-24s %-42s%s %9s %7s %7s %7s  %s\n", bp.set.c_str(), bp.name.c_str(),
                describe(bp.shape).c_str(), line.c_str(), vs.c_str(), pct(step5 / c.wgmma(bp.shape.head_dim)).c_str(),
                pct(step5 / kPeakTflops).c_str(), same.c_str(), checks.c_str());
    std::fflush(stdout);
  }
  std::printf("%% ceil: step 5 over the wgmma mix's ceiling at its head_dim; %% peak: over 989 TFLOP/s; %% same: step "
              "5's TFLOP/s over its TFLOP/s on the same work without GQA and varlen (bench.hpp)\n");
  if (with_cudnn)
    std::printf("a varlen problem has no cuDNN column: the yardstick is built for fixed lengths (cudnn_sdpa.hpp)\n");
  for (const auto& [name, r] : {std::pair<const char*, Ratios>{"suite", suite}, {"held-out", held_out}})
    if (r.n > 0)
      std::printf("%s: step 5 at %.1f%% of cuDNN's SDPA (geomean over %d problems), worst %.1f%%\n", name,
                  100.0 * std::exp(r.log_sum / r.n), r.n, 100.0 * r.worst);
  if (same_work.n > 0)
    std::printf("GQA and varlen: step 5 at %.1f%% of the same work without them (geomean over %d problems), worst "
                "%.1f%%\n",
                100.0 * std::exp(same_work.log_sum / same_work.n), same_work.n, 100.0 * same_work.worst);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The command line: one problem (FlashAttention's layout, [batch, seqlen, heads, head_dim]), or --bench.
    tc::Cli cli(tc::chapter::kProgram, "Chapter 11: a FlashAttention-3-style attention forward on wgmma and TMA");
    cli.add_int("batch", 2, "sequences");
    cli.add_int("seqlen", 1024, "tokens a sequence (queries and keys)");
    cli.add_int("seqlen-k", 0,
                "keys a sequence where they differ from the queries (a chunk of a prefill against its context; "
                "0: --seqlen)",
                0);
    cli.add_int("heads", 16, "query heads");
    cli.add_int("kv-heads", 0, "key and value heads (grouped-query attention; 0: as many as heads)", 0);
    cli.add_choice("head-dim", "128", {"64", "128", "256"}, "head dimension");
    cli.add_flag("causal", "causal mask (aligned to the bottom right, as FlashAttention's)");
    cli.add_choice("type", "bf16", {"bf16", "fp16"}, "Q, K, V and O type (fp32 accumulate, fp32 L)");
    cli.add_choice("yardstick", "cudnn", {"cudnn", "none"},
                   "cudnn: time cuDNN's fused attention beside the steps, where the build found it; none: the steps "
                   "alone (the sanitizer tests: cuDNN's kernels are not this chapter's to check)");
    cli.add_flag("bench", "the benchmark instead of one problem: the suite and the held-out shapes (bench.hpp), "
                          "each timing after --rest-ms of idle GPU");
    cli.add_int("rest-ms", 200, "with --bench: idle milliseconds before each timing", 0);
    cli.add_int("warmup", 5, "untimed launches before timing", 0);
    cli.add_int("repeats", 20, "timed launches; the median is reported");
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    attention::Shape s;
    s.batch = int(cli.get_int("batch"));
    s.seqlen_q = s.seqlen_k = int(cli.get_int("seqlen"));
    if (cli.get_int("seqlen-k") != 0) s.seqlen_k = int(cli.get_int("seqlen-k"));
    s.heads = int(cli.get_int("heads"));
    s.kv_heads = cli.get_int("kv-heads") == 0 ? s.heads : int(cli.get_int("kv-heads"));
    s.head_dim = std::stoi(cli.get_choice("head-dim"));
    s.causal = cli.get_flag("causal");
    if (const auto why = attention::shape_problem(s)) throw tc::UsageError(*why);
    const bool benchmark = cli.get_flag("bench"), fp16 = cli.get_choice("type") == "fp16";
    const bool with_cudnn = cli.get_choice("yardstick") == "cudnn";
    const Timing timing{int(cli.get_int("warmup")), int(cli.get_int("repeats")),
                        benchmark ? int(cli.get_int("rest-ms")) : 0};

    // A problem larger than this machine's host memory, or than any SM 9.0 GPU's, is refused before a GPU is asked
    // for (exit 6); the benchmark's problems are fixed and small.
    const tc::MemoryNeed need = attention::memory_need(s, 2);  // bf16 and fp16 alike
    if (!benchmark) tc::require_host_memory("the problem", need, tc::kSm90MostDeviceBytes);

    // (2) The GPU: sm_90a code runs on SM 9.0 alone; then the problem against its free memory (exit 6).
    tc::require_exact_sm(90, tc::chapter::kProgram);
    const tc::DeviceInfo device = tc::require_sm(90, tc::chapter::kProgram, true);
    std::printf("# device:  %s\n", tc::describe(device).c_str());
    if (!benchmark) tc::require_memory("the problem", need);

    // (3) Each step, verified against the reference and timed beside cuDNN.
    bool ok = false;
    if (benchmark) {
      std::printf("== the benchmark, %s: TFLOP/s (4 seqlen_q seqlen_k head_dim heads a sequence, halved for causal: "
                  "problem.hpp), median of %d launches after %d warm-up, each after %d ms idle ==\n",
                  fp16 ? "fp16" : "bf16", timing.repeats, timing.warmup, timing.rest_ms);
      ok = fp16 ? bench<__half>(with_cudnn, timing) : bench<__nv_bfloat16>(with_cudnn, timing);
    } else {
      const std::string keys = s.seqlen_k != s.seqlen_q ? " (keys " + std::to_string(s.seqlen_k) + ")" : "";
      std::printf("== attention: batch %d, seqlen %d%s, heads %d (kv %d), head_dim %d%s, %s ==\n", s.batch,
                  s.seqlen_q, keys.c_str(), s.heads, s.kv_heads, s.head_dim, s.causal ? ", causal" : "",
                  fp16 ? "fp16" : "bf16");
      ok = fp16 ? demonstrate<__half>(s, with_cudnn, timing) : demonstrate<__nv_bfloat16>(s, with_cudnn, timing);
      std::printf("TFLOP/s counts 4 * seqlen_q * seqlen_k * head_dim * heads * batch, halved for causal (problem.hpp); "
                  "median of %d launches after %d warm-up\n",
                  timing.repeats, timing.warmup);
    }
    std::printf("RESULT: %s\n", ok ? "PASS" : "FAIL");
    return ok ? tc::kExitOk : tc::kExitMismatch;
  });
}
