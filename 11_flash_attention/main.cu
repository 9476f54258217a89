// Chapter 11: a FlashAttention-3-style forward on Hopper. Read top to bottom: the command line, the problem, each
// step verified against the fp32 reference, then timed.
#include "cudnn_sdpa.hpp"
#include "problem.hpp"
#include "run.cuh"

#include "chapter_config.hpp"
#include "tc/cli.hpp"
#include "tc/device.hpp"
#include "tc/exit_codes.hpp"
#include "tc/main.hpp"
#include "tc/timer.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

struct Row {
  std::string name;
  double ms = 0.0;
  attention::CheckResult check;
};

// One launcher on the problem: checked, then timed.
template <typename T, typename Launch>
Row run_one(const std::string& name, attention::Problem<T>& p, Launch launch, int warmup, int repeats) {
  Row row{name, 0.0, attention::run_and_check(p, launch)};
  row.ms = tc::benchmark([&] { launch(p.shape, p.tensors(), cudaStream_t{nullptr}); }, warmup, repeats).median_ms;
  return row;
}

template <typename T>
int run(const attention::Shape& s, bool with_cudnn, int warmup, int repeats) {
  attention::Problem<T> p = attention::make_problem<T>(s, 2026);
  std::vector<Row> rows;
  rows.push_back(run_one("1 one warpgroup", p,
                         [](const attention::Shape& sh, const attention::DeviceTensors<T>& t, cudaStream_t st) {
                           attention::launch_step1(sh, t, st);
                         },
                         warmup, repeats));
  rows.push_back(run_one("2 warp-specialized", p,
                         [](const attention::Shape& sh, const attention::DeviceTensors<T>& t, cudaStream_t st) {
                           attention::launch_step2(sh, t, st);
                         },
                         warmup, repeats));
  rows.push_back(run_one("3 ping-pong", p,
                         [](const attention::Shape& sh, const attention::DeviceTensors<T>& t, cudaStream_t st) {
                           attention::launch_step3(sh, t, st);
                         },
                         warmup, repeats));
  rows.push_back(run_one("4 softmax under P V", p,
                         [](const attention::Shape& sh, const attention::DeviceTensors<T>& t, cudaStream_t st) {
                           attention::launch_step4(sh, t, st);
                         },
                         warmup, repeats));
  rows.push_back(run_one("5 persistent", p,
                         [](const attention::Shape& sh, const attention::DeviceTensors<T>& t, cudaStream_t st) {
                           attention::launch_step5(sh, t, st);
                         },
                         warmup, repeats));
  double cudnn_ms = 0.0;
#if defined(TC_HAVE_CUDNN)
  // The yardstick, on the same tensors, held to the same check.
  if (with_cudnn) {
    attention::CudnnSdpa sdpa = attention::CudnnSdpa::make<T>(s);
    const Row cudnn = run_one("cuDNN SDPA " + attention::CudnnSdpa::version(), p,
                              [&](const attention::Shape&, const attention::DeviceTensors<T>& t, cudaStream_t st) {
                                sdpa.run(t.q, t.k, t.v, t.o, t.lse, st);
                              },
                              warmup, repeats);
    cudnn_ms = cudnn.ms;
    rows.push_back(cudnn);
  }
#else
  if (with_cudnn)
    std::printf("cuDNN: not found when this binary was built (11_flash_attention/CMakeLists.txt): no yardstick\n");
#endif
  std::printf("%-24s %9s %9s %9s   %s\n", "kernel", "ms", "TFLOP/s", "% cuDNN", "check against the fp32 reference");
  bool ok = true;
  for (const Row& r : rows) {
    const std::string vs_cudnn = cudnn_ms > 0.0 ? std::to_string(int(100.0 * cudnn_ms / r.ms + 0.5)) + "%" : "-";
    std::printf("%-24s %9.4f %9.1f %9s   O %s (worst %.2f of its bound), L %s\n", r.name.c_str(), r.ms,
                tc::tflops(attention::flops(s), r.ms), vs_cudnn.c_str(), r.check.o_off == 0 ? "match" : "MISMATCH",
                r.check.o_worst, r.check.l_off == 0 ? "match" : "MISMATCH");
    ok &= r.check.pass();
  }
  std::printf("TFLOP/s counts 4 * seqlen_q * seqlen_k * head_dim * heads * batch, halved for causal (problem.hpp); "
              "median of %d launches after %d warm-up\n",
              repeats, warmup);
  std::printf("RESULT: %s\n", ok ? "PASS" : "FAIL");
  return ok ? tc::kExitOk : tc::kExitMismatch;
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The command line: one problem (FlashAttention's layout, [batch, seqlen, heads, head_dim]).
    tc::Cli cli(tc::chapter::kProgram, "Chapter 11: a FlashAttention-3-style attention forward on wgmma and TMA");
    cli.add_int("batch", 2, "sequences");
    cli.add_int("seqlen", 1024, "tokens a sequence (queries and keys)");
    cli.add_int("heads", 16, "query heads");
    cli.add_int("kv-heads", 0, "key and value heads (grouped-query attention; 0: as many as heads)", 0);
    cli.add_choice("head-dim", "128", {"64", "128", "256"}, "head dimension");
    cli.add_flag("causal", "causal mask (aligned to the bottom right, as FlashAttention's)");
    cli.add_choice("type", "bf16", {"bf16", "fp16"}, "Q, K, V and O type (fp32 accumulate, fp32 L)");
    cli.add_choice("yardstick", "cudnn", {"cudnn", "none"},
                   "cudnn: time cuDNN's fused attention beside the steps, where the build found it; none: the steps "
                   "alone (the sanitizer tests: cuDNN's kernels are not this chapter's to check)");
    cli.add_int("warmup", 5, "untimed launches before timing", 0);
    cli.add_int("repeats", 20, "timed launches; the median is reported");
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    attention::Shape s;
    s.batch = int(cli.get_int("batch"));
    s.seqlen_q = s.seqlen_k = int(cli.get_int("seqlen"));
    s.heads = int(cli.get_int("heads"));
    s.kv_heads = cli.get_int("kv-heads") == 0 ? s.heads : int(cli.get_int("kv-heads"));
    s.head_dim = std::stoi(cli.get_choice("head-dim"));
    s.causal = cli.get_flag("causal");
    if (const auto why = attention::shape_problem(s)) throw tc::UsageError(*why);

    // (2) The GPU: sm_90a code runs on SM 9.0 alone.
    tc::require_exact_sm(90, tc::chapter::kProgram);
    const tc::DeviceInfo device = tc::require_sm(90, tc::chapter::kProgram, true);
    std::printf("# device:  %s\n", tc::describe(device).c_str());
    std::printf("== attention: batch %d, seqlen %d, heads %d (kv %d), head_dim %d%s, %s ==\n", s.batch, s.seqlen_q,
                s.heads, s.kv_heads, s.head_dim, s.causal ? ", causal" : "", cli.get_choice("type").c_str());

    // (3) Each step, verified and timed.
    const int warmup = int(cli.get_int("warmup")), repeats = int(cli.get_int("repeats"));
    const bool with_cudnn = cli.get_choice("yardstick") == "cudnn";
    return cli.get_choice("type") == "fp16" ? run<__half>(s, with_cudnn, warmup, repeats)
                                            : run<__nv_bfloat16>(s, with_cudnn, warmup, repeats);
  });
}
