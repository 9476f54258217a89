// The GEMM driver: everything a chapter binary does around its kernels, written once.
//
// A chapter's main.cu names its kernels and prints its own sections (layouts, probes, bank tables, a ceiling); the
// driver does the rest, the same way in every chapter:
//   1. the command line: --sizes, --alpha, --beta, --warmup, --repeats, [--rest-ms], --seed, [--bench], --svg,
//      --csv, beside the chapter's own choices (--type, --kernel, ...), with one-line errors (exit 2), all checked
//      before any work: a --csv or --svg path that cannot be written is refused here, not after the run;
//   2. before anything is allocated: the host memory every group needs at every size (exit 6 when it cannot fit,
//      with or without a GPU), then the GPU's SM (exit 77 without a suitable one) and its memory (exit 6);
//   3. per size and group (one precision and op pair): the two operand sets of tc/gemm_check.hpp (integers checked
//      exactly, random reals against fp64), cuBLAS timed on the random ones at the same precision and ops, then each
//      kernel verified on both sets and timed on the random one, alone and, where its tile contract needs them, with
//      its padded copies;
//   4. the results table (TFLOP/s, % of cuBLAS, % of a ceiling where the chapter measured one), the verification
//      table, the benchmark-ladder CSV rows (tc/bench_csv.hpp) and the RESULT line with its exit code (1 on any
//      mismatch).
// Statistic: the median of --repeats launches after --warmup untimed ones, each timing after --rest-ms of idle GPU
// (tc::rest_gpu; 0 where the chapter has no --rest-ms flag).
// Two runs, for a chapter that offers --bench (DriverConfig::bench_flag): the default run is the demonstration, a
// few seconds on an H200 (default_sizes, no rest between timings); --bench is the benchmark whose tables docs/results
// records (bench_sizes, default_rest_ms before each timing, so that every kernel and yardstick starts at the same
// clock). A --sizes or --rest-ms given on the command line wins over either.
// Units: sizes in elements, times in milliseconds, rates in 10^12 operations per second (TFLOP/s; TOPS for integer
// types).
// A kernel enters through driver_kernel<Kernel>(), for any type tc/padded_gemm.hpp can launch (its Precision,
// LayoutA, LayoutB, kContract, launch): the driver calls it through tc::launch_gemm_any_size, so any M, N, K works.
// Errors: tc::UsageError for bad flags; tc::TooLargeError for a problem that cannot fit; tc::CudaError from CUDA and
// cuBLAS; std::invalid_argument from the launchers. tc::run_main (main.hpp) turns each into its exit code.
// Source: cuBLAS documentation, "cublasGemmEx()" (the yardstick's calls); CUDA C++ Programming Guide, "Events".
#pragma once

#include "tc/bench_csv.hpp"
#include "tc/cli.hpp"
#include "tc/cublas_reference.hpp"
#include "tc/cublaslt_yardstick.hpp"
#include "tc/device.hpp"
#include "tc/dynamic_smem.hpp"
#include "tc/gemm_args.hpp"
#include "tc/gemm_check.hpp"
#include "tc/main.hpp"
#include "tc/memory.hpp"
#include "tc/padded_gemm.hpp"
#include "tc/timer.hpp"
#include "tc/types.hpp"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace tc {

// ---- the command line -------------------------------------------------------------------------------------------

// Who a chapter is, as its generated chapter_config.hpp states it (cmake/TcChapters.cmake): made by
// tc::this_chapter() (tc/chapter_driver.cuh) in the chapter's own translation unit, so that the guard probes the
// chapter's own kernel image.
struct ChapterIdentity {
  std::string program;  // the chapter binary's name, "06_ldmatrix_cp_async": --help, the run header, errors
  std::string number;   // "02".."06": the ladder CSV's chapter column
  int min_sm = 0;       // tc::chapter::kMinSm, major * 10 + minor
  // The wrong-architecture guard, run right after parsing: tc::require_kernel_image bound to the chapter's
  // architectures (tc::kernel_image_guard in tc/arch_guard.cuh); empty: no guard (host tests).
  std::function<void()> kernel_image_guard;
  // true for sm_90a chapters (07, 08): the GPU must be SM min_sm exactly (tc::require_exact_sm), checked right after
  // parsing and before the guard, whose advice to rebuild cannot help there.
  bool exact_sm = false;
};

