// Chapter 02: a full GEMM from WMMA tiles, naive then block-tiled, for every WMMA type.
//
// Read top to bottom: (1) read the problem from the command line, (2) explain on the host what each kernel will
// load per FLOP and how warps map onto tiles (this part runs on any machine), (3) check for a GPU and that the problem
// fits in memory, (4) for each precision: make the two operand sets of tc/gemm_check.hpp (integers, checked exactly;
// random reals, timed), run each kernel and verify it on both, time it next to cuBLAS in the same process, (5) print
// the timing table and the verification table, and exit non-zero on any mismatch. Exit codes: README.md, "Exit codes".
#include "chapter_config.hpp"  // tc::chapter::kMinSm, from tc_add_chapter in the top-level CMakeLists.txt
#include "wmma_tiled_gemm.cuh"

#include "tc/arch_guard.cuh"
#include "tc/bench_csv.hpp"
#include "tc/cli.hpp"
#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_check.hpp"
#include "tc/layouts/lane_map.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"
#include "tc/padded_gemm.hpp"
#include "tc/reference.hpp"
#include "tc/timer.hpp"
#include "tc/warp_tile_grid.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

namespace {

// H200 HBM3e bandwidth from NVIDIA's H200 datasheet, an external figure listed in docs/external_figures.md: the rate
// the reuse table divides by.
constexpr double kH200DramBytesPerSecond = 4.8e12;

struct Options {
  int m, n, k;
  double alpha, beta;
  int warmup, repeats;
  std::uint64_t seed;
  std::string types, kernels, svg_dir, csv;
};

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

// (2) Explain: global-memory bytes per FLOP. A block (or, in the naive kernel, a warp) that computes a TM x TN tile
// of C loads TM + TN elements of A and B for every step of K and does 2 * TM * TN FLOP with them.
template <typename Kernel>
void print_reuse_row(const Options& o) {
  using P = typename Kernel::Precision;
  // The naive kernel's unit of reuse is one warp's P::M x P::N tile; the block-tiled kernel's is the block tile.
  const int tm = std::is_same_v<Kernel, WmmaNaiveGemm<P>> ? P::M : Kernel::kTile.m;
  const int tn = std::is_same_v<Kernel, WmmaNaiveGemm<P>> ? P::N : Kernel::kTile.n;
  const double bytes_per_flop = double(sizeof(typename P::Input)) * (tm + tn) / (2.0 * tm * tn);
  const double total_bytes = bytes_per_flop * tc::gemm_flops(o.m, o.n, o.k);
  std::printf("%-12s %-10s %4d x %-4d %9.4f %11.1f %14.1f\n", Kernel::name, P::name, tm, tn, bytes_per_flop,
              total_bytes / 1e9, kH200DramBytesPerSecond / bytes_per_flop / 1e12);
}

// The block tile's warp-to-fragment map: fragment (i, j) of the block tile -> the warp computing it. A LaneMap whose
// "lanes" are warps, so the same grid and SVG writers draw it. Uses Tile::warp_origin, as the kernel does.
template <typename P>
tc::LaneMap block_tile_warp_map() {
  using Tile = typename DefaultBlockTile<P>::type;
  tc::LaneMap map(Tile::BlockM / P::M, Tile::BlockN / P::N, Tile::FragsM * Tile::FragsN);
  for (int warp = 0; warp < Tile::kThreads / tc::kWarpSize; ++warp) {
    const tc::Coord origin = Tile::warp_origin(warp);
    for (int i = 0; i < Tile::FragsM; ++i)
      for (int j = 0; j < Tile::FragsN; ++j)
        map.at(warp, i * Tile::FragsN + j) = {origin.row / P::M + i, origin.col / P::N + j};
  }
  return map;
}

// The naive kernel's map for block (0, 0): tile (warp_m, warp_n) -> warp index threadIdx.y * 4 + threadIdx.x / 32.
template <typename P>
tc::LaneMap naive_block_warp_map() {
  using Grid = typename WmmaNaiveGemm<P>::Grid;
  tc::LaneMap map(Grid::kWarpsM, Grid::kWarpsN, 1);
  const dim3 block = Grid::block();
  for (unsigned ty = 0; ty < block.y; ++ty)
    for (unsigned tx = 0; tx < block.x; tx += tc::kWarpSize)
      map.at(int(ty * Grid::kWarpsM + tx / tc::kWarpSize), 0) = tc::warp_tile_of(dim3(0, 0), block, dim3(tx, ty));
  return map;
}

void explain(const Options& o) {
  std::printf("\n== reuse: global-memory traffic of each kernel (host arithmetic) ==\n");
  std::printf("%-12s %-10s %-11s %9s %11s %14s\n", "kernel", "type", "C tile", "B/FLOP", "GB loaded",
              "TFLOP/s @4.8TB/s");
  for_each_precision(o.types, [&](auto p) {
    for_each_kernel<decltype(p)>(o.kernels, [&](auto kernel) { print_reuse_row<decltype(kernel)>(o); });
  });
  std::printf("B/FLOP: bytes of A and B loaded from global memory per FLOP; GB loaded: that times 2*M*N*K (caches "
              "can only lower it);\nthe last column is the rate at which DRAM bandwidth alone would cap the kernel "
              "if every load missed the caches.\n");

  std::printf("\n== warp-to-tile maps (f16): which warp computes each 16x16 tile ==\n");
  const tc::LaneMap naive = naive_block_warp_map<tc::WmmaF16>();
  const tc::LaneMap tiled = block_tile_warp_map<tc::WmmaF16>();
  std::printf("naive, one block of 4 x 4 warps (warp = threadIdx.y * 4 + threadIdx.x / 32):\n%s",
              naive.format_grid().c_str());
  std::printf("block-tiled, one 128 x 128 block tile of 8 warps (warp = threadIdx.x / 32):\n%s",
              tiled.format_grid().c_str());
  if (!o.svg_dir.empty()) {
    tc::write_text_file(o.svg_dir + "/02_naive_warp_tiles.svg",
               naive.to_svg("naive: warp per 16x16 tile of C"));
    tc::write_text_file(o.svg_dir + "/02_block_tiled_warp_tiles.svg",
               tiled.to_svg("block-tiled: warp per 16x16 fragment of C"));
  }
}

// One row of the final table.
struct Row {
  std::string kernel, type;
  double ms = 0.0, ms_with_copies = -1.0;  // -1: the operands kept the tile contract, no copies were made
  double cublas_ms = -1.0;  // -1: cuBLAS cannot run this problem
  double worst_error = -1.0;  // random operands against fp64; -1: not verified here (cuBLAS is the yardstick)
  std::string verdict;
};

// The problem every precision runs: all three matrices column-major with tight leading dimensions.
tc::GemmProblem problem(const Options& o) {
  return tc::GemmProblem::tight(tc::Op::N, tc::Op::N, o.m, o.n, o.k, o.alpha, o.beta);
}

// What one precision allocates: both checks' operands and references (tc/gemm_check.hpp), and the padded copies a
// kernel takes where the operands break its tile contract (the larger of the two kernels' tiles).
template <typename P>
tc::MemoryNeed memory_need(const Options& o) {
  const tc::MemoryNeed padded = tc::padded_operands_memory<WmmaBlockTiledGemm<P>>(o.m, o.n, o.k);
  return tc::gemm_check_memory<typename P::Input, typename P::Accumulator>(problem(o)) + padded;
}

// (4) One precision: the two operand sets and their references, then each kernel verified on both and timed on the
// random one, and cuBLAS timed beside it.
template <typename P>
bool run_precision(const Options& o, const tc::CublasHandle& cublas, std::vector<Row>& rows,
                   std::vector<tc::VerificationRow>& checks) {
  using In = typename P::Input;
  using Acc = typename P::Accumulator;
  const tc::GemmProblem p = problem(o);
  const int m = p.m, n = p.n, k = p.k, lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  const Acc alpha = static_cast<Acc>(o.alpha), beta = static_cast<Acc>(o.beta);

  tc::ExactCheck<In, Acc> exact(cublas, p, o.seed + 10);
  // The timed operands; tf32 kernels read them rounded to tf32 (__float_to_tf32), and so does their reference.
  tc::RandomOperands<In, Acc> ops(cublas, p, o.seed,
                                  std::is_same_v<P, tc::WmmaTF32> ? tc::InputRounding::Tf32 : tc::InputRounding::None);
  bool all_ok = true;

  // cuBLAS at the same precision (tf32: its tf32 tensor-core mode), in place on C like the kernels.
  const tc::CublasMath math = std::is_same_v<P, tc::WmmaTF32> ? tc::CublasMath::Tf32 : tc::CublasMath::Accurate;
  // cuBLAS's int8 GEMM needs lda and ldb to be multiples of 4 (cublasGemmEx documentation); elsewhere it has no
  // yardstick to offer, and the table says so.
  const bool cublas_can = !std::is_same_v<In, std::int8_t> || (lda % 4 == 0 && ldb % 4 == 0);
  double cublas_ms = -1.0;
  if (cublas_can) {
    ops.reset_c();  // cuBLAS reads C when beta != 0: give it the input C, not the fresh allocation's leftovers
    cublas_ms = tc::benchmark(
                    [&] {
                      tc::cublas_gemm<In, Acc>(cublas, tc::Op::N, tc::Op::N, m, n, k, o.alpha, ops.a(), lda, ops.b(),
                                               ldb, o.beta, ops.c(), ldc, ops.c(), ldc, math);
                    },
                    o.warmup, o.repeats)
                    .median_ms;
  }

  for_each_kernel<P>(o.kernels, [&](auto kernel) {
    using Kernel = decltype(kernel);
    auto launch_on = [&](const In* A, const In* B, Acc* C) {
      tc::launch_gemm_any_size<Kernel>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, nullptr);
    };
    // Verify on both operand sets.
    const tc::GemmVerdict v = tc::check_gemm(exact, ops, launch_on);
    all_ok &= v.passed();
    checks.push_back({std::string(Kernel::name) + " " + P::name, v, o.alpha});

    // Time it on the random operands. Where they break the tile contract, time the kernel alone on padded copies
    // made once, and the whole launch (copies in, kernel, copy out) separately.
    Row row;
    row.kernel = Kernel::name;
    row.type = P::name;
    ops.reset_c();
    const bool direct = !tc::tile_contract_problem(Kernel::kTile, m, n, k, ops.a(), lda, ops.b(), ldb, ops.c(), ldc);
    auto whole_launch = [&] { launch_on(ops.a(), ops.b(), ops.c()); };
    if (direct) {
      row.ms = tc::benchmark(whole_launch, o.warmup, o.repeats).median_ms;
    } else {
      tc::PaddedOperands<Kernel> padded(m, n, k, nullptr);
      padded.copy_in(ops.a(), lda, ops.b(), ldb, beta, ops.c(), ldc);
      row.ms = tc::benchmark([&] { padded.run_kernel(alpha, beta); }, o.warmup, o.repeats).median_ms;
      row.ms_with_copies = tc::benchmark(whole_launch, o.warmup, o.repeats).median_ms;
    }
    row.cublas_ms = cublas_ms;
    row.worst_error = v.random.worst_error;
    row.verdict = v.passed() ? "PASS" : "FAIL";
    rows.push_back(row);
  });
  if (cublas_can) rows.push_back(Row{"cuBLAS", P::name, cublas_ms, -1.0, cublas_ms, -1.0, "yardstick"});
  else rows.push_back(Row{"cuBLAS", P::name, -1.0, -1.0, -1.0, -1.0, "n/a: lda, ldb not multiples of 4"});
  return all_ok;
}

