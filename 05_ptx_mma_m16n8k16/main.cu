// Chapter 05: inline PTX mma.sync.m16n8k16, with every fragment element loaded where the PTX ISA's formulas say.
//
// Read top to bottom: (1) read the problem from the command line, (2) print the three fragment layouts from the
// formulas, and what a GEMM built on them loads per mma (this part runs on any machine), (3) check for a GPU and that
// every size fits in memory, (4) one tile by hand with the f16-accumulate variant, checked against the CPU, plus the
// f32 and bf16 variants, then each variant through the two checks of tc/gemm_check.hpp,
// (5) the hardware probe: where the real instruction puts each register, against the formulas and against
// chapter 01's WMMA fragments, (6) the GEMM at each size, verified and timed next to cuBLAS in the same process,
// (7) the verdict. Exit codes: README.md, "Exit codes".
#include "chapter_config.hpp"  // tc::chapter::kMinSm, from tc_add_chapter in the top-level CMakeLists.txt
#include "lane_figures.hpp"
#include "mma_gemm.cuh"
#include "mma_probe.cuh"
#include "mma_single_tile.cuh"

#include "tc/arch_guard.cuh"
#include "tc/bench_csv.hpp"
#include "tc/cli.hpp"
#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_check.hpp"
#include "tc/layouts/smem_banks.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"
#include "tc/matrix.hpp"
#include "tc/reference.hpp"
#include "tc/timer.hpp"
#include "tc/wmma_probe.cuh"

#include <array>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using S = tc::MmaM16N8K16;

struct Options {
  std::vector<tc::GemmShape> sizes;
  double alpha, beta;
  int warmup, repeats;
  std::uint64_t seed;
  std::string svg_dir, csv;
};

// (2) The layouts and what they cost a GEMM, on the host.
template <typename Tile>
tc::AccessCost a_register_load_cost() {  // one warp's 32-bit load of A register 0, from the kernel's own addresses
  std::array<std::int64_t, tc::kWarpSize> address{};
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    address[lane] = std::int64_t(Tile::a_register_offset(0, 0, lane, 0)) * sizeof(__half);
  return tc::vector_access_cost(address, 4);
}

void explain(const Options& o) {
  const char* names[] = {"A (16 x 16, M x K)", "B (16 x 8, K x N)", "C/D (16 x 8, M x N)"};
  const char* regs[] = {"a", "b", "c"};
  const tc::MmaOperand ops[] = {tc::MmaOperand::A, tc::MmaOperand::B, tc::MmaOperand::C};
  for (int o_i = 0; o_i < 3; ++o_i) {
    const tc::LaneMap map = tc::mma_m16n8k16_map(ops[o_i]);
    std::printf("\n== m16n8k16 %s: the PTX ISA's formulas (tc/layouts/mma_m16n8k16.hpp) ==\n", names[o_i]);
    std::fputs(map.format_lane_list(regs[o_i]).c_str(), stdout);
    std::printf("which lane holds each element:\n");
    std::fputs(map.format_grid().c_str(), stdout);
  }
  std::printf("\nRegister packing: element 2j sits in bits 0..15 and element 2j+1 in bits 16..31 of 32-bit register "
              "j (C: only with .f16\naccumulators; .f32 C is one register per element). The pair are K neighbours "
              "in A and B, so one 32-bit load\nfrom a K-contiguous tile fills one register.\n");
  if (!o.svg_dir.empty()) {
    for (const LaneFigure& f : mma_lane_figures()) tc::write_text_file(o.svg_dir + "/" + f.file, f.svg);
  }

  using T = DefaultMmaTile;
  const int loads = T::TilesM * S::kRegsA + T::TilesN * S::kRegsB, mmas = T::TilesM * T::TilesN;
  std::printf("\n== the GEMM's fragment loads (host arithmetic: MmaTile) ==\n");
  std::printf("block tile %d x %d, %d warps of %d x %d = %d x %d m16n8 tiles; per warp and K step of 16: %d x %d A "
              "registers + %d x %d B registers\n= %d shared loads of 4 bytes per lane (%d bytes per warp each) for %d "
              "mma.sync: %.1f loads per mma\n",
              T::BlockM, T::BlockN, T::kThreads / tc::kWarpSize, T::WarpM, T::WarpN, T::TilesM, T::TilesN, T::TilesM,
              S::kRegsA, T::TilesN, S::kRegsB, loads, tc::kWarpSize * 4, mmas, double(loads) / mmas);
  const tc::AccessCost skewed = a_register_load_cost<T>();
  const tc::AccessCost flat = a_register_load_cost<MmaTile<128, 128, 32, 2, 4, 0>>();
  std::printf("bank cost of one such load (bank calculator, tc/layouts/smem_banks.hpp): skew %d halves (ld %d): %d "
              "wavefront(s); no skew (ld %d): %d\n",
              T::Skew, T::kLd, skewed.wavefronts, T::BlockK, flat.wavefronts);
}