// What a chapter binary is, for the driver's flags and messages.
struct DriverConfig {
  ChapterIdentity chapter;
  std::string title;     // the run header's first line
  std::string summary;   // --help's description
  // --svg's help; empty: no --svg flag (a chapter whose figures its NN_figures tool writes).
  std::string svg_help = "write the chapter's figures into this folder";
  // The precisions --type offers (with "all", its default), by their flag names; empty: no --type flag. Integer types
  // are named s<bits> or u<bits> ("s8", "u8"): where one is offered, --help says alpha and beta are int32 there.
  std::vector<std::string> types = {};
  std::string type_help = "input precision(s) to run";
  std::string default_sizes = "1024,4096";  // --sizes's default (the demonstration's, where bench_flag is set)
  int default_repeats = 30;
  bool rest_flag = false;          // offer --rest-ms: idle before each timing
  int default_rest_ms = 1500;      // --rest-ms's default; with bench_flag, under --bench only (the default run: 0)
  // Offer --bench: the default run is the demonstration, --bench the recorded benchmark (the header says how they
  // differ). The chapter binaries set it; their tools, which are benchmarks already, do not.
  bool bench_flag = false;
  std::string bench_sizes = {};    // --sizes's default under --bench; empty: default_sizes
  // false: no --sizes (nor --m --n --k): the chapter names its own shapes (chapter 10's suite), options().sizes is
  // empty, and require_gpu checks no memory for them.
  bool sizes_flag = true;
};

// The common flags as parsed.
struct RunOptions {
  std::vector<GemmShape> sizes;
  double alpha = 1.0, beta = 0.0;
  int warmup = 5, repeats = 30, rest_ms = 0;
  std::uint64_t seed = 2026;
  std::string svg_dir, csv;
  bool bench = false;  // --bench: the recorded benchmark, not the demonstration
};

// Times fn as every driver timing is taken: tc::rest_gpu(rest_ms), then tc::benchmark's median in milliseconds.
struct Timing {
  int warmup = 5, repeats = 30, rest_ms = 0;
  template <typename Fn>
  double median_ms(Fn&& fn) const {
    rest_gpu(rest_ms);
    return benchmark(fn, warmup, repeats).median_ms;
  }
};

// The cuBLASLt yardstick on the operands given (they need not be a GemmBench's: the chapter tools time it on
// all-zero operands too): each of plan's candidates timed with `timing` (a tc::Timing, or any type with its
// median_ms(fn), such as tc::FlushedTiming), the first is first_ms, then the fastest timed again (best_ms), all in
// place on C. Where the plan has no candidate, or cublasLtMatmul refuses one at run
// time, best_ms is -1 and refusal says why. Errors: tc::CudaError for any other failed CUDA call.
template <typename TIn, typename TOut, typename TimingT>
LtYardstick time_lt_candidates(const CublasLtMatmul<TIn, TOut>& plan, const TimingT& timing, const TIn* a,
                               const TIn* b, TOut* c) {
  LtYardstick y;
  y.candidates = plan.algorithms();
  y.refusal = plan.refusal();
  try {
    for (int i = 0; i < y.candidates; ++i) {
      const double ms = timing.median_ms([&] { plan.run(i, a, b, c); });
      if (i == 0) y.first_ms = ms;
      if (y.best < 0 || ms < y.best_ms) {
        y.best = i;
        y.best_ms = ms;
      }
    }
    // Timed again, alone, so that the winner's figure is one measurement rather than the luckiest of eight.
    if (y.best >= 0) y.best_ms = timing.median_ms([&] { plan.run(y.best, a, b, c); });
  } catch (const CudaError& e) {  // an algorithm the heuristic offered but cublasLtMatmul refused
    y = LtYardstick{};
    y.refusal = e.what();
  }
  return y;
}

