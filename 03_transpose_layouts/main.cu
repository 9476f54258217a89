// Chapter 03: the four transposes of a WMMA GEMM, NN, NT, TN and TT, by fragment layout tags.
//
// Read top to bottom: (1) read the problem from the command line, (2) explain on the host how each op stores A and
// B and what one warp's loads touch in memory (this part runs on any machine), (3) check for a GPU and that every
// size fits in memory, (4) for each size, precision and op: the two operand sets of tc/gemm_check.hpp (integers,
// checked exactly; random reals, timed), run the kernel and verify it on both, time it next to cuBLAS with the same
// transa/transb in the same process, (5) print a timing table and a verification table per size and exit non-zero on
// any mismatch. Exit codes: README.md, "Exit codes".
#include "chapter_config.hpp"  // tc::chapter::kMinSm, from tc_add_chapter in the top-level CMakeLists.txt
#include "figures.hpp"
#include "wmma_transposed_gemm.cuh"

#include "tc/arch_guard.cuh"
#include "tc/bench_csv.hpp"
#include "tc/cli.hpp"
#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_check.hpp"
#include "tc/layouts/wmma_loads.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"
#include "tc/padded_gemm.hpp"
#include "tc/reference.hpp"
#include "tc/timer.hpp"
#include "tc/wmma_probe.cuh"

#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

struct Options {
  std::vector<tc::GemmShape> sizes;
  double alpha, beta;
  int warmup, repeats;
  std::uint64_t seed;
  std::string types, ops, svg_dir, csv;
};

// Calls f(P{}) for each precision the --type selection names: HMMA (f16 -> f32) and IMMA (s8 -> s32).
template <typename F>
void for_each_precision(const std::string& selection, F&& f) {
  if (selection == "all" || selection == "f16") f(tc::WmmaF16{});
  if (selection == "all" || selection == "s8") f(tc::WmmaS8{});
}

// Calls f(LayoutA{}, LayoutB{}) for each op pair the --op selection names, in cuBLAS's order NN, NT, TN, TT.
template <typename F>
void for_each_op(const std::string& selection, F&& f) {
  using tc::ColMajor, tc::RowMajor;
  if (selection == "all" || selection == "NN") f(ColMajor{}, ColMajor{});
  if (selection == "all" || selection == "NT") f(ColMajor{}, RowMajor{});
  if (selection == "all" || selection == "TN") f(RowMajor{}, ColMajor{});
  if (selection == "all" || selection == "TT") f(RowMajor{}, RowMajor{});
}

template <typename LayoutA, typename LayoutB>
std::string op_label() {
  return std::string(tc::op_name(tc::op_of<LayoutA>())) + tc::op_name(tc::op_of<LayoutB>());
}

// (2b) What one warp's loads cost per K step for each op, from the load model (tc/layouts/wmma_loads.hpp): load
// instructions, 32-byte sectors per instruction, register transposes. ncu measures the same counts (docs/03).
void print_load_table(const tc::GemmShape& s) {
  // The kernel runs on sizes rounded up to its 16 x 16 x 16 tile (padded copies where they are not multiples).
  const int m = tc::round_up(s.m, 16), n = tc::round_up(s.n, 16), k = tc::round_up(s.k, 16);
  const double warp_steps = double(m / 16) * (n / 16) * (k / 16);  // K steps of all warps together
  std::printf("\n== global loads of one warp per K step, by op (host arithmetic: wmma_loads.hpp) ==\n");
  const std::string size = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  std::printf("%-4s %-3s %-10s %-10s %8s %9s %5s %16s\n", "type", "op", "A: loads", "B: loads", "loads", "sect/load",
              "MOVM", ("loads at " + size).c_str());
  for (int bytes : {2, 1}) {
    for_each_op("all", [&](auto la, auto lb) {
      using LA = decltype(la);
      using LB = decltype(lb);
      // matrix_a's K runs along its lines when op(A) is stored row-major (op T); matrix_b's when column-major (op N).
      const tc::LoadPlan a = tc::wmma_load_plan(bytes, std::is_same_v<LA, tc::RowMajor>);
      const tc::LoadPlan b = tc::wmma_load_plan(bytes, std::is_same_v<LB, tc::ColMajor>);
      int loads = 0, sectors = 0;
      for (auto [plan, ld] : {std::pair{&a, LA::min_ld(m, k)}, std::pair{&b, LB::min_ld(k, n)}})
        for (const tc::WarpRequest& r : plan->requests) {
          ++loads;
          sectors += tc::request_cost(r, ld, bytes).sectors;
        }
      auto describe = [&](const tc::LoadPlan& p) {
        return std::to_string(p.requests.size()) + " x " + std::to_string(p.requests.front().front().bytes) + " B";
      };
      std::printf("%-4s %-3s %-10s %-10s %8d %9.2f %5d %16.0f\n", bytes == 2 ? "f16" : "s8",
                  op_label<LA, LB>().c_str(), describe(a).c_str(), describe(b).c_str(), loads,
                  double(sectors) / loads, a.movm + b.movm, loads * warp_steps);
    });
  }
  std::printf("loads: warp-level load instructions per 16-deep K step (A x bytes per lane each); sect/load: 32-byte "
              "sectors per\ninstruction; MOVM: 8x8 register transposes; last column: loads x warp-steps, the whole "
              "kernel's count.\n");
}

