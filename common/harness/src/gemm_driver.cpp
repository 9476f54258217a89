#include "tc/gemm_driver.hpp"

#include "tc/exit_codes.hpp"
#include "tc/main.hpp"
#include "tc/text_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

namespace tc {
namespace {

std::string shape_text(const GemmShape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

}  // namespace

std::string format_results(const std::vector<DriverRow>& rows, const RunOptions& o, double ceiling_tflops,
                           double peak_tflops, const std::string& peak_what) {
  const bool all_integer = !rows.empty() && std::all_of(rows.begin(), rows.end(), [](const DriverRow& r) {
    return r.integer;
  });
  const std::string rate = all_integer ? "TOPS" : "TFLOP/s";
  Table t;
  for (const char* h : {"size", "kernel", "type", "op"}) t.column(h, false);
  for (const std::string& h :
       {std::string("ms"), rate, "cublasGemmEx " + rate, std::string("% cublasGemmEx"), "cuBLASLt 1st " + rate,
        "cuBLASLt best-of-8 " + rate, std::string("% cuBLASLt best-of-8")})
    t.column(h, true);
  if (ceiling_tflops > 0.0) t.column("% ceiling", true);
  if (peak_tflops > 0.0) t.column("% peak", true);
  for (const char* h : {"ms w/ copies", "worst |err|"}) t.column(h, true);
  t.column("verdict", false);
  for (const DriverRow& r : rows) {
    const double flops = gemm_flops(r.shape.m, r.shape.n, r.shape.k);
    std::vector<std::string> cells = {shape_text(r.shape), r.kernel, r.type, r.layout, fixed(r.ms, 4),
                                      fixed(tflops(flops, r.ms), 1)};
    cells.push_back(r.cublas_ms > 0.0 ? fixed(tflops(flops, r.cublas_ms), 1) : "-");
    cells.push_back(r.cublas_ms > 0.0 ? fixed(100.0 * r.cublas_ms / r.ms, 1) + "%" : "-");
    cells.push_back(r.lt_first_ms > 0.0 ? fixed(tflops(flops, r.lt_first_ms), 1) : "-");
    cells.push_back(r.lt_best_ms > 0.0 ? fixed(tflops(flops, r.lt_best_ms), 1) : "-");
    cells.push_back(r.lt_best_ms > 0.0 ? fixed(100.0 * r.lt_best_ms / r.ms, 1) + "%" : "-");
    if (ceiling_tflops > 0.0) cells.push_back(fixed(100.0 * tflops(flops, r.ms) / ceiling_tflops, 1) + "%");
    if (peak_tflops > 0.0) cells.push_back(fixed(100.0 * tflops(flops, r.ms) / peak_tflops, 1) + "%");
    cells.push_back(r.ms_with_copies > 0.0 ? fixed(r.ms_with_copies, 4) : "-");
    char error[32];
    std::snprintf(error, sizeof error, "%.3g", r.worst_error);
    cells.push_back(error);
    cells.push_back(r.passed ? "PASS" : "FAIL");
    t.row(std::move(cells));
  }
  char header[256];
  std::snprintf(header, sizeof header,
                "== results: C = alpha*op(A)*op(B) + beta*C, alpha %g, beta %g; median of %d launches after %d "
                "warm-up%s ==\n",
                o.alpha, o.beta, o.repeats, o.warmup,
                o.rest_ms > 0 ? (", each timing after " + std::to_string(o.rest_ms) + " ms idle").c_str() : "");
  std::string legend =
      "TFLOP/s (TOPS for integer types) counts 2*M*N*K useful operations, padding excluded. Two yardsticks, each at the "
      "same\nprecision and op (op(A) op(B) as transa transb; N: column-major as stored) on the same operands, timed "
      "in this process:\ncublasGemmEx with CUBLAS_GEMM_DEFAULT (the heuristic's first pick, default workspace), and "
      "cuBLASLt: the first 8\nalgorithms cublasLtMatmulAlgoGetHeuristic returns with a 64 MiB workspace, each timed, "
      "\"1st\" the first, \"best-of-8\" the\nfastest timed again; \"-\": that library has no such GEMM (a note "
      "says why)";
  if (ceiling_tflops > 0.0) legend += "; % ceiling: of the " + fixed(ceiling_tflops, 1) + " TFLOP/s measured above";
  if (peak_tflops > 0.0) legend += ";\n% peak: of " + peak_what;
  legend +=
      ".\nms w/ copies: the whole launch where the operands broke the kernel's tile contract and went through padded "
      "copies (ms is\nthen the kernel alone); \"-\": none were needed. worst |err|: the timed (random) operands "
      "against fp64; the verdict is both\nchecks of the verification below.\n";
  return std::string(header) + t.format() + legend;
}

std::vector<BenchRow> ladder_rows(const std::string& chapter, const std::vector<DriverRow>& rows) {
  std::vector<BenchRow> bench;
  for (const DriverRow& r : rows)
    bench.push_back({chapter, r.kernel, r.type, r.layout, r.shape, r.ms, r.cublas_ms, r.passed, r.lt_best_ms});
  return bench;
}

GemmDriver::GemmDriver(DriverConfig config)
    : config_(std::move(config)), cli_(config_.chapter.program, config_.summary) {
  if (config_.sizes_flag) {  // else no shape flags: the chapter names its own
    std::string help = "GEMM sizes: S (S x S x S) or MxNxK, comma-separated; K = 0 is C = beta * C";
    if (config_.bench_flag && !config_.bench_sizes.empty()) help += " (with --bench: " + config_.bench_sizes + ")";
    cli_.add_shapes("sizes", config_.default_sizes, help);
    if (!config_.bench_sizes.empty()) parse_gemm_shapes("sizes", config_.bench_sizes);  // the program's own bug
  }
  if (!config_.types.empty()) {
    std::vector<std::string> choices = config_.types;
    choices.push_back("all");
    cli_.add_choice("type", "all", choices, config_.type_help);
  }
}

bool GemmDriver::parse(int argc, char** argv, const std::function<void()>& check_flags) {
  const bool integer_types = std::any_of(config_.types.begin(), config_.types.end(), [](const std::string& t) {
    auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    return t.size() >= 2 && (t[0] == 's' || t[0] == 'u') && std::all_of(t.begin() + 1, t.end(), digit);
  });
  const std::string integer_note = integer_types ? " (an int32 integer for integer types)" : "";
  cli_.add_real("alpha", 1.0, "scale of op(A)*op(B)" + integer_note)
      .add_real("beta", 0.0, "scale of C" + integer_note + "; 0 means C is not read")
      .add_int("warmup", 5, "untimed launches before timing", 0)
      .add_int("repeats", config_.default_repeats, "timed launches; the median is reported", 20);
  if (config_.rest_flag) {
    const std::string why = "idle milliseconds before each timing, so that every kernel and cuBLAS start at the same "
                            "clock";
    if (config_.bench_flag) {
      cli_.add_int("rest-ms", 0, why + " (with --bench: " + std::to_string(config_.default_rest_ms) + ")", 0);
    } else {
      cli_.add_int("rest-ms", config_.default_rest_ms, why, 0);
    }
  }
  cli_.add_int("seed", 2026, "random seed", 0);
  if (config_.bench_flag) {
    std::string help = "the benchmark that docs/results records, not the demonstration:";
    if (config_.sizes_flag && !config_.bench_sizes.empty()) help += " sizes " + config_.bench_sizes + ",";
    if (config_.rest_flag) help += " each timing after " + std::to_string(config_.default_rest_ms) + " ms idle,";
    help += " and whatever more the chapter records; --sizes and --rest-ms still win";
    cli_.add_flag("bench", help);
  }
  if (!config_.svg_help.empty()) cli_.add_string("svg", "", config_.svg_help);
  cli_.add_string("csv", "", "append one row per timed kernel to this CSV (the benchmark ladder, tc/bench_csv.hpp)");
  if (!cli_.parse(argc, argv)) return false;
  RunOptions& o = options_;
  o.bench = config_.bench_flag && cli_.get_flag("bench");
  if (!config_.sizes_flag) {
    o.sizes.clear();
  } else if (o.bench && !config_.bench_sizes.empty() && !cli_.given("sizes")) {
    o.sizes = parse_gemm_shapes("sizes", config_.bench_sizes);
  } else {
    o.sizes = cli_.get_shapes("sizes");
  }
  o.alpha = cli_.get_real("alpha");
  o.beta = cli_.get_real("beta");
  o.warmup = int(cli_.get_int("warmup"));
  o.repeats = int(cli_.get_int("repeats"));
  o.rest_ms = config_.rest_flag ? int(cli_.get_int("rest-ms")) : 0;
  if (config_.rest_flag && o.bench && !cli_.given("rest-ms")) o.rest_ms = config_.default_rest_ms;
  o.seed = std::uint64_t(cli_.get_int("seed"));
  o.svg_dir = config_.svg_help.empty() ? "" : cli_.get_string("svg");
  o.csv = cli_.get_string("csv");
  if (check_flags) check_flags();
  // Output paths are checked now, so that a path that cannot be written fails before the run, not after it.
  if (!o.csv.empty()) require_appendable_file(o.csv);
  if (!o.svg_dir.empty()) require_writable_folder(o.svg_dir);
  if (config_.chapter.exact_sm) require_exact_sm(config_.chapter.min_sm, config_.chapter.program);
  if (config_.chapter.kernel_image_guard) config_.chapter.kernel_image_guard();  // no code for this GPU: exit 5
  command_ = config_.chapter.program;
  for (int i = 1; i < argc; ++i) command_ += std::string(" ") + argv[i];
  return true;
}

void GemmDriver::print_header() {
  if (header_printed_) return;
  header_printed_ = true;
  std::printf("# %s\n# command: %s\n# device:  %s\n", config_.title.c_str(), command_.c_str(),
              describe(query_device()).c_str());
  if (config_.bench_flag) {  // which run this is: the demonstration only where no flag changed its settings
    const bool given = (config_.sizes_flag && cli_.given("sizes")) || (config_.rest_flag && cli_.given("rest-ms"));
    std::printf("# run:     %s\n", options_.bench ? "--bench: the sizes and rests that docs/results records"
                                    : given        ? "the sizes and rests given (--bench runs what docs/results "
                                                     "records)"
                                                   : "the demonstration, a few seconds on an H200 (--bench runs what "
                                                     "docs/results records)");
  }
}

bool GemmDriver::runs_type(const std::string& name) const {
  if (std::find(config_.types.begin(), config_.types.end(), name) == config_.types.end())
    throw std::invalid_argument(config_.chapter.program + ": --type has no precision \"" + name + "\"");
  const std::string selected = cli_.get_choice("type");
  return selected == "all" || selected == name;
}

void GemmDriver::require_integer_scales(const std::string& why) const {
  for (double x : {options_.alpha, options_.beta}) {
    if (x != std::trunc(x) || std::fabs(x) > 2147483647.0) {
      throw UsageError("--alpha and --beta must be int32 integers for " + why +
                       " (the scale type of an int32 GEMM, as in cuBLAS)");
    }
  }
}

void GemmDriver::require_host_memory_of(const Group& g) {
  // sm_90a chapters run on SM 9.0 alone, whose largest memory is known; other chapters' GPUs have no such bound.
  const std::uint64_t most = config_.chapter.exact_sm && config_.chapter.min_sm == 90 ? kSm90MostDeviceBytes : 0;
  for (const GemmShape& s : options_.sizes)
    require_host_memory(config_.chapter.program + " " + shape_text(s), g.memory(s), most);
  print_header();  // every size fits: what follows is the run, not an error
}

DeviceInfo GemmDriver::require_gpu(const std::string& what) {
  print_header();
  std::printf("\n");
  device_ = require_sm(config_.chapter.min_sm, what, config_.chapter.exact_sm);
  for (const GemmShape& s : options_.sizes) {
    MemoryNeed need;  // the groups run one after another: the largest counts
    for (const Group& g : groups_) {
      const MemoryNeed n = g.memory(s);
      need.host_bytes = std::max(need.host_bytes, n.host_bytes);
      need.device_bytes = std::max(need.device_bytes, n.device_bytes);
    }
    require_memory(config_.chapter.program + " " + shape_text(s), need);
  }
  return device_;
}

const CublasHandle& GemmDriver::cublas() {
  if (!cublas_) cublas_ = std::make_unique<CublasHandle>();
  return *cublas_;
}

const CublasLtHandle& GemmDriver::cublaslt() {
  if (!cublaslt_) cublaslt_ = std::make_unique<CublasLtHandle>();
  return *cublaslt_;
}

bool GemmDriver::run() {
  for (const GemmShape& s : options_.sizes)
    for (const Group& g : groups_) g.run(s);
  std::printf("\n%s", format_results(rows_, options_, ceiling_tflops_, peak_tflops_, peak_what_).c_str());
  std::set<std::string> printed;
  for (const std::string& note : notes_)
    if (printed.insert(note).second) std::printf("%s\n", note.c_str());
  for (const GemmShape& s : options_.sizes) {
    // A, B in 2 bytes and C in 4: the f16 -> f32 case, the one the ladder compares.
    const double bytes = 2.0 * (double(s.m) * s.k + double(s.k) * s.n) + 4.0 * double(s.m) * s.n;
    if (bytes < double(device_.l2_cache_bytes)) {
      std::printf("note: at %s the operands (%.1f MB in f16 -> f32) fit in this GPU's %.0f MB L2, so those timings "
                  "may not touch DRAM.\n",
                  shape_text(s).c_str(), bytes / 1e6, device_.l2_cache_bytes / 1e6);
    }
  }
  std::printf("\n== verification: integer operands checked exactly, random ones against fp64 (tc/gemm_check.hpp) "
              "==\n");
  print_verification("size kernel type op", checks_);
  if (!options_.csv.empty()) append_bench_csv(options_.csv, ladder_rows(config_.chapter.number, rows_));
  return std::all_of(rows_.begin(), rows_.end(), [](const DriverRow& r) { return r.passed; });
}

int GemmDriver::finish(bool all_ok) {
  std::printf("\n%s\n", all_ok ? "RESULT: every check passed" : "RESULT: MISMATCH");
  return all_ok ? kExitOk : kExitMismatch;
}

SquareTool::SquareTool(ChapterIdentity chapter, ToolConfig config)
    : chapter_(std::move(chapter)), config_(std::move(config)), cli_(config_.program, config_.summary) {}

bool SquareTool::parse(int argc, char** argv) {
  cli_.add_int("size", config_.default_size,
               "m = n = k, a multiple of " + std::to_string(config_.size_multiple), config_.size_multiple)
      .add_int("warmup", 5, "untimed launches before timing", 0)
      .add_int("repeats", 20, "timed launches; the median is reported", 20);
  if (config_.rest_flag) cli_.add_int("rest-ms", 1500, "idle milliseconds before each timing", 0);
  if (!cli_.parse(argc, argv)) return false;
  if (chapter_.exact_sm) require_exact_sm(chapter_.min_sm, config_.program);
  if (chapter_.kernel_image_guard) chapter_.kernel_image_guard();  // no code for this GPU: exit 5
  size_ = int(cli_.get_int("size"));
  if (size_ % config_.size_multiple != 0) {
    throw UsageError("--size must be a multiple of " + std::to_string(config_.size_multiple) + ", " +
                     config_.multiple_why);
  }
  timing_ = {int(cli_.get_int("warmup")), int(cli_.get_int("repeats")),
             config_.rest_flag ? int(cli_.get_int("rest-ms")) : 0};
  device_ = require_sm(chapter_.min_sm, config_.program + " (" + config_.gpu_what + ")", chapter_.exact_sm);
  std::printf("# %s --size %d --repeats %d on %s\n", config_.program.c_str(), size_, timing_.repeats,
              describe(device_).c_str());
  return true;
}

void SquareTool::print_timing_line(const char* what) const {
  std::printf("# each timing: median of %d launches after %d warm-up, after %d ms idle; %dx%dx%d, %s\n",
              timing_.repeats, timing_.warmup, timing_.rest_ms, size_, size_, size_, what);
}

}  // namespace tc
