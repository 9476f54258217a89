// Chapter 02: a full GEMM from WMMA tiles, naive then block-tiled, for every WMMA type.
//
// Read top to bottom: (1) the command line and the kernels each precision runs, (2) on the host, what each kernel
// loads per FLOP and how warps map onto tiles (explain.cuh; this part runs on any machine), (3) the GPU and the memory,
// (4) every kernel verified on integer and random operands and timed beside cuBLAS, by the driver
// (tc/gemm_driver.hpp), which prints the tables, (5) the verdict. Exit codes: README.md, "Exit codes".
#include "explain.cuh"
#include "wmma_tiled_gemm.cuh"

#include "tc/chapter_driver.cuh"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"

#include <string>
#include <type_traits>

namespace {

// Calls f(P{}) for each precision --type selects, in the order of the chapter's table.
template <typename F>
void for_each_precision(const tc::GemmDriver& driver, F&& f) {
  if (driver.runs_type("f16")) f(tc::WmmaF16{});
  if (driver.runs_type("bf16")) f(tc::WmmaBF16{});
  if (driver.runs_type("tf32")) f(tc::WmmaTF32{});
  if (driver.runs_type("f64")) f(tc::WmmaF64{});
  if (driver.runs_type("s8")) f(tc::WmmaS8{});
}

// Calls f(Kernel{}) for each kernel the --kernel selection names, for precision P.
template <typename P, typename F>
void for_each_kernel(const std::string& selection, F&& f) {
  if (selection == "all" || selection == "naive") f(WmmaNaiveGemm<P>{});
  if (selection == "all" || selection == "block-tiled") f(WmmaBlockTiledGemm<P>{});
}

// Precision P's kernels as one driver group: all three matrices column-major (NN). tf32 kernels read their fp32
// inputs as tf32 (__float_to_tf32), so their reference rounds them the same way and cuBLAS runs in its tf32 mode.
template <typename P>
tc::DriverGroup<typename P::Input, typename P::Accumulator> group(const std::string& kernels) {
  tc::DriverGroup<typename P::Input, typename P::Accumulator> g{P::name, tc::Op::N, tc::Op::N, {}};
  for_each_kernel<P>(kernels, [&](auto kernel) { g.kernels.push_back(tc::driver_kernel<decltype(kernel)>()); });
  if (std::is_same_v<P, tc::WmmaTF32>) {
    g.rounding = tc::InputRounding::Tf32;
    g.math = tc::CublasMath::Tf32;
  }
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The command line: the sizes, the precisions and the kernels.
    tc::DriverConfig config{tc::this_chapter(), "Chapter 02: a full GEMM from WMMA tiles",
                            "C = alpha*A*B + beta*C with WMMA, naive and block-tiled, for every WMMA type, verified "
                            "and timed against cuBLAS.",
                            "also write the warp-to-tile maps as SVG figures into this folder",
                            {"f16", "bf16", "tf32", "f64", "s8"}, "WMMA precision(s)"};
    config.default_sizes = "2048";  // the demonstration: seconds on an H200 for all five types
    config.bench_flag = true;
    config.bench_sizes = "4096";
    tc::GemmDriver driver(config);
    driver.cli().add_choice("kernel", "all", {"naive", "block-tiled", "all"}, "kernel(s) to run");
    if (!driver.parse(argc, argv)) return tc::kExitOk;
    const std::string kernels = driver.cli().get_choice("kernel");
    if (driver.runs_type("s8")) driver.require_integer_scales("s8");
    for_each_precision(driver, [&](auto p) { driver.add(group<decltype(p)>(kernels)); });

    // (2) Explain, on the host.
    explain(driver.options(), [&](auto print_row) {
      for_each_precision(driver, [&](auto p) { for_each_kernel<decltype(p)>(kernels, print_row); });
    });

    // (3) Everything below needs a GPU of SM >= 8.0 (else exit 77) and memory for every precision (else exit 6).
    driver.require_gpu("chapter 02 (WMMA GEMM kernels)");

    // (4) Run, verify, time and report; (5) the verdict.
    return tc::GemmDriver::finish(driver.run());
  });
}