// (2) Explain: storage, fragment layouts, and what one warp's loads cost.
void explain(const Options& o) {
  std::printf("\n== the four ops: storage and fragment layouts (cuBLAS column-major storage) ==\n");
  std::printf("%-3s %-10s %-12s %-10s %-12s %-12s %-12s\n", "op", "A stored", "lda >=", "B stored", "ldb >=",
              "matrix_a", "matrix_b");
  for_each_op("all", [&](auto la, auto lb) {
    using LA = decltype(la);
    using LB = decltype(lb);
    const bool ta = tc::op_of<LA>() == tc::Op::T, tb = tc::op_of<LB>() == tc::Op::T;
    std::printf("%-3s %-10s %-12s %-10s %-12s %-12s %-12s\n", op_label<LA, LB>().c_str(), ta ? "k x m" : "m x k",
                ta ? "max(1, k)" : "max(1, m)", tb ? "n x k" : "k x n", tb ? "max(1, n)" : "max(1, k)",
                ta ? "row_major" : "col_major", tb ? "row_major" : "col_major");
  });
  std::printf("matrix_a/matrix_b: the nvcuda::wmma layout each fragment is declared with (tc::wmma_layout_t of the "
              "op's tag).\n");

  print_load_table(o.sizes.front());

  if (!o.svg_dir.empty()) {
    tc::write_text_file(o.svg_dir + "/03_row_major_identity.svg", row_major_identity_svg());
    tc::write_text_file(o.svg_dir + "/03_loads_f16.svg",
               tc::load_map(tc::wmma_load_plan(2, true), 2)
                   .to_svg("f16, either layout: lane that loads each element (4 x 4-byte loads per lane)"));
    tc::write_text_file(o.svg_dir + "/03_loads_s8_k_along_lines.svg",
               tc::load_map(tc::wmma_load_plan(1, true), 1)
                   .to_svg("s8, K along the lines: lane that loads each element (2 x 4-byte loads per lane)"));
    tc::write_text_file(o.svg_dir + "/03_loads_s8_k_across_lines.svg",
               tc::load_map(tc::wmma_load_plan(1, false), 1)
                   .to_svg("s8, K across the lines: lane that loads each element (8 x 1-byte loads per lane)"));
  }
}

// Where the loaded data ends up, measured: an f16 16x16x16 matrix_a fragment probed for both layouts and redrawn in
// memory order (needs the GPU). Beside the load figures, they show what MOVM has to fix for col_major.
void draw_holding_maps(const Options& o) {
  if (o.svg_dir.empty()) return;
  const tc::LaneMap col = tc::probe_wmma_fragment<nvcuda::wmma::matrix_a, tc::WmmaF16, tc::ColMajor>();
  const tc::LaneMap row = tc::probe_wmma_fragment<nvcuda::wmma::matrix_a, tc::WmmaF16, tc::RowMajor>();
  tc::write_text_file(o.svg_dir + "/03_matrix_a_holds_col_major.svg",
             address_map<tc::ColMajor>(col, 16).to_svg(
                 "col_major matrix_a after the load: row = memory line (a column of A), cell = lane holding it"));
  tc::write_text_file(o.svg_dir + "/03_matrix_a_holds_row_major.svg",
             address_map<tc::RowMajor>(row, 16).to_svg(
                 "row_major matrix_a after the load: row = memory line (a row of A), cell = lane holding it"));
  std::printf("wrote the probed matrix_a holding maps to %s\n", o.svg_dir.c_str());
}

// One row of a size's table.
struct Row {
  std::string type, op;
  double ms = 0.0;
  double cublas_ms = -1.0;  // -1: cuBLAS refused this type and op
  double worst_error = 0.0;  // random operands against fp64
  bool passed = false;
};

// One precision and op at one size, with tight leading dimensions in each operand's own storage: op(A) m x k stored
// as LayoutA, op(B) k x n as LayoutB.
template <typename LayoutA, typename LayoutB>
tc::GemmProblem problem(const Options& o, const tc::GemmShape& s) {
  return tc::GemmProblem::tight(tc::op_of<LayoutA>(), tc::op_of<LayoutB>(), s.m, s.n, s.k, o.alpha, o.beta);
}

