// Chapter 06: ldmatrix, cp.async and a multi-stage swizzled pipeline -- the tutorial's fastest mma.sync GEMM, one idea
// per step.
//
// Read top to bottom: (1) read the problem from the command line, (2) explain on the host what each step changes:
// the ldmatrix addressing, the shared-memory layouts and their bank cost, each step's tile (this part runs on any
// machine), (3) check for a GPU, (4) probe ldmatrix on the GPU against tc/layouts/ldmatrix.hpp, (5) measure the
// mma.sync ceiling, (6) run every step at every size, verified (integer operands exactly, random ones against fp64:
// tc/gemm_check.hpp) and timed next to cuBLAS in the same process, (7) the tables: TFLOP/s, % of cuBLAS, % of the
// ceiling; the verification; each kernel's registers and shared memory, (8) the verdict.
// Exit codes: README.md, "Exit codes".
#include "chapter_config.hpp"  // tc::chapter::kMinSm, from tc_add_chapter in the top-level CMakeLists.txt
#include "figures.hpp"
#include "gemm_launch.cuh"
#include "ldmatrix_probe.cuh"
#include "mma_ceiling.cuh"

#include "tc/arch_guard.cuh"
#include "tc/bench_csv.hpp"
#include "tc/cli.hpp"
#include "tc/compare.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/device.hpp"
#include "tc/device_buffer.hpp"
#include "tc/gemm_check.hpp"
#include "tc/layouts/ldmatrix.hpp"
#include "tc/layouts/smem_banks.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"
#include "tc/reference.hpp"
#include "tc/timer.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace {

struct Options {
  std::vector<tc::GemmShape> sizes;
  double alpha, beta;
  int warmup, repeats, rest_ms;
  std::uint64_t seed;
  std::string svg_dir, csv;
};

// One step as the table sees it: its name, launcher and kernel (for the resource query), and its tile's facts.
struct StepInfo {
  const char* name;
  void (*launch)(int, int, int, float, const __half*, int, const __half*, int, float, float*, int, cudaStream_t);
  const void* kernel;
  int block_m, block_n, block_k, warps, stages, smem_bytes;
  const char* layout;
};

template <typename Step, typename Tile>
StepInfo step_info(const char* layout) {
  return {Step::name,  launch_step_gemm<Step, Tile>, reinterpret_cast<const void*>(Step::template kernel<Tile>()),
          Tile::BlockM, Tile::BlockN, Tile::BlockK, Tile::kThreads / tc::kWarpSize, Tile::Stages, Tile::kSmemBytes,
          layout};
}

std::vector<StepInfo> steps() {
  return {step_info<Step1Ldmatrix, Step1Tile>("padded +16 B, registers"),
          step_info<Step2CpAsync, Step2Tile>("padded +16 B, cp.async"),
          step_info<Step3Multistage, Step3Tile>("swizzled, cp.async"),
          step_info<Step4Tuned, Step4Tile>("swizzled, cp.async")};
}

// (2) What each step changes, on the host.
template <typename Tile>
int a_phase_wavefronts(int row0, int k0) {  // one ldmatrix.x4 of A from the kernel's own offsets: its 4 phases
  std::vector<std::int64_t> rows;
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    rows.push_back(std::int64_t(Tile::a_ldmatrix_offset(row0, k0, lane)) * int(sizeof(__half)));
  return tc::ldmatrix_cost(rows).wavefronts;
}