// (4) One tile, with A[m][k] = 0.01 * (16m + k) and B[k][n] = 0.01 * (8k + n) rounded to the input type, C = 0.
// Its check is the K-scaled bound of real data, which at the f16 variant's bound cannot see every K column (docs/05,
// "What the checks catch"), so single_tile_checks, below, checks each variant on integers too.
template <typename Mma>
bool single_tile(bool print) {
  using In = typename Mma::Input;
  using Out = typename Mma::Output;
  tc::HostMatrix<In, tc::RowMajor> a(S::M, S::K), b(S::K, S::N);
  for (int r = 0; r < S::M; ++r)
    for (int c = 0; c < S::K; ++c) a(r, c) = tc::from_double<In>(0.01 * (16 * r + c));
  for (int r = 0; r < S::K; ++r)
    for (int c = 0; c < S::N; ++c) b(r, c) = tc::from_double<In>(0.01 * (8 * r + c));
  // The CPU reference in double on the rounded inputs; row-major storage is op T in cuBLAS's column-major terms.
  const tc::GemmReference ref = tc::reference_gemm(tc::op_of<tc::RowMajor>(), tc::op_of<tc::RowMajor>(), S::M, S::N,
                                                   S::K, 1.0, a.storage(), a.ld(), b.storage(), b.ld(), 0.0,
                                                   std::vector<float>{}, S::M);

  tc::DeviceBuffer<In> d_a(a.storage()), d_b(b.storage());
  tc::DeviceBuffer<Out> d_c(std::vector<Out>(S::M * S::N, tc::from_double<Out>(0.0))), d_d(S::M * S::N);
  d_d.poison();
  launch_mma_single_tile<Mma>(S::M, S::N, S::K, d_a.data(), a.ld(), d_b.data(), b.ld(), d_c.data(), S::N, d_d.data(),
                              S::N);
  const std::vector<Out> d = d_d.download();  // row-major, ld 8
  std::vector<Out> d_col(d.size());
  for (int r = 0; r < S::M; ++r)
    for (int c = 0; c < S::N; ++c) d_col[r + c * S::M] = d[r * S::N + c];
  const tc::CompareResult r = tc::compare(S::M, S::N, S::K, d_col.data(), S::M, ref, tc::random_operand_tolerance<Out>());
  if (print) {
    std::printf("D = A * B (%s), row by row:\n", Mma::name);
    for (int row = 0; row < S::M; ++row) {
      for (int c = 0; c < S::N; ++c) std::printf("%8.3f", tc::to_double(d[row * S::N + c]));
      std::printf("\n");
    }
  }
  std::printf("mma.sync.aligned.m16n8k16.row.col.%-18s %s\n", Mma::name, r.summary().c_str());
  return r.passed;
}

// (4b) The same instruction through the chapter's two checks (tc/gemm_check.hpp): D = A * B + C on integer operands,
// exactly, and on random ones. A row-major (op T), B column-major (op N), C and D column-major, in place.
template <typename Mma>
tc::VerificationRow single_tile_checks(const tc::CublasHandle& cublas, std::uint64_t seed) {
  using In = typename Mma::Input;
  using Out = typename Mma::Output;
  const tc::GemmProblem p{tc::Op::T, tc::Op::N, S::M, S::N, S::K, S::K, S::K, S::M, 1.0, 1.0};
  tc::ExactCheck<In, Out> exact(cublas, p, seed);
  tc::RandomOperands<In, Out> random(cublas, p, seed + 3);
  auto launch = [](const In* A, const In* B, Out* C) {
    // C and D may be one buffer: each lane reads its C elements before the mma and writes the same ones after it.
    launch_mma_single_tile<Mma, tc::RowMajor, tc::ColMajor, tc::ColMajor>(S::M, S::N, S::K, A, S::K, B, S::K, C, S::M,
                                                                          C, S::M);
  };
  return {std::string("m16n8k16.row.col.") + Mma::name, tc::check_gemm(exact, random, launch), p.alpha};
}