void print_table(const Options& o, const std::vector<Row>& rows) {
  const double flops = tc::gemm_flops(o.m, o.n, o.k);
  std::printf("\n== results: C = alpha*A*B + beta*C, %d x %d x %d, column-major, alpha %g, beta %g; median of %d "
              "launches after %d warm-up ==\n",
              o.m, o.n, o.k, o.alpha, o.beta, o.repeats, o.warmup);
  std::printf("%-12s %-10s %10s %9s %9s %12s %12s %9s\n", "kernel", "type", "ms", "TFLOP/s", "% cuBLAS",
              "ms w/ copies", "worst |err|", "verdict");
  for (const Row& r : rows) {
    char copies[32] = "-", error[32] = "-";
    if (r.ms_with_copies >= 0.0) std::snprintf(copies, sizeof copies, "%.4f", r.ms_with_copies);
    if (r.worst_error >= 0.0) std::snprintf(error, sizeof error, "%.3g", r.worst_error);
    char ms[32] = "-", rate[32] = "-", share[32] = "-";
    if (r.ms > 0.0) {
      std::snprintf(ms, sizeof ms, "%.4f", r.ms);
      std::snprintf(rate, sizeof rate, "%.1f", tc::tflops(flops, r.ms));
    }
    if (r.ms > 0.0 && r.cublas_ms > 0.0) std::snprintf(share, sizeof share, "%.1f%%", 100.0 * r.cublas_ms / r.ms);
    std::printf("%-12s %-10s %10s %9s %9s %12s %12s %9s\n", r.kernel.c_str(), r.type.c_str(), ms, rate, share,
                copies, error, r.verdict.c_str());
  }
  std::printf("TFLOP/s (TOPS for s8) counts 2*M*N*K useful operations, padding excluded. \"ms w/ copies\": the whole "
              "launch where\nthe operands broke the kernel's tile contract and went through padded copies; \"-\": "
              "none were needed. worst |err|:\nthe timed (random) operands against fp64; the verdict is both checks "
              "of the verification below.\n");
}