void explain(const Options& o) {
  std::printf("\n== ldmatrix.x4: the row each lane points at (tc/layouts/ldmatrix.hpp) ==\n");
  std::printf("A fragment (16 x 16, K along the lines), lane -> (row, k):\n");
  for (int lane = 0; lane < tc::kWarpSize; ++lane) {
    const tc::Coord s = tc::ldmatrix_x4_a_source(lane);
    std::printf("  %2d->(%2d,%d)%s", lane, s.row, s.col, lane % 8 == 7 ? "\n" : "");
  }
  std::printf("two B fragments (n 0..15, K along the lines), lane -> (n, k):\n");
  for (int lane = 0; lane < tc::kWarpSize; ++lane) {
    const tc::Coord s = tc::ldmatrix_x4_b_source(lane);
    std::printf("  %2d->(%2d,%d)%s", lane, s.row, s.col, lane % 8 == 7 ? "\n" : "");
  }
  std::printf("composed with ldmatrix's own lane map, these give exactly the m16n8k16 fragments: A %s, B %s, B from "
              "an N-contiguous tile with .trans %s\n",
              tc::ldmatrix_x4_gives_mma_a() ? "yes" : "NO", tc::ldmatrix_x4_gives_mma_b(false) ? "yes" : "NO",
              tc::ldmatrix_x4_gives_mma_b(true) ? "yes" : "NO");

  std::printf("\n== shared-memory layouts: wavefronts of one ldmatrix.x4 of A (4 phases; 4 is conflict-free) ==\n");
  using Flat = GemmTile<128, 128, 32, 2, 4, 2, tc::Padded<0>>;
  std::printf("%-34s %d\n", "unpadded 64-byte lines", a_phase_wavefronts<Flat>(0, 0));
  std::printf("%-34s %d\n", "padded by 16 bytes (steps 1, 2)", a_phase_wavefronts<Step1Tile>(0, 0));
  std::printf("%-34s %d\n", "XOR-swizzled (steps 3, 4)", a_phase_wavefronts<Step3Tile>(0, 0));

  std::printf("\n== the steps ==\n%-14s %-13s %-6s %-7s %-10s %-26s\n", "step", "block tile", "warps", "stages",
              "smem (B)", "shared layout, copy");
  for (const StepInfo& s : steps()) {
    const std::string tile =
        std::to_string(s.block_m) + "x" + std::to_string(s.block_n) + "x" + std::to_string(s.block_k);
    std::printf("%-14s %-13s %-6d %-7d %-10d %-26s\n", s.name, tile.c_str(), s.warps, s.stages, s.smem_bytes, s.layout);
  }
  using T = Step1Tile;
  using S = tc::MmaM16N8K16;
  std::printf("per warp and K step of 16, a %d x %d warp tile (steps 1-3) takes %d + %d ldmatrix.x4 for %d mma.sync; "
              "chapter 05 loaded the same fragments with %d + %d LDS.32\n",
              T::WarpM, T::WarpN, T::TilesM, T::TilesN / 2, T::TilesM * T::TilesN, T::TilesM * S::kRegsA,
              T::TilesN * S::kRegsB);
  if (!o.svg_dir.empty()) {
    for (const Figure& f : chapter_figures()) tc::write_text_file(o.svg_dir + "/" + f.file, f.svg);
  }
}

// (4) The probe: every ldmatrix variant against the layout functions.
template <int Num, bool Trans>
bool probe_one() {
  const tc::LaneMap measured = probe_ldmatrix<Num, Trans>();
  const tc::LaneMap predicted = tc::ldmatrix_map(Num, Trans);
  int differ = 0;
  for (int lane = 0; lane < tc::kWarpSize; ++lane)
    for (int e = 0; e < 2 * Num; ++e) differ += measured.at(lane, e) != predicted.at(lane, e);
  std::printf("ldmatrix.x%d%-6s %2d lanes x %d elements: %d differ from tc::ldmatrix_map -> %s\n", Num,
              Trans ? ".trans" : "", tc::kWarpSize, 2 * Num, differ, differ == 0 ? "match" : "MISMATCH");
  return differ == 0;
}

// (6) One step at one size: verified on the two operand sets of tc/gemm_check.hpp, timed on the random one.
struct Row {
  tc::GemmShape s;
  const char* step;
  double ms = 0, cublas_ms = 0;
  bool passed = false;
};

// A row-major (op T, lda = k), B column-major (op N, ldb = k), C column-major (ldc = m).
tc::GemmProblem problem(const Options& o, const tc::GemmShape& s) {
  return tc::GemmProblem::tight(tc::Op::T, tc::Op::N, s.m, s.n, s.k, o.alpha, o.beta);
}

// What one size allocates: both checks and the padded copies of the step with the largest block tile.
tc::MemoryNeed memory_need(const Options& o, const tc::GemmShape& s) {
  return tc::gemm_check_memory<__half, float>(problem(o, s)) +
         tc::padded_operands_memory<LdsmGemm<Step4Tuned, Step4Tile>>(s.m, s.n, s.k);
}

// Both operand sets of one size, made once and shared by every step.
struct Operands {
  tc::ExactCheck<__half, float> exact;
  tc::RandomOperands<__half, float> random;
};