// (5) The probe, for one variant: does the hardware agree with the formulas?
template <typename Mma>
bool probe(bool print_recovered) {
  const MmaProbeResult p = probe_mma_m16n8k16<Mma>();
  const bool a_ok = p.a == tc::mma_m16n8k16_map(tc::MmaOperand::A);
  const bool b_ok = p.b == tc::mma_m16n8k16_map(tc::MmaOperand::B);
  const bool c_ok = p.c_kept == tc::kWarpSize * S::kElemsC;
  std::printf("%-18s %zu outputs, %d differ from the formulas' prediction; recovered A %s, B %s the formulas; %d/%d C "
              "registers kept their lane and register in D\n",
              Mma::name, p.measured.size(), p.mismatches, a_ok ? "=" : "!=", b_ok ? "=" : "!=", p.c_kept,
              tc::kWarpSize * S::kElemsC);
  if (print_recovered) {
    std::printf("recovered A (%s), measured: lane l's a_i holds A(row, col)\n", Mma::name);
    std::fputs(p.a.format_lane_list("a").c_str(), stdout);
  }
  return p.mismatches == 0 && a_ok && b_ok && c_ok;
}

// The WMMA 16x16x16 shape for chapter 01's probe (tc/wmma_probe.cuh).
struct Wmma16x16x16 {
  static constexpr int M = 16, N = 16, K = 16;
};

// (5b) Chapter 01's measured WMMA fragments next to the m16n8k16 formulas.
bool compare_with_wmma() {
  using namespace nvcuda;
  const tc::LaneMap a = tc::probe_wmma_fragment<wmma::matrix_a, Wmma16x16x16, tc::RowMajor>();
  const tc::LaneMap b = tc::probe_wmma_fragment<wmma::matrix_b, Wmma16x16x16, tc::ColMajor>();
  const tc::LaneMap c = tc::probe_wmma_fragment<wmma::accumulator, Wmma16x16x16, tc::RowMajor>();
  struct Check {
    const char* fragment;
    const tc::LaneMap* map;
    int first, count;
    tc::MmaOperand op;
    int shift;
    const char* meaning;
  };
  const Check checks[] = {
      {"matrix_a row_major", &a, 0, 8, tc::MmaOperand::A, 0, "m16n8k16 A, a0..a7"},
      {"matrix_a row_major", &a, 8, 8, tc::MmaOperand::A, 0, "m16n8k16 A again (a second copy)"},
      {"matrix_b col_major", &b, 0, 4, tc::MmaOperand::B, 0, "m16n8k16 B, b0..b3, columns 0..7"},
      {"matrix_b col_major", &b, 4, 4, tc::MmaOperand::B, 8, "m16n8k16 B, b0..b3, columns 8..15"},
      {"matrix_b col_major", &b, 8, 4, tc::MmaOperand::B, 0, "columns 0..7 again (a second copy)"},
      {"matrix_b col_major", &b, 12, 4, tc::MmaOperand::B, 8, "columns 8..15 again"},
      {"accumulator", &c, 0, 4, tc::MmaOperand::C, 0, "m16n8k16 C, c0..c3, columns 0..7"},
      {"accumulator", &c, 4, 4, tc::MmaOperand::C, 8, "m16n8k16 C, c0..c3, columns 8..15"},
  };
  std::printf("%-20s %-9s %-36s %s\n", "WMMA 16x16x16", "elements", "sit where the formulas put", "matching");
  bool all = true;
  for (const Check& ch : checks) {
    const int matches = count_wmma_matches(*ch.map, ch.first, ch.count, ch.op, ch.shift);
    const int total = tc::kWarpSize * ch.count;
    const std::string elements = "x[" + std::to_string(ch.first) + ".." + std::to_string(ch.first + ch.count - 1) + "]";
    std::printf("%-20s %-9s %-36s %d/%d\n", ch.fragment, elements.c_str(), ch.meaning, matches, total);
    all &= matches == total;
  }
  std::printf("num_elements: matrix_a %d, matrix_b %d, accumulator %d\n", a.slots(), b.slots(), c.slots());
  return all;
}

// (6) The GEMM at one size: the two operand sets of tc/gemm_check.hpp, verified on both, timed next to cuBLAS.
struct Row {
  tc::GemmShape s;
  double ms = 0, cublas_ms = 0;
  bool passed = false;
};

