#include "tc/bench_csv.hpp"

#include "tc/cli.hpp"    // tc::UsageError
#include "tc/main.hpp"   // make_folder
#include "tc/timer.hpp"  // gemm_flops, tflops

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tc {

std::string bench_csv_line(const BenchRow& r) {
  for (const std::string* field : {&r.chapter, &r.kernel, &r.precision, &r.layout}) {
    if (field->find_first_of(",\n") != std::string::npos) {
      throw std::invalid_argument("a benchmark CSV field holds a comma or newline: '" + *field + "'");
    }
  }
  if (!(r.ms > 0.0)) throw std::invalid_argument("a benchmark row needs a positive time: " + r.kernel);
  const double flops = gemm_flops(r.shape.m, r.shape.n, r.shape.k);
  // A yardstick's three columns: its time, its rate and its share of the kernel's time, or "-" where it has none.
  auto yardstick = [&](double ms) {
    char cells[96] = "-,-,-";
    if (ms > 0.0) std::snprintf(cells, sizeof cells, "%.4f,%.1f,%.1f", ms, tflops(flops, ms), 100.0 * ms / r.ms);
    return std::string(cells);
  };
  char numbers[256];
  std::snprintf(numbers, sizeof numbers, "%d,%d,%d,%.4f,%.1f,%s,%s,%s", r.shape.m, r.shape.n, r.shape.k, r.ms,
                tflops(flops, r.ms), yardstick(r.cublas_ms).c_str(), yardstick(r.lt_best_ms).c_str(),
                r.passed ? "PASS" : "FAIL");
  return r.chapter + "," + r.kernel + "," + r.precision + "," + r.layout + "," + numbers;
}

void append_bench_csv(const std::string& path, const std::vector<BenchRow>& rows) {
  bool has_header = false;
  {
    std::ifstream in(path);
    for (std::string line; in && std::getline(in, line);) has_header |= line == kBenchCsvHeader;
  }
  std::ostringstream text;
  if (!has_header) text << kBenchCsvHeader << '\n';
  for (const BenchRow& r : rows) text << bench_csv_line(r) << '\n';
  make_folder(std::filesystem::path(path).parent_path().string());
  std::ofstream out(path, std::ios::app);
  if (!(out << text.str())) throw UsageError("cannot append to " + path + ": " + std::strerror(errno));
}

}  // namespace tc