// ---- kernels and groups -----------------------------------------------------------------------------------------

// One kernel as the driver runs it.
template <typename TIn, typename TOut>
struct DriverKernel {
  std::string name;  // the table's kernel column and the ladder's
  // C = alpha * op(A) * op(B) + beta * C in place on p's shape (tc::launch_gemm_any_size: any size).
  std::function<void(const GemmProblem& p, const TIn* A, const TIn* B, TOut* C)> launch;
  // The kernel alone, timed on padded copies of these operands made once, where they break its tile contract;
  // -1 where they keep it (then the whole launch is the kernel alone).
  std::function<double(const GemmProblem& p, const TIn* A, const TIn* B, const TOut* C, const Timing& t)> time_alone;
  // The scratch the padded path may allocate for p (tc::padded_operands_memory).
  std::function<MemoryNeed(const GemmProblem& p)> scratch;
};

// Kernel (a tc/padded_gemm.hpp kernel type) as a DriverKernel, under `name` (default: Kernel::name). C has the
// precision's output type (tc::output_t); alpha and beta reach the kernel in its Accumulator type.
template <typename Kernel>
DriverKernel<typename Kernel::Precision::Input, output_t<typename Kernel::Precision>> driver_kernel(
    std::string name = Kernel::name) {
  using In = typename Kernel::Precision::Input;
  using Acc = typename Kernel::Precision::Accumulator;
  using Out = output_t<typename Kernel::Precision>;
  DriverKernel<In, Out> k;
  k.name = std::move(name);
  k.launch = [](const GemmProblem& p, const In* A, const In* B, Out* C) {
    launch_gemm_any_size<Kernel>(p.m, p.n, p.k, static_cast<Acc>(p.alpha), A, p.lda, B, p.ldb,
                                 static_cast<Acc>(p.beta), C, p.ldc, nullptr);
  };
  k.time_alone = [](const GemmProblem& p, const In* A, const In* B, const Out* C, const Timing& t) {
    if (!tile_contract_problem(Kernel::kContract, p.m, p.n, p.k, A, p.lda, B, p.ldb, C, p.ldc)) return -1.0;
    PaddedOperands<Kernel> padded(p.m, p.n, p.k, nullptr);
    padded.copy_in(A, p.lda, B, p.ldb, static_cast<Acc>(p.beta), C, p.ldc);
    return t.median_ms([&] { padded.run_kernel(static_cast<Acc>(p.alpha), static_cast<Acc>(p.beta)); });
  };
  k.scratch = [](const GemmProblem& p) { return padded_operands_memory<Kernel>(p.m, p.n, p.k); };
  return k;
}

// Kernels that share one precision and one op pair, and so one set of operands and one cuBLAS yardstick per size.
template <typename TIn, typename TOut>
struct DriverGroup {
  std::string type;  // the table's type column, e.g. "f16->f32"
  Op op_a = Op::N, op_b = Op::N;
  std::vector<DriverKernel<TIn, TOut>> kernels;
  InputRounding rounding = InputRounding::None;  // Tf32: the kernels read fp32 inputs as tf32
  CublasMath math = CublasMath::Accurate;        // Tf32: cuBLAS in its tf32 tensor-core mode, like the kernels
};

// A group of every kernel in `kernels` (tc/padded_gemm.hpp kernel types of one precision and one layout pair), each
// under its Kernel::name, in order.
template <typename... Kernels>
auto driver_group(std::string type) {
  using First = std::tuple_element_t<0, std::tuple<Kernels...>>;
  DriverGroup<typename First::Precision::Input, output_t<typename First::Precision>> g;
  g.type = std::move(type);
  g.op_a = op_of<typename First::LayoutA>();
  g.op_b = op_of<typename First::LayoutB>();
  (g.kernels.push_back(driver_kernel<Kernels>()), ...);
  return g;
}

