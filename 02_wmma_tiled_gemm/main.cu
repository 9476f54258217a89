// Chapter 02: a full GEMM from WMMA tiles, naive then block-tiled, for every WMMA type.
//
// Read top to bottom: (1) the command line and the kernels each precision runs, (2) on the host, what each kernel
// loads per FLOP and how warps map onto tiles (explain.cuh; this part runs on any machine), (3) the GPU and the memory,
// (4) every kernel verified on integer and random operands and timed beside cuBLAS, by the driver
// (tc/gemm_driver.hpp), which prints the tables, (5) the verdict. Exit codes: README.md, "Exit codes".
#include "chapter_config.hpp"  // tc::chapter::kMinSm, from tc_add_chapter in the top-level CMakeLists.txt
#include "explain.cuh"
#include "wmma_tiled_gemm.cuh"

#include "tc/arch_guard.cuh"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"

#include <string>
#include <type_traits>

namespace {

// Calls f(P{}) for each precision the --type selection names, in the order of the chapter's table.
template <typename F>
void for_each_precision(const std::string& selection, F&& f) {
  if (selection == "all" || selection == "f16") f(tc::WmmaF16{});
  if (selection == "all" || selection == "bf16") f(tc::WmmaBF16{});
  if (selection == "all" || selection == "tf32") f(tc::WmmaTF32{});
  if (selection == "all" || selection == "f64") f(tc::WmmaF64{});
  if (selection == "all" || selection == "s8") f(tc::WmmaS8{});
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
    // (1) The command line: one problem (--m --n --k), the precisions and the kernels.
    tc::DriverConfig config{"02_wmma_tiled_gemm", "02", "Chapter 02: a full GEMM from WMMA tiles",
                            "C = alpha*A*B + beta*C with WMMA, naive and block-tiled, for every WMMA type, verified "
                            "and timed against cuBLAS.",
                            tc::chapter::kMinSm, tc::kernel_image_guard(tc::chapter::kArchitectures)};
    config.single_size = true;
    config.default_sizes = "4096";
    config.svg_help = "also write the warp-to-tile maps as SVG figures into this folder";
    tc::GemmDriver driver(config);
    driver.cli()
        .add_choice("type", "all", {"f16", "bf16", "tf32", "f64", "s8", "all"}, "WMMA precision(s)")
        .add_choice("kernel", "all", {"naive", "block-tiled", "all"}, "kernel(s) to run");
    if (!driver.parse(argc, argv)) return tc::kExitOk;
    const std::string types = driver.cli().get_choice("type"), kernels = driver.cli().get_choice("kernel");
    if (types == "all" || types == "s8") driver.require_integer_scales("s8");
    for_each_precision(types, [&](auto p) { driver.add(group<decltype(p)>(kernels)); });

    // (2) Explain, on the host.
    explain(driver.options(), [&](auto print_row) {
      for_each_precision(types, [&](auto p) { for_each_kernel<decltype(p)>(kernels, print_row); });
    });

    // (3) Everything below needs a GPU of SM >= 8.0 (else exit 77) and memory for every precision (else exit 6).
    driver.require_gpu("chapter 02 (WMMA GEMM kernels)");

    // (4) Run, verify, time and report; (5) the verdict.
    return tc::GemmDriver::finish(driver.run());
  });
}
