// Chapter 04: an INT8 IMMA GEMM through skewed shared memory, s8 and u8, verified exactly and timed against cuBLAS.
//
// Read top to bottom: (1) read the problem from the command line, (2) explain on the host the shared-memory plan,
// what each skew costs in bank wavefronts (the bank calculator on the kernel's own addresses) and how long K may be
// before int32 overflows (this part runs on any machine), (3) check for a GPU and that every size fits in memory,
// (4) for each size and precision: two full-range operand sets and their exact references (tc/gemm_check.hpp), run
// the kernel with each skew and verify it on both, time it next to cuBLAS's int8 TN GEMM in the same process,
// (5) print a timing table and a verification table per size and exit non-zero on any mismatch.
// Exit codes: README.md, "Exit codes".
#include "chapter_config.hpp"  // tc::chapter::kMinSm, from tc_add_chapter in the top-level CMakeLists.txt
#include "imma_shared_gemm.cuh"
#include "smem_plan.hpp"

#include "tc/arch_guard.cuh"
#include "tc/bench_csv.hpp"
#include "tc/cli.hpp"
#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_check.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"
#include "tc/padded_gemm.hpp"
#include "tc/timer.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

namespace {

struct Options {
  std::vector<tc::GemmShape> sizes;
  double alpha, beta;
  int warmup, repeats;
  std::uint64_t seed;
  std::string types, skews, svg_dir, csv;
};

// Calls f(P{}) for each precision the --type selection names.
template <typename F>
void for_each_precision(const std::string& selection, F&& f) {
  if (selection == "all" || selection == "s8") f(tc::WmmaS8{});
  if (selection == "all" || selection == "u8") f(tc::WmmaU8{});
}

// Calls f(Tile{}) for the default tile with each skew the --skew selection names: 0 (none), 16 (the chosen one: the
// bank calculator's zero), 32 (NVIDIA's immaTensorCoreGemm sample's SKEW_UINT8).
template <typename F>
void for_each_skew(const std::string& selection, F&& f) {
  if (selection == "all" || selection == "0") f(DefaultImmaTile<0>{});
  if (selection == "all" || selection == "16") f(DefaultImmaTile<16>{});
  if (selection == "all" || selection == "32") f(DefaultImmaTile<32>{});
}

// (2) Explain: the plan, the banks, the overflow bound.
void explain(const Options& o) {
  using T = DefaultImmaTile<16>;
  std::printf("\n== shared-memory plan (host arithmetic: ImmaTile) ==\n");
  std::printf("block tile %d x %d of C, %d warps of %d x %d (%d x %d fragments of 16 x 16 each), BlockK %d bytes = %d "
              "K steps per stage,\n%d stages; a stage is %d lines (%d rows of A, then %d columns of B) of %d bytes, "
              "each line ld = %d + skew bytes apart\n",
              T::BlockM, T::BlockN, T::kThreads / tc::kWarpSize, T::WarpM, T::WarpN, T::FragsM, T::FragsN, T::BlockK,
              T::BlockK / 16, T::Stages, T::kLines, T::BlockM, T::BlockN, T::BlockK, T::BlockK);
  if (!o.svg_dir.empty()) tc::write_text_file(o.svg_dir + "/04_smem_plan.svg", smem_plan_svg<T>());

  std::printf("\n== bank wavefronts per stage of one block, by skew (bank calculator: tc/layouts/smem_banks.hpp) ==\n");
  std::printf("%4s %5s %11s %11s %14s %11s %8s %14s %11s %8s\n", "skew", "ld", "stage bytes", "smem bytes",
              "fragment loads", "wavefronts", "extra", "16-byte copies", "wavefronts", "extra");
  for_each_skew("all", [&](auto tile) {
    using Tile = decltype(tile);
    const StageCost c = stage_cost<Tile>();
    std::printf("%4d %5d %11d %11d %14d %11d %8d %14d %11d %8d\n", Tile::Skew, Tile::kLd, Tile::kStageBytes,
                Tile::kSmemBytes, c.fragment_loads, c.load_wavefronts, c.load_conflicts, c.copies, c.copy_wavefronts,
                c.copy_conflicts);
  });
  std::printf("A fragment load is one LDSM of 16 lines x 16 bytes: 2 wavefronts when conflict-free. A warp's 16-byte "
              "copy is 4 phases of 8 lanes:\n4 wavefronts when conflict-free. extra = wavefronts beyond those "
              "minimums (the bank conflicts).\n");
  // The whole kernel at the first size: every block runs ceil(k / BlockK) stages (ncu counts the same launch).
  const tc::GemmShape& s = o.sizes.front();
  for_each_skew("all", [&](auto tile) {
    using Tile = decltype(tile);
    const StageCost c = stage_cost<Tile>();
    const double stages = double((s.m + Tile::BlockM - 1) / Tile::BlockM) * ((s.n + Tile::BlockN - 1) / Tile::BlockN) *
                          ((s.k + Tile::BlockK - 1) / Tile::BlockK);
    std::printf("skew %2d, whole kernel at %dx%dx%d: %.0f LDSM, %.0f wavefronts, %.0f extra (%.0f of them in the "
                "fragment loads)\n",
                Tile::Skew, s.m, s.n, s.k, stages * c.fragment_loads, stages * (c.load_wavefronts + c.copy_wavefronts),
                stages * (c.load_conflicts + c.copy_conflicts), stages * c.load_conflicts);
  });

  std::printf("\n== one fragment load, lines 0..15 at k = 0: the bank each lane's 16 bytes start in ==\n");
  for_each_skew("all", [&](auto tile) {
    using Tile = decltype(tile);
    const tc::AccessCost c = tc::ldmatrix_cost(fragment_rows<Tile>(0, false, 0, 0));
    std::printf("skew %2d:", Tile::Skew);
    for (const tc::PhaseCost& p : c.phases)
      for (const tc::SmemAccess& a : p.accesses) std::printf(" %2d", tc::smem_bank(a.address));
    std::printf("  -> %d wavefronts, %d extra\n", c.wavefronts, c.conflicts);
    if (!o.svg_dir.empty()) {
      tc::write_text_file(o.svg_dir + "/04_banks_skew" + std::to_string(Tile::Skew) + ".svg",
                 tc::bank_svg("fragment load, skew " + std::to_string(Tile::Skew) + " (ld " +
                                  std::to_string(Tile::kLd) + " bytes)",
                              c));
    }
  });

  std::printf("\n== overflow: the longest K whose int32 sums cannot overflow with full-range inputs, alpha 1, beta 0 "
              "==\n");
  std::printf("s8: |a*b| <= 128*128 = 16384, K <= %lld;  u8: a*b <= 255*255 = 65025, K <= %lld\n",
              static_cast<long long>(max_exact_k<std::int8_t>()), static_cast<long long>(max_exact_k<std::uint8_t>()));
  for (const tc::GemmShape& s : o.sizes) {
    if (s.k > max_exact_k<std::uint8_t>()) {
      std::printf("note: k = %d is above the u8 bound; extreme u8 inputs could overflow int32 (the random ones here "
                  "do not come close)\n", s.k);
    }
  }
}

// One row of a size's table.
struct Row {
  std::string type;
  int skew = 0;
  double ms = 0.0;
  double cublas_ms = -1.0;
  bool passed = false;
};

// The problem at one size: A row-major (op T, lda = k), B column-major (op N, ldb = k), C column-major.
tc::GemmProblem problem(const Options& o, const tc::GemmShape& s) {
  return tc::GemmProblem::tight(tc::Op::T, tc::Op::N, s.m, s.n, s.k, o.alpha, o.beta);
}

// What one precision at one size allocates: both checks (tc/gemm_check.hpp), a kernel's padded copies, and the
// int8 operands and int32 result time_cublas makes.
template <typename P>
tc::MemoryNeed memory_need(const Options& o, const tc::GemmShape& s) {
  const tc::MemoryNeed cublas{0, tc::checked_sum({tc::checked_bytes(std::uint64_t(s.m) + s.n, std::uint64_t(s.k)),
                                                  tc::checked_bytes(std::uint64_t(s.m) * std::uint64_t(s.n), 4)})};
  return tc::gemm_check_memory<typename P::Input, std::int32_t>(problem(o, s)) +
         tc::padded_operands_memory<ImmaSharedGemm<P, DefaultImmaTile<16>>>(s.m, s.n, s.k) + cublas;
}

// (4) One precision at one size: the two operand sets of tc/gemm_check.hpp (for 8-bit integers both are full-range
// and both checks exact), then each skew run, verified on both and timed on the second.
template <typename P>
bool run_precision(const Options& o, const tc::GemmShape& s, const tc::CublasHandle& cublas, double cublas_ms,
                   std::vector<Row>& rows, std::vector<tc::VerificationRow>& checks) {
  using In = typename P::Input;
  const tc::GemmProblem p = problem(o, s);
  tc::ExactCheck<In, std::int32_t> exact(cublas, p, o.seed + 10);
  tc::RandomOperands<In, std::int32_t> ops(cublas, p, o.seed);  // s8: [-128, 127]; u8: [0, 255]
  const auto alpha = static_cast<std::int32_t>(o.alpha), beta = static_cast<std::int32_t>(o.beta);
  bool all_ok = true;
  for_each_skew(o.skews, [&](auto tile) {
    using Gemm = ImmaSharedGemm<P, decltype(tile)>;
    auto launch_on = [&](const In* A, const In* B, std::int32_t* C) {
      tc::launch_gemm_any_size<Gemm>(p.m, p.n, p.k, alpha, A, p.lda, B, p.ldb, beta, C, p.ldc, nullptr);
    };
    const tc::GemmVerdict v = tc::check_gemm(exact, ops, launch_on);
    checks.push_back({std::string(P::name) + " skew " + std::to_string(decltype(tile)::Skew), v, o.alpha});
    all_ok &= v.passed();
    ops.reset_c();
    rows.push_back(Row{P::name, decltype(tile)::Skew,
                       tc::benchmark([&] { launch_on(ops.a(), ops.b(), ops.c()); }, o.warmup, o.repeats).median_ms,
                       cublas_ms, v.passed()});
  });
  return all_ok;
}

// cuBLAS's int8 GEMM with the same layout (transa = T, transb = N), the yardstick for both precisions: cuBLAS has no
// u8 x u8 GEMM, and an int8 GEMM's time does not depend on the values. Its int8 path needs lda, ldb multiples of 4;
// -1 where they are not.
double time_cublas(const Options& o, const tc::GemmShape& s, const tc::CublasHandle& cublas) {
  const int m = s.m, n = s.n, k = s.k;
  if (k % 4 != 0) return -1.0;
  tc::DeviceBuffer<std::int8_t> a(std::size_t(m) * k), b(std::size_t(k) * n);
  tc::DeviceBuffer<std::int32_t> c(std::size_t(m) * n);
  TC_CHECK(cudaMemset(a.data(), 1, a.size()));
  TC_CHECK(cudaMemset(b.data(), 1, b.size()));
  return tc::benchmark([&] { tc::cublas_gemm<std::int8_t, std::int32_t>(cublas, tc::Op::T, tc::Op::N, m, n, k,
                                                                          o.alpha, a.data(), k, b.data(), k, 0.0,
                                                                          c.data(), m, c.data(), m); },
                       o.warmup, o.repeats)
      .median_ms;
}

void print_table(const Options& o, const tc::GemmShape& s, const std::vector<Row>& rows) {
  const double flops = tc::gemm_flops(s.m, s.n, s.k);
  std::printf("\n== results: C = alpha*A*B + beta*C, A row-major, B column-major (TN), %d x %d x %d, alpha %g, beta "
              "%g; median of %d launches after %d warm-up ==\n",
              s.m, s.n, s.k, o.alpha, o.beta, o.repeats, o.warmup);
  std::printf("%-8s %4s %10s %9s %12s %9s %8s\n", "type", "skew", "ms", "TOPS", "cuBLAS TOPS", "% cuBLAS", "verdict");
  for (const Row& r : rows) {
    char cublas_rate[32] = "n/a", share[32] = "-";
    if (r.cublas_ms > 0.0) {
      std::snprintf(cublas_rate, sizeof cublas_rate, "%.1f", tc::tflops(flops, r.cublas_ms));
      std::snprintf(share, sizeof share, "%.1f%%", 100.0 * r.cublas_ms / r.ms);
    }
    std::printf("%-8s %4d %10.4f %9.1f %12s %9s %8s\n", r.type.c_str(), r.skew, r.ms, tc::tflops(flops, r.ms),
                cublas_rate, share, r.passed ? "PASS" : "FAIL");
  }
  std::printf("TOPS counts 2*M*N*K integer operations. cuBLAS: cublasGemmEx int8 -> int32, transa T, transb N, timed "
              "in this process\n(u8 rows are compared with it too: cuBLAS has no u8 GEMM). Verification: exact, "
              "against %s, on two\nfull-range operand sets (the verification below).\n",
              tc::reference_on_cpu(s.m, s.n, s.k) ? "the CPU reference" : "cuBLAS DGEMM on the same integers");
}

// One size's rows as benchmark-ladder rows: one kernel per skew, both precisions against cuBLAS's s8 GEMM.
void append_ladder_rows(const Options& o, const tc::GemmShape& s, const std::vector<Row>& rows) {
  std::vector<tc::BenchRow> bench;
  for (const Row& r : rows) {
    bench.push_back({"04", "skew " + std::to_string(r.skew), r.type, "TN", s, r.ms, r.cublas_ms, r.passed});
  }
  tc::append_bench_csv(o.csv, bench);
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The problem.
    tc::Cli cli("04_int8_imma_shared", "C = alpha*A*B + beta*C for s8 and u8 inputs with int32 accumulation (A "
                                       "row-major, B column-major) through skewed shared memory, verified exactly "
                                       "and timed against cuBLAS int8.");
    cli.add_shapes("sizes", "1024,4096", "problem sizes, one table each: S (S x S x S) or MxNxK, comma-separated")
        .add_choice("type", "all", {"s8", "u8", "all"}, "input precision (int32 accumulation either way)")
        .add_choice("skew", "all", {"0", "16", "32", "all"}, "shared-memory skew in bytes (16 is the chapter's)")
        .add_real("alpha", 1.0, "scale of A*B, an integer")
        .add_real("beta", 0.0, "scale of C, an integer; 0 means C is not read")
        .add_int("warmup", 5, "untimed launches before timing", 0)
        .add_int("repeats", 30, "timed launches; the median is reported", 20)
        .add_int("seed", 2026, "random seed", 0)
        .add_string("svg", "", "write the bank figures into this folder")
        .add_string("csv", "", "append one row per timed kernel to this CSV (the benchmark ladder, tc/bench_csv.hpp)");
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    tc::require_kernel_image(tc::chapter::kArchitectures);  // a build without code for this GPU stops here, exit 5
    const Options o{cli.get_shapes("sizes"),     cli.get_real("alpha"),      cli.get_real("beta"),
                    int(cli.get_int("warmup")),  int(cli.get_int("repeats")), std::uint64_t(cli.get_int("seed")),
                    cli.get_choice("type"),      cli.get_choice("skew"),     cli.get_string("svg"),
                    cli.get_string("csv")};
    if (o.alpha != std::trunc(o.alpha) || o.beta != std::trunc(o.beta) || std::fabs(o.alpha) > 2147483647.0 ||
        std::fabs(o.beta) > 2147483647.0) {
      throw tc::UsageError("--alpha and --beta must be int32 integers (the scale type of an int32 GEMM, as in cuBLAS)");
    }

    tc::print_run_header("Chapter 04: INT8 IMMA through skewed shared memory", "04_int8_imma_shared", argc, argv);

    // (2) Explain, on the host.
    explain(o);

    // (3) Everything below needs a GPU of SM >= 8.0 (cp.async); without one this exits 77 ("skipped").
    std::printf("\n");
    tc::require_sm(tc::chapter::kMinSm, "chapter 04 (INT8 IMMA GEMM kernel)");
    // Every size's memory, before anything is allocated: a problem that cannot fit stops here with one line (exit 6).
    for (const tc::GemmShape& s : o.sizes) {
      for_each_precision(o.types, [&](auto p) {
        tc::require_memory("04_int8_imma_shared " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                               std::to_string(s.k) + " " + decltype(p)::name,
                           memory_need<decltype(p)>(o, s));
      });
    }

    // (4) Run, verify and time every size, precision and skew; (5) one table per size.
    tc::CublasHandle cublas;
    bool all_ok = true;
    for (const tc::GemmShape& s : o.sizes) {
      const double cublas_ms = time_cublas(o, s, cublas);
      std::vector<Row> rows;
      std::vector<tc::VerificationRow> checks;
      for_each_precision(o.types, [&](auto p) {
        all_ok &= run_precision<decltype(p)>(o, s, cublas, cublas_ms, rows, checks);
      });
      print_table(o, s, rows);
      std::printf("\n== verification: %d x %d x %d, two full-range operand sets, each checked exactly "
                  "(tc/gemm_check.hpp) ==\n",
                  s.m, s.n, s.k);
      tc::print_verification("type    skew", checks);
      if (!o.csv.empty()) append_ladder_rows(o, s, rows);
    }
    std::printf("\n%s\n", all_ok ? "RESULT: every kernel matches the reference" : "RESULT: MISMATCH");
    return all_ok ? tc::kExitOk : tc::kExitMismatch;
  });
}
