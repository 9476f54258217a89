// 10_calibrate: step 5's eight fitted constants (MachineModel, step5_choice.cuh) found from a schedule sweep's
// measurements, and the model's error with them: on the sweep it was fit to, and on a second sweep it was not (the
// held-out suite's), which is the error to quote. Host only: it reads what 10_schedule_sweep printed on a GPU.
// The GPU's own numbers (SMs, chapter 08's clusters, DRAM bandwidth) are not fit: they come from the flags, by
// default an H200's (132 SMs, 64 clusters, 0.9 of the datasheet's 4.8 TB/s, as current_machine computes it).
// Usage: 10_calibrate [--fit FILE] [--report FILE] [--sms N] [--clusters N] [--dram-tbps X]
// (--fit's default: docs/results/10_schedule_sweep_h200.txt, the suite's sweep; --report: none).
// Exit codes: README.md, "Exit codes" (2: a flag, or a file that cannot be read as a sweep).
#include "step5_choice.cuh"
#include "tools/calibrate.hpp"

#include "tc/cli.hpp"
#include "tc/main.hpp"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

std::vector<calibration::SweepRow> read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw tc::UsageError("cannot read " + path);
  try {
    return calibration::read_sweep(in);
  } catch (const std::runtime_error& e) {
    throw tc::UsageError(path + ": " + e.what());
  }
}

void print_error(const char* what, const calibration::ModelError& e) {
  std::printf("%-34s geomean %.3f of the fastest measured, worst %.3f (%s) over %d shapes", what, e.geomean, e.worst,
              e.worst_row.c_str(), e.rows);
  if (e.unmeasured > 0) std::printf(", %d picks the sweep did not time", e.unmeasured);
  std::printf("; estimates off by %.1f%% rms (log)\n", 100.0 * e.fit_rms);
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    tc::Cli cli("10_calibrate", "Fits step 5's model constants to a schedule sweep and reports its error.");
    cli.add_string("fit", "docs/results/10_schedule_sweep_h200.txt", "the sweep to fit the constants to");
    cli.add_string("report", "", "a sweep to report the fitted model's error on, never fit to (the held-out suite's)");
    cli.add_int("sms", 132, "the GPU's SMs", 1, 1024);
    cli.add_int("clusters", 64, "chapter 08's persistent 2-block clusters on them (step1_clusters)", 1, 512);
    cli.add_real("dram-tbps", 4.32, "DRAM bandwidth in TB/s as the model takes it: 0.9 of the memory's peak");
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    if (!(cli.get_real("dram-tbps") > 0.0)) throw tc::UsageError("--dram-tbps must be positive");
    const std::vector<calibration::SweepRow> fit = read_file(cli.get_string("fit"));
    std::vector<calibration::SweepRow> report;
    if (!cli.get_string("report").empty()) report = read_file(cli.get_string("report"));

    MachineModel start;  // the constants as step5_choice.cuh has them
    start.sms = int(cli.get_int("sms"));
    start.clusters = int(cli.get_int("clusters"));
    start.dram_bytes_per_s = cli.get_real("dram-tbps") * 1e12;
    const MachineModel fitted = calibration::calibrate(fit, start);

    std::printf("== step 5's fitted constants: as the code has them, and as fit to %s (%d shapes) ==\n",
                cli.get_string("fit").c_str(), int(fit.size()));
    for (const calibration::Constant& c : calibration::kFitted)
      std::printf("%-22s %12.4g %12.4g\n", c.name, start.*c.field, fitted.*c.field);
    std::printf("\n== the model's error: the fastest schedule measured over the one it picks ==\n");
    print_error("fit shapes, the code's constants:", calibration::model_error(fit, start));
    print_error("fit shapes, the fitted constants:", calibration::model_error(fit, fitted));
    if (!report.empty()) {
      print_error("report shapes, the code's:", calibration::model_error(report, start));
      print_error("report shapes, the fitted:", calibration::model_error(report, fitted));
    }
    return tc::kExitOk;
  });
}