// A row-major (op T, lda = k), B column-major (op N, ldb = k), C column-major (ldc = m).
tc::GemmProblem problem(const Options& o, const tc::GemmShape& s) {
  return tc::GemmProblem::tight(tc::Op::T, tc::Op::N, s.m, s.n, s.k, o.alpha, o.beta);
}

// What one size allocates: both checks and the kernel's padded copies.
tc::MemoryNeed memory_need(const Options& o, const tc::GemmShape& s) {
  return tc::gemm_check_memory<__half, float>(problem(o, s)) + tc::padded_operands_memory<MmaGemm<>>(s.m, s.n, s.k);
}

Row gemm(const Options& o, const tc::GemmShape& s, const tc::CublasHandle& cublas,
         std::vector<tc::VerificationRow>& checks) {
  const tc::GemmProblem p = problem(o, s);
  const auto alpha = float(o.alpha), beta = float(o.beta);
  auto launch_on = [&](const __half* A, const __half* B, float* C) {
    launch_mma_gemm(p.m, p.n, p.k, alpha, A, p.lda, B, p.ldb, beta, C, p.ldc);
  };
  tc::ExactCheck<__half, float> exact(cublas, p, o.seed + 10);
  tc::RandomOperands<__half, float> ops(cublas, p, o.seed);
  const tc::GemmVerdict v = tc::check_gemm(exact, ops, launch_on);
  const std::string size = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  checks.push_back({size + " " + MmaGemm<>::name, v, o.alpha});

  Row row{s};
  row.passed = v.passed();
  ops.reset_c();
  row.ms = tc::benchmark([&] { launch_on(ops.a(), ops.b(), ops.c()); }, o.warmup, o.repeats).median_ms;
  ops.reset_c();  // cuBLAS reads C when beta != 0: give it the input C
  row.cublas_ms = tc::benchmark([&] { tc::cublas_gemm<__half, float>(cublas, tc::Op::T, tc::Op::N, p.m, p.n, p.k,
                                                                     o.alpha, ops.a(), p.lda, ops.b(), p.ldb, o.beta,
                                                                     ops.c(), p.ldc, ops.c(), p.ldc); },
                                o.warmup, o.repeats)
                      .median_ms;
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The problem.
    tc::Cli cli("05_ptx_mma_m16n8k16", "mma.sync.m16n8k16 in inline PTX: one tile by the ISA's lane formulas, a "
                                       "probe of the real instruction, and a GEMM (fp16 in, fp32 accumulate, A "
                                       "row-major, B column-major) timed against cuBLAS.");
    cli.add_shapes("sizes", "1024,4096", "GEMM sizes: S (S x S x S) or MxNxK, comma-separated")
        .add_real("alpha", 1.0, "scale of A*B")
        .add_real("beta", 0.0, "scale of C; 0 means C is not read")
        .add_int("warmup", 5, "untimed launches before timing", 0)
        .add_int("repeats", 30, "timed launches; the median is reported", 20)
        .add_int("seed", 2026, "random seed", 0)
        .add_string("svg", "", "write the lane diagrams (as 05_lane_figures does) into this folder")
        .add_string("csv", "", "append one row per timed kernel to this CSV (the benchmark ladder, tc/bench_csv.hpp)");
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    tc::require_kernel_image(tc::chapter::kArchitectures);  // a build without code for this GPU stops here, exit 5
    const Options o{cli.get_shapes("sizes"),    cli.get_real("alpha"),        cli.get_real("beta"),
                    int(cli.get_int("warmup")), int(cli.get_int("repeats")), std::uint64_t(cli.get_int("seed")),
                    cli.get_string("svg"), cli.get_string("csv")};

    tc::print_run_header("Chapter 05: inline PTX mma.sync.m16n8k16", "05_ptx_mma_m16n8k16", argc, argv);

    // (2) Explain, on the host.
    explain(o);

    // (3) Everything below needs a GPU of SM >= 8.0 (m16n8k16); without one this exits 77 ("skipped").
    std::printf("\n");
    tc::require_sm(tc::chapter::kMinSm, "chapter 05 (mma.sync kernels)");

    // Every size's memory, before anything is allocated: a problem that cannot fit stops here with one line (exit 6).
    for (const tc::GemmShape& s : o.sizes) {
      tc::require_memory("05_ptx_mma_m16n8k16 " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                             std::to_string(s.k),
                         memory_need(o, s));
    }
    tc::CublasHandle cublas;

    // (4) One tile by hand, then each variant through the chapter's two checks.
    std::printf("== one tile: A[m][k] = 0.01*(16m+k), B[k][n] = 0.01*(8k+n), both row-major, C = 0 ==\n");
    bool all_ok = single_tile<tc::MmaF16F16F16F16>(true);
    all_ok &= single_tile<tc::MmaF32F16F16F32>(false);
    all_ok &= single_tile<tc::MmaF32BF16BF16F32>(false);
    const std::vector<tc::VerificationRow> tile_checks = {single_tile_checks<tc::MmaF16F16F16F16>(cublas, o.seed),
                                                          single_tile_checks<tc::MmaF32F16F16F32>(cublas, o.seed),
                                                          single_tile_checks<tc::MmaF32BF16BF16F32>(cublas, o.seed)};
    std::printf("\n== verification: one tile, D = A*B + C, integer operands checked exactly, random ones against "
                "fp64 (tc/gemm_check.hpp) ==\n");
    tc::print_verification("instruction", tile_checks);
    for (const tc::VerificationRow& r : tile_checks) all_ok &= r.verdict.passed();

    // (5) The probe, then WMMA beside it.
    std::printf("\n== probe: %d runs of the real instruction with numbered registers (mma_probe.cuh) ==\n", kProbeRuns);
    all_ok &= probe<tc::MmaF32F16F16F32>(true);
    all_ok &= probe<tc::MmaF16F16F16F16>(false);
    all_ok &= probe<tc::MmaF32BF16BF16F32>(false);
    std::printf("A and B are measured against D's (row, col) and B's K as the formulas place them (the anchors). C's "
                "(row, col) is\nnot measured: the instruction only shows that C register (lane, i) becomes D "
                "register (lane, i); the C/D formula,\nas a kernel's store uses it, is the anchor.\n");
    std::printf("\n== chapter 01's WMMA fragments (measured) against the m16n8k16 formulas ==\n");
    all_ok &= compare_with_wmma();

    // (6) The GEMM.
    std::vector<Row> rows;
    std::vector<tc::VerificationRow> checks;
    for (const tc::GemmShape& s : o.sizes) rows.push_back(gemm(o, s, cublas, checks));
    std::printf("\n== results: C = alpha*A*B + beta*C, fp16 in, fp32 accumulate, A row-major, B column-major (TN), "
                "alpha %g, beta %g; median of %d launches after %d warm-up ==\n",
                o.alpha, o.beta, o.repeats, o.warmup);
    std::printf("%-16s %-9s %10s %9s %14s %9s %8s\n", "size", "kernel", "ms", "TFLOP/s", "cuBLAS TFLOP/s",
                "% cuBLAS", "verdict");
    for (const Row& r : rows) {
      const double flops = tc::gemm_flops(r.s.m, r.s.n, r.s.k);
      const std::string size = std::to_string(r.s.m) + "x" + std::to_string(r.s.n) + "x" + std::to_string(r.s.k);
      std::printf("%-16s %-9s %10.4f %9.1f %14.1f %8.1f%% %8s\n", size.c_str(), MmaGemm<>::name, r.ms,
                  tc::tflops(flops, r.ms), tc::tflops(flops, r.cublas_ms), 100.0 * r.cublas_ms / r.ms,
                  r.passed ? "PASS" : "FAIL");
      all_ok &= r.passed;
    }
    std::printf("cuBLAS: cublasGemmEx fp16 -> fp32, transa T, transb N, timed in this process. Sizes off the 128 x 128 "
                "x 32 tile include the padded copies.\n");
    std::printf("\n== verification: the GEMM, integer operands checked exactly, random ones against fp64 "
                "(tc/gemm_check.hpp) ==\n");
    tc::print_verification("size             kernel", checks);
    if (!o.csv.empty()) {
      std::vector<tc::BenchRow> bench;
      for (const Row& r : rows) {
        bench.push_back({"05", MmaGemm<>::name, "f16->f32", "TN", r.s, r.ms, r.cublas_ms, r.passed});
      }
      tc::append_bench_csv(o.csv, bench);
    }

    // (7) The verdict.
    std::printf("\n%s\n", all_ok ? "RESULT: every kernel and probe matches its reference" : "RESULT: MISMATCH");
    return all_ok ? tc::kExitOk : tc::kExitMismatch;
  });
}