Row run_step(const Options& o, Operands& p, const StepInfo& step, double cublas_ms,
             std::vector<tc::VerificationRow>& checks) {
  const tc::GemmProblem& g = p.random.problem();
  auto launch_on = [&](const __half* A, const __half* B, float* C) {
    step.launch(g.m, g.n, g.k, float(o.alpha), A, g.lda, B, g.ldb, float(o.beta), C, g.ldc, nullptr);
  };
  Row row{{g.m, g.n, g.k}, step.name};
  const tc::GemmVerdict v = tc::check_gemm(p.exact, p.random, launch_on);
  row.passed = v.passed();
  checks.push_back({std::to_string(g.m) + "x" + std::to_string(g.n) + "x" + std::to_string(g.k) + " " + step.name, v,
                    o.alpha});
  p.random.reset_c();
  tc::rest_gpu(o.rest_ms);  // every timing starts from the same rested GPU, at the same clock (tc/timer.hpp)
  row.ms = tc::benchmark([&] { launch_on(p.random.a(), p.random.b(), p.random.c()); }, o.warmup, o.repeats).median_ms;
  row.cublas_ms = cublas_ms;
  return row;
}

double time_cublas(const Options& o, Operands& p, const tc::CublasHandle& cublas) {
  const tc::GemmProblem& g = p.random.problem();
  p.random.reset_c();  // cuBLAS reads C when beta != 0: give it the input C
  tc::rest_gpu(o.rest_ms);
  return tc::benchmark([&] { tc::cublas_gemm<__half, float>(cublas, tc::Op::T, tc::Op::N, g.m, g.n, g.k, o.alpha,
                                                            p.random.a(), g.lda, p.random.b(), g.ldb, o.beta,
                                                            p.random.c(), g.ldc, p.random.c(), g.ldc); },
                       o.warmup, o.repeats)
      .median_ms;
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    // (1) The problem.
    tc::Cli cli("06_ldmatrix_cp_async", "ldmatrix + cp.async + a multi-stage swizzled pipeline: four mma.sync GEMM "
                                        "steps (fp16 in, fp32 accumulate, A row-major, B column-major) timed against "
                                        "cuBLAS and the mma.sync ceiling.");
    cli.add_shapes("sizes", "4096,8192", "GEMM sizes: S (S x S x S) or MxNxK, comma-separated")
        .add_real("alpha", 1.0, "scale of A*B")
        .add_real("beta", 0.0, "scale of C; 0 means C is not read")
        .add_int("warmup", 5, "untimed launches before timing", 0)
        .add_int("repeats", 20, "timed launches; the median is reported", 20)
        .add_int("rest-ms", 1500, "idle milliseconds before each timing, so that every kernel and cuBLAS start at "
                                  "the same clock",
                 0)
        .add_int("seed", 2026, "random seed", 0)
        .add_string("svg", "", "write the chapter's figures (as 06_figures does) into this folder")
        .add_string("csv", "", "append one row per timed kernel to this CSV (the benchmark ladder, tc/bench_csv.hpp)");
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    tc::require_kernel_image(tc::chapter::kArchitectures);  // a build without code for this GPU stops here, exit 5
    const Options o{cli.get_shapes("sizes"),      cli.get_real("alpha"),        cli.get_real("beta"),
                    int(cli.get_int("warmup")),   int(cli.get_int("repeats")), int(cli.get_int("rest-ms")),
                    std::uint64_t(cli.get_int("seed")), cli.get_string("svg"), cli.get_string("csv")};

    tc::print_run_header("Chapter 06: ldmatrix, cp.async and a multi-stage swizzled pipeline", "06_ldmatrix_cp_async",
                         argc, argv);

    // (2) Explain, on the host.
    explain(o);

    // (3) Everything below needs a GPU of SM >= 8.0 (cp.async, m16n8k16); without one this exits 77 ("skipped").
    std::printf("\n");
    tc::require_sm(tc::chapter::kMinSm, "chapter 06 (cp.async and mma.sync kernels)");
    // Every size's memory, before anything is allocated: a problem that cannot fit stops here with one line (exit 6).
    for (const tc::GemmShape& s : o.sizes) {
      tc::require_memory("06_ldmatrix_cp_async " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                             std::to_string(s.k),
                         memory_need(o, s));
    }

    // (4) The probe.
    std::printf("== probe: every ldmatrix variant on a coordinate-encoded tile (ldmatrix_probe.cuh) ==\n");
    bool all_ok = probe_one<1, false>() & probe_one<2, false>() & probe_one<4, false>();
    all_ok &= probe_one<1, true>() & probe_one<2, true>() & probe_one<4, true>();

    // (5) The ceiling, in this process.
    const MmaCeiling ceiling = measure_mma_ceiling(o.warmup, o.repeats);
    std::printf("\n== the mma.sync ceiling (mma_ceiling.cuh): %d warps per SM, %d independent m16n8k16 chains each, "
                "operands in registers ==\n%.1f TFLOP/s (median of %d launches, %.3f ms each)\n",
                MmaCeiling::kBlocksPerSm * MmaCeiling::kThreads / tc::kWarpSize, MmaCeiling::kChains, ceiling.tflops,
                o.repeats, ceiling.median_ms);

    // (6) Every step at every size.
    tc::CublasHandle cublas;
    std::vector<Row> rows;
    std::vector<tc::VerificationRow> checks;
    for (const tc::GemmShape& s : o.sizes) {
      Operands p{tc::ExactCheck<__half, float>(cublas, problem(o, s), o.seed + 10),
                 tc::RandomOperands<__half, float>(cublas, problem(o, s), o.seed)};
      const double cublas_ms = time_cublas(o, p, cublas);
      for (const StepInfo& step : steps()) rows.push_back(run_step(o, p, step, cublas_ms, checks));
    }

    // (7) The table.
    std::printf("\n== results: C = alpha*A*B + beta*C, fp16 in, fp32 accumulate, A row-major, B column-major (TN), "
                "alpha %g, beta %g; median of %d launches after %d warm-up, each timing after %d ms idle ==\n",
                o.alpha, o.beta, o.repeats, o.warmup, o.rest_ms);
    std::printf("%-16s %-14s %9s %9s %9s %9s %10s %8s\n", "size", "step", "ms", "TFLOP/s", "cuBLAS", "% cuBLAS",
                "% ceiling", "verdict");
    for (const Row& r : rows) {
      const double flops = tc::gemm_flops(r.s.m, r.s.n, r.s.k);
      const std::string size = std::to_string(r.s.m) + "x" + std::to_string(r.s.n) + "x" + std::to_string(r.s.k);
      std::printf("%-16s %-14s %9.4f %9.1f %9.1f %8.1f%% %9.1f%% %8s\n", size.c_str(), r.step, r.ms,
                  tc::tflops(flops, r.ms), tc::tflops(flops, r.cublas_ms), 100.0 * r.cublas_ms / r.ms,
                  100.0 * tc::tflops(flops, r.ms) / ceiling.tflops, r.passed ? "PASS" : "FAIL");
      all_ok &= r.passed;
    }
    std::printf("cuBLAS: cublasGemmEx fp16 -> fp32, transa T, transb N, timed in this process; ceiling: %.1f TFLOP/s "
                "measured above. Sizes off a step's block tile include the padded copies.\n",
                ceiling.tflops);
    std::printf("\n== verification: integer operands checked exactly, random ones against fp64 (tc/gemm_check.hpp) "
                "==\n");
    tc::print_verification("size             step", checks);
    if (!o.csv.empty()) {
      std::vector<tc::BenchRow> bench;
      for (const Row& r : rows) bench.push_back({"06", r.step, "f16->f32", "TN", r.s, r.ms, r.cublas_ms, r.passed});
      tc::append_bench_csv(o.csv, bench);
    }
    std::printf("\n== kernel resources (cudaFuncGetAttributes) ==\n%-14s %10s %12s %12s\n", "kernel", "registers",
                "shared (B)", "spills (B)");
    for (const StepInfo& s : steps()) {
      cudaFuncAttributes attr{};
      TC_CHECK(cudaFuncGetAttributes(&attr, s.kernel));
      std::printf("%-14s %10d %12d %12zu\n", s.name, attr.numRegs, s.smem_bytes, std::size_t(attr.localSizeBytes));
    }

    // (8) The verdict.
    std::printf("\n%s\n", all_ok ? "RESULT: every kernel and probe matches its reference" : "RESULT: MISMATCH");
    return all_ok ? tc::kExitOk : tc::kExitMismatch;
  });
}