// The table's kernel rows as benchmark-ladder rows (cuBLAS is each row's yardstick column, not a row of its own).
void append_ladder_rows(const Options& o, const std::vector<Row>& rows) {
  std::vector<tc::BenchRow> bench;
  for (const Row& r : rows) {
    if (r.kernel == "cuBLAS") continue;
    bench.push_back({"02", r.kernel, r.type, "NN", {o.m, o.n, o.k}, r.ms, r.cublas_ms, r.verdict == "PASS"});
  }
  tc::append_bench_csv(o.csv, bench);
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The problem.
    tc::Cli cli("02_wmma_tiled_gemm", "C = alpha*A*B + beta*C with WMMA, naive and block-tiled, for every WMMA type, "
                                      "verified and timed against cuBLAS.");
    cli.add_int("m", 4096, "rows of A and C")
        .add_int("n", 4096, "columns of B and C")
        .add_int("k", 4096, "columns of A, rows of B")
        .add_choice("type", "all", {"f16", "bf16", "tf32", "f64", "s8", "all"}, "WMMA precision(s)")
        .add_choice("kernel", "all", {"naive", "block-tiled", "all"}, "kernel(s) to run")
        .add_real("alpha", 1.0, "scale of A*B (an integer for s8)")
        .add_real("beta", 0.0, "scale of C (an integer for s8); 0 means C is not read")
        .add_int("warmup", 5, "untimed launches before timing", 0)
        .add_int("repeats", 30, "timed launches; the median is reported", 20)
        .add_int("seed", 2026, "random seed", 0)
        .add_string("svg", "", "also write the warp-to-tile maps as SVG figures into this folder")
        .add_string("csv", "", "append one row per timed kernel to this CSV (the benchmark ladder, tc/bench_csv.hpp)");
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    tc::require_kernel_image(tc::chapter::kArchitectures);  // a build without code for this GPU stops here, exit 5
    const Options o{int(cli.get_int("m")),        int(cli.get_int("n")),       int(cli.get_int("k")),
                    cli.get_real("alpha"),        cli.get_real("beta"),        int(cli.get_int("warmup")),
                    int(cli.get_int("repeats")),  std::uint64_t(cli.get_int("seed")),
                    cli.get_choice("type"),       cli.get_choice("kernel"),    cli.get_string("svg"),
                    cli.get_string("csv")};
    const bool has_s8 = o.types == "all" || o.types == "s8";
    if (has_s8 && (o.alpha != std::trunc(o.alpha) || o.beta != std::trunc(o.beta))) {
      throw tc::UsageError("s8 GEMM needs integer --alpha and --beta (int32 scale, as in cuBLAS); pick --type");
    }

    tc::print_run_header("Chapter 02: a full GEMM from WMMA tiles", "02_wmma_tiled_gemm", argc, argv);

    // (2) Explain, on the host.
    explain(o);

    // (3) Everything below needs a GPU of SM >= 8.0; without one this exits 77 ("skipped").
    std::printf("\n");
    const tc::DeviceInfo device = tc::require_sm(tc::chapter::kMinSm, "chapter 02 (WMMA GEMM kernels)");

    // Every precision's memory, before anything is allocated: a problem that cannot fit stops here with one line (exit 6).
    for_each_precision(o.types, [&](auto p) {
      tc::require_memory("02_wmma_tiled_gemm " + std::to_string(o.m) + "x" + std::to_string(o.n) + "x" +
                             std::to_string(o.k) + " " + decltype(p)::name,
                         memory_need<decltype(p)>(o));
    });

    // (4) Run, verify and time each precision.
    tc::CublasHandle cublas;
    std::vector<Row> rows;
    std::vector<tc::VerificationRow> checks;
    bool all_ok = true;
    for_each_precision(o.types, [&](auto p) { all_ok &= run_precision<decltype(p)>(o, cublas, rows, checks); });

    // (5) Report.
    print_table(o, rows);
    std::printf("\n== verification: integer operands checked exactly, random ones against fp64 (tc/gemm_check.hpp) "
                "==\n");
    tc::print_verification("kernel", checks);
    const double f16_bytes = 2.0 * (double(o.m) * o.k + double(o.k) * o.n) + 4.0 * double(o.m) * o.n;
    if (f16_bytes < double(device.l2_cache_bytes)) {
      std::printf("note: the f16 operands (%.1f MB) fit in this GPU's %.0f MB L2, so these timings may not touch "
                  "DRAM.\n", f16_bytes / 1e6, device.l2_cache_bytes / 1e6);
    }
    if (!o.csv.empty()) append_ladder_rows(o, rows);
    std::printf("\n%s\n", all_ok ? "RESULT: every kernel matches the reference" : "RESULT: MISMATCH");
    return all_ok ? tc::kExitOk : tc::kExitMismatch;
  });
}
