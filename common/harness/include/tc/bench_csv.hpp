// The benchmark ladder's rows: what each chapter binary appends, given --csv FILE, for every kernel it timed.
//
// cmake/ladder.cmake (README, "The benchmark ladder") runs the chapters at 1024, 2048, 4096 and 8192 with --csv
// docs/results/ladder.csv, after writing the file's "# " provenance lines; docs/tools/ladder.hpp reads the rows back
// and renders the chart and the tables the README and the walkthroughs quote. One line per (kernel, precision, size):
//   chapter,kernel,precision,layout,m,n,k,ms,tflops,cublas_ms,cublas_tflops,pct_cublas,lt_best_ms,lt_best_tflops,
//   pct_lt_best,verdict
// Units: ms is the median time of one launch in milliseconds; tflops is 2*m*n*k / time in 10^12 operations per second
// (TOPS for integer precisions). Two yardsticks, each timed in the same process at the same precision and operand
// layout (layout: op(A) op(B) as cuBLAS's transa transb, "N" = column-major as stored): cublas_* is cublasGemmEx with
// CUBLAS_GEMM_DEFAULT, pct_cublas = 100 * cublas_ms / ms; lt_best_* is cuBLASLt's fastest of the first kLtCandidates
// heuristic algorithms (tc/cublaslt_yardstick.hpp), pct_lt_best = 100 * lt_best_ms / ms. A yardstick with no time
// (<= 0: the library has no such GEMM) writes "-" in its three columns.
#pragma once

#include "tc/gemm_args.hpp"  // GemmShape

#include <string>
#include <vector>

namespace tc {

struct BenchRow {
  std::string chapter;    // "02".."08"
  std::string kernel;     // the name the chapter's own table prints
  std::string precision;  // "f16->f32", "s8->s32", ...
  std::string layout;     // "NN", "TN", ...
  GemmShape shape;
  double ms = 0.0;         // median milliseconds per launch
  double cublas_ms = 0.0;  // cuBLAS's median at the same precision and layout; <= 0: none
  bool passed = false;     // the kernel's result matched its reference
  double lt_best_ms = 0.0;  // cuBLASLt's best of its first 8 heuristic algorithms at the same GEMM; <= 0: none
};

inline constexpr const char* kBenchCsvHeader =
    "chapter,kernel,precision,layout,m,n,k,ms,tflops,cublas_ms,cublas_tflops,pct_cublas,lt_best_ms,lt_best_tflops,"
    "pct_lt_best,verdict";

// One CSV line (no newline) for `row`. Errors: std::invalid_argument if a text field holds a comma or a newline, or
// if ms <= 0.
std::string bench_csv_line(const BenchRow& row);

// Appends `rows` to the CSV file at `path`, first writing kBenchCsvHeader if the file has no such line yet (it may
// start with "# " provenance lines). Errors: tc::UsageError (exit 2 through tc::run_main) when the file cannot be
// read or written; std::invalid_argument from bench_csv_line.
void append_bench_csv(const std::string& path, const std::vector<BenchRow>& rows);

}  // namespace tc