// ---- results ----------------------------------------------------------------------------------------------------

// One timed kernel at one size: a row of the results table and of the ladder CSV.
struct DriverRow {
  GemmShape shape;
  std::string kernel, type, layout;  // layout: op(A) op(B), e.g. "TN"
  double ms = 0.0;                   // the kernel alone (median)
  double ms_with_copies = -1.0;      // the whole launch with its padded copies; -1: none were needed
  double cublas_ms = -1.0;           // cublasGemmEx (default algorithm) at the same precision and ops; -1: none
  double lt_first_ms = -1.0;         // cuBLASLt, the heuristic's first candidate; -1: none
  double lt_best_ms = -1.0;          // cuBLASLt, the fastest of its first kLtCandidates, timed again; -1: none
  double worst_error = 0.0;          // the random operands against fp64
  bool integer = false;              // integer types: the rate is TOPS
  bool passed = false;               // both checks of tc/gemm_check.hpp
};

// The results table: a header naming the statistic, one line per row (columns sized to fit), and a legend.
// ceiling_tflops > 0 adds a "% ceiling" column; peak_tflops > 0 a "% peak" column, which the legend says is of
// peak_what (a datasheet figure and its source). Errors: none.
std::string format_results(const std::vector<DriverRow>& rows, const RunOptions& o, double ceiling_tflops,
                           double peak_tflops = 0.0, const std::string& peak_what = "");

// The rows as benchmark-ladder rows of chapter `chapter`.
std::vector<BenchRow> ladder_rows(const std::string& chapter, const std::vector<DriverRow>& rows);

// ---- the driver -------------------------------------------------------------------------------------------------

class GemmDriver {
 public:
  explicit GemmDriver(DriverConfig config);

  // The command line, for the chapter's own flags; declare them before parse().
  Cli& cli() { return cli_; }
  // Adds the common flags after the chapter's, parses argv, runs check_flags (the chapter's own checks of its
  // flags, which throw tc::UsageError), checks that --csv and --svg can be written, then that the binary has code for
  // this GPU (exit 5). It prints nothing: a bad flag's one-line error, and a size too large (add()), come before any
  // other output. Returns false after --help. Errors: tc::UsageError.
  bool parse(int argc, char** argv, const std::function<void()>& check_flags = {});
  // The run header (tc::print_run_header's three lines, and with --bench offered which run this is), printed once:
  // by the first add() once its sizes fit, or by require_gpu(); a chapter that prints before either calls it first.
  void print_header();
  const RunOptions& options() const { return options_; }
  // Whether --type selects the precision of this flag name (one of config.types): it names it, or "all". Call after
  // parse(). Errors: std::invalid_argument for a name config.types does not list (a chapter's typo, not the user's).
  bool runs_type(const std::string& name) const;
  // Integer types take int32 alpha and beta (cuBLAS's scale type for int32 outputs). Errors: tc::UsageError.
  void require_integer_scales(const std::string& why) const;

  // Adds a group of kernels; every size's host memory for it must fit now (tc::require_host_memory: exit 6), so
  // that a size too large is refused before any work. Errors: tc::TooLargeError.
  template <typename TIn, typename TOut>
  void add(DriverGroup<TIn, TOut> group);
  // A ceiling the chapter measured in this process (TFLOP/s): the table gains a "% ceiling" column.
  void set_ceiling(double tflops) { ceiling_tflops_ = tflops; }
  // A peak from outside the program (a datasheet's), with what it is and where it comes from: the table gains a
  // "% peak" column.
  void set_peak(double tflops, std::string what) {
    peak_tflops_ = tflops;
    peak_what_ = std::move(what);
  }