// What the largest variant of a size allocates: both checks (tc/gemm_check.hpp) and the kernel's padded copies.
template <typename P>
tc::MemoryNeed memory_need(const Options& o, const tc::GemmShape& s) {
  using Kernel = WmmaTransposedGemm<P, tc::ColMajor, tc::ColMajor>;  // every op pads to the same 16 x 16 x 16
  return tc::gemm_check_memory<typename P::Input, typename P::Accumulator>(problem<tc::ColMajor, tc::ColMajor>(o, s)) +
         tc::padded_operands_memory<Kernel>(s.m, s.n, s.k);
}

// (4) One precision, one op, one size: the two operand sets of tc/gemm_check.hpp, the kernel verified on both and
// timed on the random one, and cuBLAS with the same transa/transb on the same operands beside it.
template <typename P, typename LayoutA, typename LayoutB>
bool run_variant(const Options& o, const tc::GemmShape& s, const tc::CublasHandle& cublas, std::vector<Row>& rows,
                 std::vector<tc::VerificationRow>& checks) {
  using In = typename P::Input;
  using Acc = typename P::Accumulator;
  constexpr tc::Op op_a = tc::op_of<LayoutA>(), op_b = tc::op_of<LayoutB>();
  const tc::GemmProblem p = problem<LayoutA, LayoutB>(o, s);
  const int m = p.m, n = p.n, k = p.k, lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  const Acc alpha = static_cast<Acc>(o.alpha), beta = static_cast<Acc>(o.beta);
  auto launch_on = [&](const In* A, const In* B, Acc* C) {
    launch_wmma_transposed_gemm<P, LayoutA, LayoutB>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  };

  tc::ExactCheck<In, Acc> exact(cublas, p, o.seed + 10);
  tc::RandomOperands<In, Acc> ops(cublas, p, o.seed);
  const tc::GemmVerdict v = tc::check_gemm(exact, ops, launch_on);
  checks.push_back({std::string(P::name) + " " + op_label<LayoutA, LayoutB>(), v, o.alpha});

  Row row;
  row.type = P::name;
  row.op = op_label<LayoutA, LayoutB>();
  ops.reset_c();
  row.ms = tc::benchmark([&] { launch_on(ops.a(), ops.b(), ops.c()); }, o.warmup, o.repeats).median_ms;
  // cuBLAS with the same transa/transb, in place on C like the kernel. Its int8 path has restrictions of its own
  // (lda, ldb multiples of 4, and per-op support that varies by version and GPU); where it refuses, say so.
  try {
    row.cublas_ms = tc::benchmark(
                        [&] {
                          tc::cublas_gemm<In, Acc>(cublas, op_a, op_b, m, n, k, o.alpha, ops.a(), lda, ops.b(), ldb,
                                                   o.beta, ops.c(), ldc, ops.c(), ldc);
                        },
                        o.warmup, o.repeats)
                        .median_ms;
  } catch (const tc::CudaError& e) {
    if (!std::is_same_v<In, std::int8_t>) throw;
    std::printf("cuBLAS %s %s: %s\n", P::name, row.op.c_str(), e.what());
  }
  row.worst_error = v.random.worst_error;
  row.passed = v.passed();
  rows.push_back(row);
  return row.passed;
}

void print_table(const Options& o, const tc::GemmShape& s, const std::vector<Row>& rows) {
  const double flops = tc::gemm_flops(s.m, s.n, s.k);
  std::printf("\n== results: C = alpha*op(A)*op(B) + beta*C, %d x %d x %d, alpha %g, beta %g; median of %d launches "
              "after %d warm-up ==\n",
              s.m, s.n, s.k, o.alpha, o.beta, o.repeats, o.warmup);
  std::printf("%-10s %-3s %10s %9s %14s %9s %12s %8s\n", "type", "op", "ms", "TFLOP/s", "cuBLAS TFLOP/s", "% cuBLAS",
              "worst |err|", "verdict");
  for (const Row& r : rows) {
    char cublas_rate[32] = "refused", share[32] = "-";
    if (r.cublas_ms > 0.0) {
      std::snprintf(cublas_rate, sizeof cublas_rate, "%.1f", tc::tflops(flops, r.cublas_ms));
      std::snprintf(share, sizeof share, "%.1f%%", 100.0 * r.cublas_ms / r.ms);
    }
    std::printf("%-10s %-3s %10.4f %9.1f %14s %9s %12.3g %8s\n", r.type.c_str(), r.op.c_str(), r.ms,
                tc::tflops(flops, r.ms), cublas_rate, share, r.worst_error, r.passed ? "PASS" : "FAIL");
  }
  std::printf("TFLOP/s (TOPS for s8) counts 2*M*N*K. %% cuBLAS: cuBLAS's time over the kernel's, cuBLAS called with "
              "the same\ntransa/transb on the same operands. worst |err|: those operands (random) against fp64; the "
              "verdict is both checks\nof the verification below.\n");
}

