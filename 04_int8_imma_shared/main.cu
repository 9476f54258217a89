// Chapter 04: an INT8 IMMA GEMM through skewed shared memory, s8 and u8, verified exactly and timed against cuBLAS.
//
// Read top to bottom: (1) the command line, and the kernel with each skew for each precision, (2) on the host, the
// shared-memory plan, what each skew costs in bank wavefronts and how long K may be before int32 overflows
// (explain.cuh; this part runs on any machine), (3) the GPU and the memory, (4) every precision and skew verified
// exactly on two full-range operand sets and timed beside cuBLAS's int8 TN GEMM, by the driver (tc/gemm_driver.hpp),
// (5) the verdict. Exit codes: README.md, "Exit codes".
#include "explain.cuh"
#include "imma_shared_gemm.cuh"

#include "tc/chapter_driver.cuh"
#include "tc/gemm_driver.hpp"
#include "tc/main.hpp"

#include <string>

namespace {

// Calls f(P{}) for each precision --type selects.
template <typename F>
void for_each_precision(const tc::GemmDriver& driver, F&& f) {
  if (driver.runs_type("s8")) f(tc::WmmaS8{});
  if (driver.runs_type("u8")) f(tc::WmmaU8{});
}

// Precision P with each skew the selection names, as one driver group: A row-major (op T), B column-major (op N). Both
// of tc/gemm_check.hpp's operand sets are full-range integers for 8-bit inputs, so both checks are exact.
template <typename P>
tc::DriverGroup<typename P::Input, std::int32_t> group(const std::string& skews) {
  tc::DriverGroup<typename P::Input, std::int32_t> g{P::name, tc::Op::T, tc::Op::N, {}};
  for_each_skew(skews, [&](auto tile) {
    using Tile = decltype(tile);
    g.kernels.push_back(tc::driver_kernel<ImmaSharedGemm<P, Tile>>("skew " + std::to_string(Tile::Skew)));
  });
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The command line: sizes, precisions and skews; alpha and beta are int32, the scale type of an int32 GEMM.
    tc::DriverConfig config{tc::this_chapter(), "Chapter 04: INT8 IMMA through skewed shared memory",
                            "C = alpha*A*B + beta*C for s8 and u8 inputs with int32 accumulation (A row-major, B "
                            "column-major) through skewed shared memory, verified exactly and timed against cuBLAS "
                            "int8.",
                            "write the bank figures into this folder",
                            {"s8", "u8"}, "input precision (int32 accumulation either way)"};
    config.bench_flag = true;  // the default sizes, 1024 and 4096, are the demonstration
    config.bench_sizes = "1024,2048,4096,8192";  // what docs/results records
    tc::GemmDriver driver(config);
    driver.cli().add_choice("skew", "all", {"0", "16", "32", "all"}, "shared-memory skew in bytes (16 is the chapter's)");
    if (!driver.parse(argc, argv)) return tc::kExitOk;
    driver.require_integer_scales("s8 and u8");
    const std::string skews = driver.cli().get_choice("skew");
    for_each_precision(driver, [&](auto p) { driver.add(group<decltype(p)>(skews)); });

    // (2) Explain, on the host.
    explain(driver.options());

    // (3) Everything below needs a GPU of SM >= 8.0 (cp.async; else exit 77) and memory for every size (else exit 6).
    driver.require_gpu("chapter 04 (INT8 IMMA GEMM kernel)");

    // (4) Run, verify, time and report; (5) the verdict.
    return tc::GemmDriver::finish(driver.run());
  });
}