  // The GPU (SM >= config.min_sm, else exit 77) and the memory of every group at every size (else exit 6), before
  // anything is allocated. Call after add(), which has already refused a size whose host memory cannot fit (exit 6,
  // whether or not there is a GPU: a problem too large for this machine is refused, not skipped). Returns the device.
  DeviceInfo require_gpu(const std::string& what);
  const CublasHandle& cublas();
  const CublasLtHandle& cublaslt();
  // Runs every group at every size, then prints the results table, the verification table, a note for sizes whose
  // operands fit in L2, and appends the ladder rows to --csv. Returns whether every kernel passed both checks.
  bool run();
  // Prints the RESULT line and returns the exit code: tc::kExitOk, or tc::kExitMismatch when !all_ok.
  static int finish(bool all_ok);

 private:
  struct Group {
    std::function<MemoryNeed(const GemmShape&)> memory;
    std::function<void(const GemmShape&)> run;
  };
  GemmProblem problem(Op op_a, Op op_b, const GemmShape& s) const {
    return GemmProblem::tight(op_a, op_b, s.m, s.n, s.k, options_.alpha, options_.beta);
  }
  Timing timing() const { return {options_.warmup, options_.repeats, options_.rest_ms}; }
  void require_host_memory_of(const Group& g);
  template <typename TIn, typename TOut>
  void run_group(const DriverGroup<TIn, TOut>& g, const GemmShape& s);

  DriverConfig config_;
  Cli cli_;
  RunOptions options_;
  std::string command_;  // the program and its arguments, for the header
  bool header_printed_ = false;
  std::vector<Group> groups_;
  std::vector<DriverRow> rows_;
  std::vector<VerificationRow> checks_;
  std::vector<std::string> notes_;
  double ceiling_tflops_ = 0.0;
  double peak_tflops_ = 0.0;
  std::string peak_what_;
  std::unique_ptr<CublasHandle> cublas_;
  std::unique_ptr<CublasLtHandle> cublaslt_;
  DeviceInfo device_{};
};

// ---- the driver's templates -------------------------------------------------------------------------------------

template <typename TIn, typename TOut>
void GemmDriver::add(DriverGroup<TIn, TOut> group) {
  auto g = std::make_shared<const DriverGroup<TIn, TOut>>(std::move(group));
  groups_.push_back({[this, g](const GemmShape& s) {
                       const GemmProblem p = problem(g->op_a, g->op_b, s);
                       MemoryNeed scratch;  // one kernel runs at a time: the largest scratch counts
                       for (const auto& k : g->kernels) {
                         const MemoryNeed need = k.scratch(p);
                         if (need.device_bytes > scratch.device_bytes) scratch = need;
                       }
                       return gemm_check_memory<TIn, TOut>(p) + scratch + MemoryNeed{0, kLtWorkspaceBytes};
                     },
                     [this, g](const GemmShape& s) { run_group(*g, s); }});
  require_host_memory_of(groups_.back());
}

// One problem's two operand sets (tc/gemm_check.hpp) and its cuBLAS yardstick, for timing kernels on it: what the
// driver makes per size and group, and what the tools that time many kernels on one size (sweeps, ablations) use.
// Shapes: p (tc::GemmProblem). Errors: tc::CudaError from CUDA and cuBLAS; std::invalid_argument for a bad problem.
template <typename TIn, typename TOut>
class GemmBench {
 public:
  // What measure() finds for one kernel.
  struct Measured {
    GemmVerdict verdict;
    double ms = 0.0;               // the kernel alone (median)
    double ms_with_copies = -1.0;  // the whole launch with padded copies; -1: none were needed
  };

  // What the yardsticks multiply: TIn, except u8, which neither cuBLAS nor cuBLASLt has as u8 x u8; an integer
  // GEMM's time does not depend on the values, so u8 is timed as s8 on the same bytes.
  using YardstickIn = std::conditional_t<std::is_same_v<TIn, std::uint8_t>, std::int8_t, TIn>;

  GemmBench(const CublasHandle& cublas, const GemmProblem& p, std::uint64_t seed, Timing timing,
            InputRounding rounding = InputRounding::None)
      : cublas_(cublas), timing_(timing), exact_(cublas, p, seed + 10), random_(cublas, p, seed, rounding) {}

