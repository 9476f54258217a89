// Chapter 03: the four transposes of a WMMA GEMM, NN, NT, TN and TT, by fragment layout tags.
//
// Read top to bottom: (1) the command line, and one kernel per precision and op: the same kernel with its layout tags
// changed, (2) on the host, how each op stores A and B and what one warp's loads touch in memory (explain.cuh; this
// part runs on any machine), (3) the GPU and the memory, then the probed holding maps, (4) every precision and op
// verified and timed beside cuBLAS with the same transa/transb, by the driver (tc/gemm_driver.hpp), (5) the verdict.
// Exit codes: README.md, "Exit codes".
#include "explain.cuh"
#include "wmma_transposed_gemm.cuh"

#include "tc/chapter_driver.cuh"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"

#include <string>

namespace {

// Calls f(P{}) for each precision --type selects: HMMA (f16 -> f32) and IMMA (s8 -> s32).
template <typename F>
void for_each_precision(const tc::GemmDriver& driver, F&& f) {
  if (driver.runs_type("f16")) f(tc::WmmaF16{});
  if (driver.runs_type("s8")) f(tc::WmmaS8{});
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The command line: sizes, precisions and ops; each (precision, op) is one driver group, with its operands
    // stored as the op says (op(A) m x k stored as LayoutA, op(B) k x n as LayoutB, tight leading dimensions).
    tc::DriverConfig config{tc::this_chapter(), "Chapter 03: NN, NT, TN, TT through fragment layouts",
                            "C = alpha*op(A)*op(B) + beta*C for op = N or T on A and B, by WMMA fragment layout tags, "
                            "verified and timed against cuBLAS with the same transa/transb.",
                            "write the chapter's figures into this folder (the address maps need a GPU)",
                            {"f16", "s8"}, "precision: f16 (HMMA, fp32 accumulate) or s8 (IMMA)"};
    config.default_sizes = "2048";  // the demonstration: eight (precision, op) groups in seconds on an H200
    config.bench_flag = true;
    config.bench_sizes = "1024,4096";  // what docs/results records
    tc::GemmDriver driver(config);
    driver.cli().add_choice("op", "all", {"NN", "NT", "TN", "TT", "all"}, "op(A) op(B), as cuBLAS's transa transb");
    if (!driver.parse(argc, argv)) return tc::kExitOk;
    const std::string ops = driver.cli().get_choice("op");
    if (driver.runs_type("s8")) driver.require_integer_scales("s8");
    for_each_precision(driver, [&](auto p) {
      for_each_op(ops, [&](auto la, auto lb) {
        driver.add(tc::driver_group<WmmaTransposedGemm<decltype(p), decltype(la), decltype(lb)>>(decltype(p)::name));
      });
    });

    // (2) Explain, on the host.
    explain(driver.options());

    // (3) Everything below needs a GPU (else exit 77) and memory for every size (else exit 6).
    driver.require_gpu("chapter 03 (WMMA GEMM kernels)");
    draw_holding_maps(driver.options());

    // (4) Run, verify, time and report; (5) the verdict.
    return tc::GemmDriver::finish(driver.run());
  });
}