// One size's rows as benchmark-ladder rows: the naive kernel of chapter 02 under each op.
void append_ladder_rows(const Options& o, const tc::GemmShape& s, const std::vector<Row>& rows) {
  std::vector<tc::BenchRow> bench;
  for (const Row& r : rows) bench.push_back({"03", "naive", r.type, r.op, s, r.ms, r.cublas_ms, r.passed});
  tc::append_bench_csv(o.csv, bench);
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The problem.
    tc::Cli cli("03_transpose_layouts", "C = alpha*op(A)*op(B) + beta*C for op = N or T on A and B, by WMMA fragment "
                                        "layout tags, verified and timed against cuBLAS with the same transa/transb.");
    cli.add_shapes("sizes", "1024,4096", "problem sizes, one table each: S (S x S x S) or MxNxK, comma-separated")
        .add_choice("type", "all", {"f16", "s8", "all"}, "precision: f16 (HMMA, fp32 accumulate) or s8 (IMMA)")
        .add_choice("op", "all", {"NN", "NT", "TN", "TT", "all"}, "op(A) op(B), as cuBLAS's transa transb")
        .add_real("alpha", 1.0, "scale of op(A)*op(B) (an integer for s8)")
        .add_real("beta", 0.0, "scale of C (an integer for s8); 0 means C is not read")
        .add_int("warmup", 5, "untimed launches before timing", 0)
        .add_int("repeats", 30, "timed launches; the median is reported", 20)
        .add_int("seed", 2026, "random seed", 0)
        .add_string("svg", "", "write the chapter's figures into this folder (the address maps need a GPU)")
        .add_string("csv", "", "append one row per timed kernel to this CSV (the benchmark ladder, tc/bench_csv.hpp)");
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    tc::require_kernel_image(tc::chapter::kArchitectures);  // a build without code for this GPU stops here, exit 5
    const Options o{cli.get_shapes("sizes"),       cli.get_real("alpha"),
                    cli.get_real("beta"),          int(cli.get_int("warmup")),
                    int(cli.get_int("repeats")),   std::uint64_t(cli.get_int("seed")),
                    cli.get_choice("type"),        cli.get_choice("op"),
                    cli.get_string("svg"),         cli.get_string("csv")};
    const bool has_s8 = o.types == "all" || o.types == "s8";
    if (has_s8 && (o.alpha != std::trunc(o.alpha) || o.beta != std::trunc(o.beta))) {
      throw tc::UsageError("s8 GEMM needs integer --alpha and --beta (int32 scale, as in cuBLAS); pick --type");
    }

    tc::print_run_header("Chapter 03: NN, NT, TN, TT through fragment layouts", "03_transpose_layouts", argc, argv);

    // (2) Explain, on the host.
    explain(o);

    // (3) Everything below needs a GPU; without one this exits 77 ("skipped").
    std::printf("\n");
    tc::require_sm(tc::chapter::kMinSm, "chapter 03 (WMMA GEMM kernels)");
    // Every size's memory, before anything is allocated: a problem that cannot fit stops here with one line (exit 6).
    for (const tc::GemmShape& s : o.sizes) {
      for_each_precision(o.types, [&](auto p) {
        tc::require_memory("03_transpose_layouts " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                               std::to_string(s.k) + " " + decltype(p)::name,
                           memory_need<decltype(p)>(o, s));
      });
    }
    draw_holding_maps(o);

    // (4) Run, verify and time every size, precision and op; (5) one table per size.
    tc::CublasHandle cublas;
    bool all_ok = true;
    for (const tc::GemmShape& s : o.sizes) {
      std::vector<Row> rows;
      std::vector<tc::VerificationRow> checks;
      for_each_precision(o.types, [&](auto p) {
        for_each_op(o.ops, [&](auto la, auto lb) {
          all_ok &= run_variant<decltype(p), decltype(la), decltype(lb)>(o, s, cublas, rows, checks);
        });
      });
      print_table(o, s, rows);
      std::printf("\n== verification: %d x %d x %d, integer operands checked exactly, random ones against fp64 "
                  "(tc/gemm_check.hpp) ==\n",
                  s.m, s.n, s.k);
      tc::print_verification("type     op", checks);
      if (!o.csv.empty()) append_ladder_rows(o, s, rows);
    }
    std::printf("\n%s\n", all_ok ? "RESULT: every kernel matches the reference" : "RESULT: MISMATCH");
    return all_ok ? tc::kExitOk : tc::kExitMismatch;
  });
}