  const GemmProblem& problem() const { return random_.problem(); }
  RandomOperands<TIn, TOut>& random() { return random_; }

  // cuBLAS at the same precision and ops on the random operands, in place on C like the kernels (math: Tf32 for a
  // tf32 kernel's yardstick). Integer inputs: cuBLAS's int8 GEMM needs lda and ldb multiples of 4 and supports some
  // ops only (cublasGemmEx documentation), and it has no u8 x u8 GEMM, so u8 is timed as s8 on the same bytes (an
  // integer GEMM's time does not depend on the values). Returns -1 where cuBLAS has no such GEMM, with `refusal` set
  // to its message where it refused one. This is the "cublasGemmEx default" yardstick: CUBLAS_GEMM_DEFAULT, the
  // heuristic's first pick with its default workspace.
  double cublas_ms(CublasMath math = CublasMath::Accurate, std::string* refusal = nullptr) {
    const GemmProblem& p = problem();
    if (sizeof(TIn) == 1 && (p.lda % 4 != 0 || p.ldb % 4 != 0)) return -1.0;
    random_.reset_c();  // cuBLAS reads C when beta != 0: give it the input C
    const auto* a = reinterpret_cast<const YardstickIn*>(random_.a());
    const auto* b = reinterpret_cast<const YardstickIn*>(random_.b());
    try {
      return timing_.median_ms([&] {
        cublas_gemm<YardstickIn, TOut>(cublas_, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, a, p.lda, b, p.ldb, p.beta,
                                       random_.c(), p.ldc, random_.c(), p.ldc, math);
      });
    } catch (const CudaError& e) {
      if (!ElementTraits<TIn>::is_integer) throw;
      if (refusal != nullptr) *refusal = e.what();
      return -1.0;
    }
  }

  // The cuBLASLt yardstick on the random operands, in place on C like the kernels: each of the heuristic's first
  // kLtCandidates candidates timed with this bench's statistic (the first is first_ms), then the fastest timed again
  // (best_ms). u8 as s8, as cublas_ms. Where cuBLASLt has no algorithm, or refuses one at run time, refusal says why.
  LtYardstick cublaslt(const CublasLtHandle& lt, CublasMath math = CublasMath::Accurate) {
    if constexpr (!kLtHasPair<YardstickIn, TOut>) {
      LtYardstick y;
      y.refusal = "no cuBLASLt matmul of this type pair here";
      return y;
    } else {
      const GemmProblem& p = problem();
      const CublasLtMatmul<YardstickIn, TOut> plan(lt, p, math);
      random_.reset_c();  // cuBLASLt reads C when beta != 0: give it the input C
      return time_lt_candidates(plan, timing_, reinterpret_cast<const YardstickIn*>(random_.a()),
                                reinterpret_cast<const YardstickIn*>(random_.b()), random_.c());
    }
  }

  // The kernel verified on both operand sets, then timed on the random ones: alone and, where they break its tile
  // contract, as the whole launch with its padded copies.
  Measured measure(const DriverKernel<TIn, TOut>& kernel) {
    const GemmProblem& p = problem();
    auto launch = [&](const TIn* A, const TIn* B, TOut* C) { kernel.launch(p, A, B, C); };
    Measured m;
    m.verdict = check_gemm(exact_, random_, launch);
    random_.reset_c();  // the padded copies take the input C when beta != 0
    const double alone = kernel.time_alone(p, random_.a(), random_.b(), random_.c(), timing_);
    const double whole = timing_.median_ms([&] { launch(random_.a(), random_.b(), random_.c()); });
    m.ms = alone > 0.0 ? alone : whole;
    m.ms_with_copies = alone > 0.0 ? whole : -1.0;
    return m;
  }

 private:
  const CublasHandle& cublas_;
  Timing timing_;
  ExactCheck<TIn, TOut> exact_;
  RandomOperands<TIn, TOut> random_;
};

// ---- chapter tools ----------------------------------------------------------------------------------------------

// A chapter tool (NN_*/tools/: a tile sweep, an ablation) that times kernels on one square problem, m = n = k.
struct ToolConfig {
  std::string program;       // the tool's name, "06_tile_sweep": --help, the header line, errors
  std::string summary;       // --help's description
  std::string gpu_what;      // what needs the GPU, for tc::require_sm's message
  int default_size = 4096;   // --size's default
  int size_multiple = 256;   // --size must be a multiple of this ...
  std::string multiple_why;  // ... because of this ("the largest block tile swept")
  bool rest_flag = false;    // offer --rest-ms (default 1500): idle before each timing
};

// The set-up every chapter tool shares, written once: the flags --size, --warmup, --repeats (default 20, at least 20)
// and [--rest-ms] after the tool's own; then the wrong-architecture guard (exit 5), the size rule (tc::UsageError,
// exit 2), the GPU (SM >= chapter.min_sm, else exit 77) and the header line "# <program> --size S --repeats R on
// <device>". Units: elements (--size), milliseconds (--rest-ms). Errors: tc::UsageError; tc::CudaError.
class SquareTool {
 public:
  SquareTool(ChapterIdentity chapter, ToolConfig config);
  Cli& cli() { return cli_; }  // the tool's own flags; declare them before parse()
  // Returns false after --help; otherwise everything above has passed and the header line is printed.
  bool parse(int argc, char** argv);
  const std::string& program() const { return config_.program; }
  int size() const { return size_; }
  Timing timing() const { return timing_; }
  const DeviceInfo& device() const { return device_; }
  // Prints "# each timing: median of R launches after W warm-up, after I ms idle; SxSxS, <what>", what e.g. "fp16
  // in, fp32 accumulate": how every timing the tool prints below was taken.
  void print_timing_line(const char* what) const;
  // The tool's problem: op(A) op(B) with tight leading dimensions, alpha 1, beta 0.
  GemmProblem problem(Op op_a, Op op_b) const {
    return GemmProblem::tight(op_a, op_b, size_, size_, size_, 1.0, 0.0);
  }

 private:
  ChapterIdentity chapter_;
  ToolConfig config_;
  Cli cli_;
  int size_ = 0;
  Timing timing_;
  DeviceInfo device_{};
};

// The whole frame of a chapter tool's main(): tc::run_main's exit codes (tc/main.hpp) around SquareTool::parse and
// then body(tool), whose return value is the exit code; --help returns tc::kExitOk.
template <typename Body>
int square_tool_main(int argc, char** argv, ChapterIdentity chapter, ToolConfig config, Body&& body) {
  return run_main([&] {
    SquareTool tool(std::move(chapter), std::move(config));
    if (!tool.parse(argc, argv)) return kExitOk;
    return body(tool);
  });
}

// A tile sweep (NN_*/tools/tile_sweep.cu): the tool's one problem, op(A) = A row-major (T), op(B) = B column-major
// (N), its memory checked (exit 6), both yardsticks timed once on it (cublasGemmEx default, and cuBLASLt's best of its
// first 8 heuristic algorithms), then each configuration verified and timed by GemmBench and printed as one CSV row
// to stdout: the tool's tile columns, then registers, spill_bytes, ms, tflops (tops for integer types), cublas_<rate>
// and pct_cublas (cublasGemmEx), lt_best_<rate> and pct_lt_best (cuBLASLt; "-" where it has no such GEMM), verdict. A row is flushed as soon as it is measured, so that a
// sweep cut short still shows what it measured. Errors: as GemmBench; tc::TooLargeError.
template <typename TIn, typename TOut>
class TileSweep {
 public:
  // tile_columns: the CSV header's first columns, one per value each measure() call passes in tile_fields.
  TileSweep(const SquareTool& tool, const std::string& tile_columns)
      : bench_(cublas_, checked(tool), 2026, tool.timing()),
        cublas_ms_(bench_.cublas_ms()),
        lt_best_ms_(bench_.cublaslt(lt_).best_ms) {
    const char* rate = ElementTraits<TIn>::is_integer ? "tops" : "tflops";
    std::printf("%s,registers,spill_bytes,ms,%s,cublas_%s,pct_cublas,lt_best_%s,pct_lt_best,verdict\n",
                tile_columns.c_str(), rate, rate, rate);
  }
  // Measures one configuration: kernel (a driver_kernel), resources (its tc::kernel_resources), tile_fields (its
  // tile columns' values). Returns whether it passed both checks.
  bool measure(const DriverKernel<TIn, TOut>& kernel, const KernelResources& resources,
               const std::vector<int>& tile_fields) {
    const auto m = bench_.measure(kernel);
    const GemmProblem& p = bench_.problem();
    const double flops = gemm_flops(p.m, p.n, p.k);
    for (int field : tile_fields) std::printf("%d,", field);
    std::printf("%d,%d,%.4f,%.1f,%.1f,%.1f,", resources.registers, resources.spill_bytes, m.ms, tflops(flops, m.ms),
                tflops(flops, cublas_ms_), 100.0 * cublas_ms_ / m.ms);
    if (lt_best_ms_ > 0.0) {
      std::printf("%.1f,%.1f,", tflops(flops, lt_best_ms_), 100.0 * lt_best_ms_ / m.ms);
    } else {
      std::printf("-,-,");
    }
    std::printf("%s\n", m.verdict.passed() ? "PASS" : "FAIL");
    std::fflush(stdout);
    all_passed_ = all_passed_ && m.verdict.passed();
    return m.verdict.passed();
  }
  bool all_passed() const { return all_passed_; }

 private:
  static GemmProblem checked(const SquareTool& tool) {
    const GemmProblem p = tool.problem(Op::T, Op::N);
    require_memory(tool.program() + " " + std::to_string(tool.size()) + "^3", gemm_check_memory<TIn, TOut>(p));
    return p;
  }
  CublasHandle cublas_;
  CublasLtHandle lt_;
  GemmBench<TIn, TOut> bench_;
  double cublas_ms_;
  double lt_best_ms_;  // -1: cuBLASLt has no such GEMM
  bool all_passed_ = true;
};

template <typename TIn, typename TOut>
void GemmDriver::run_group(const DriverGroup<TIn, TOut>& g, const GemmShape& s) {
  GemmBench<TIn, TOut> bench(cublas(), problem(g.op_a, g.op_b, s), options_.seed, timing(), g.rounding);
  std::string refusal;
  const double cublas_ms = bench.cublas_ms(g.math, &refusal);
  const LtYardstick lt = bench.cublaslt(cublaslt(), g.math);
  const std::string layout = std::string(op_name(g.op_a)) + op_name(g.op_b);
  const std::string size = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  if (!refusal.empty()) notes_.push_back("cuBLAS " + g.type + " " + layout + " at " + size + ": " + refusal);
  if (lt.best_ms < 0.0) notes_.push_back("cuBLASLt " + g.type + " " + layout + " at " + size + ": " + lt.refusal);
  for (const DriverKernel<TIn, TOut>& kernel : g.kernels) {
    const typename GemmBench<TIn, TOut>::Measured m = bench.measure(kernel);
    checks_.push_back({size + " " + kernel.name + " " + g.type + " " + layout, m.verdict, options_.alpha});
    rows_.push_back({s, kernel.name, g.type, layout, m.ms, m.ms_with_copies, cublas_ms, lt.first_ms, lt.best_ms,
                     m.verdict.random.worst_error, ElementTraits<TIn>::is_integer, m.verdict.passed()});
  }
  if (std::is_same_v<TIn, std::uint8_t> && cublas_ms > 0.0)
    notes_.push_back(g.type + ": cuBLAS has no u8 GEMM; its s8 GEMM on the same bytes is the yardstick");
  if (g.math == CublasMath::Tf32) notes_.push_back(g.type + ": cuBLAS in its tf32 tensor-core mode, like the kernels");
}

}  // namespace tc
