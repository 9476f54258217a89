// Step 5's model held to a schedule sweep, and its fitted constants found again from one: what tools/calibrate.cu
// runs and the chapter's host tests check.
//
// The sweep (tools/schedule_sweep.cu) times every schedule at every shape of a suite; its table is the measurement.
// read_sweep takes that table back from the sweep's printed output. model_error replays step 5's choice
// (choose_schedule) at each row under a MachineModel and compares the measured time of the schedule it picks with
// the fastest measured: the model's error, as the sweep itself prints it. calibrate searches the eight constants
// that MachineModel marks "fit" for the values that pick best over the rows (the geomean of fastest / picked
// highest), breaking ties by how far the model's estimates of the measured schedules are from their times (the
// root-mean-square of log(estimate / measured)), so that among equally good pickers it keeps the truest one.
// Fit on the suite, report on the held-out suite: calibrating on the held-out rows would make it tuned on.
// Host only, pure but for read_sweep's stream. Errors: std::runtime_error from read_sweep (a table it cannot read).
#pragma once

#include "step5_choice.cuh"

#include <algorithm>
#include <cmath>
#include <istream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace calibration {

// The sweep's schedule columns, in its table's order (tools/schedule_sweep.cu prints them so). A sweep made before the
// pair tile has the first nine: its rows read with no pair time (read_sweep).
inline const std::vector<std::string> kSweepColumns = {"ch08",    "stream-K", "BN",   "BN s2", "BN s4",
                                                       "BN/2",    "BN/2 s2",  "BN/2 s4", "wide", "pair"};
inline constexpr std::size_t kColumnsBeforePair = 9;

// One row of the sweep: the shape in the suite's terms (M tokens, an N x K weight: suite.hpp) and each column's
// median time in ms, negative where the sweep ran nothing ("-").
struct SweepRow {
  std::string name;  // "model layer MxNxK"
  int tokens = 0, weights = 0, k = 0;
  std::vector<double> ms;  // kSweepColumns' order
  double fastest_ms() const {
    double best = -1.0;
    for (double t : ms)
      if (t > 0.0 && (best < 0.0 || t < best)) best = t;
    return best;
  }
  double ms_of(const std::string& label) const {
    const auto at = std::find(kSweepColumns.begin(), kSweepColumns.end(), label);
    return at == kSweepColumns.end() ? -1.0 : ms[std::size_t(at - kSweepColumns.begin())];
  }
};

// The rows of the table that follows the sweep's "== every schedule" heading: each line of model, layer, M, N, K,
// BN, W read ms and the schedule columns its header names (the ten of kSweepColumns, or the first nine where the
// header has no "pair"; the later columns are ignored). Errors: std::runtime_error naming the line where a row does
// not read, or where there is no table.
inline std::vector<SweepRow> read_sweep(std::istream& in) {
  std::vector<SweepRow> rows;
  std::string line;
  bool in_table = false, header = false;
  std::size_t columns = kSweepColumns.size();
  while (std::getline(in, line)) {
    if (line.rfind("== every schedule", 0) == 0) {
      in_table = true;
      header = true;
      continue;
    }
    if (!in_table) continue;
    if (header) {  // the column names
      header = false;
      std::istringstream names(line);
      bool pair = false;
      for (std::string word; names >> word;) pair = pair || word == "pair";
      columns = pair ? kSweepColumns.size() : kColumnsBeforePair;
      continue;
    }
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string word; fields >> word;) f.push_back(word);
    if (f.size() < 7 + columns || f[2].find_first_not_of("0123456789") != std::string::npos) break;
    SweepRow r;
    try {
      r.tokens = std::stoi(f[2]), r.weights = std::stoi(f[3]), r.k = std::stoi(f[4]);
      for (std::size_t c = 0; c < kSweepColumns.size(); ++c)
        r.ms.push_back(c >= columns || f[7 + c] == "-" ? -1.0 : std::stod(f[7 + c]));
    } catch (const std::exception&) {
      throw std::runtime_error("the sweep's table does not read at: " + line);
    }
    r.name = f[0] + " " + f[1] + " " + f[2] + "x" + f[3] + "x" + f[4];
    if (r.fastest_ms() <= 0.0) throw std::runtime_error("no schedule timed at: " + line);
    rows.push_back(r);
  }
  if (rows.empty()) throw std::runtime_error("no \"== every schedule\" table with rows in the sweep's output");
  return rows;
}

// The model's error over the rows: the geomean and the worst of fastest / picked, where picked is the measured time
// of choose_schedule's schedule; `unmeasured` counts the rows whose pick the sweep did not time (they count as the
// worst possible, 0, would; here they are left out of both and reported). fit_rms: the root-mean-square of
// log(estimate / measured) over every measured schedule the model estimates.
struct ModelError {
  double geomean = 1.0, worst = 1.0;
  std::string worst_row;
  int rows = 0, unmeasured = 0;
  double fit_rms = 0.0;
};

inline ModelError model_error(const std::vector<SweepRow>& rows, const MachineModel& g) {
  ModelError e;
  double log_sum = 0.0, fit_sum = 0.0;
  int fits = 0;
  for (const SweepRow& r : rows) {
    const std::vector<ScheduleEstimate> all = estimate_schedules(r.weights, r.tokens, r.k, g);
    for (const ScheduleEstimate& s : all) {
      const double ms = r.ms_of(s.label());
      if (ms > 0.0) fit_sum += std::pow(std::log(s.seconds * 1e3 / ms), 2), ++fits;
    }
    const double picked = r.ms_of(choose_schedule(r.weights, r.tokens, r.k, g).label());
    if (picked <= 0.0) {
      ++e.unmeasured;
      continue;
    }
    const double ratio = r.fastest_ms() / picked;
    log_sum += std::log(ratio);
    ++e.rows;
    if (ratio < e.worst) e.worst = ratio, e.worst_row = r.name;
  }
  if (e.rows > 0) e.geomean = std::exp(log_sum / e.rows);
  if (fits > 0) e.fit_rms = std::sqrt(fit_sum / fits);
  return e;
}

// Better: fewer unmeasured picks; then a geomean higher by more than 0.001, or a worst higher by more than 0.005
// (less would be the sweep's run-to-run spread, a few percent at one shape, fit); then a smaller fit_rms.
inline bool better(const ModelError& a, const ModelError& b) {
  if (a.unmeasured != b.unmeasured) return a.unmeasured < b.unmeasured;
  if (std::abs(a.geomean - b.geomean) > 1e-3) return a.geomean > b.geomean;
  if (std::abs(a.worst - b.worst) > 5e-3) return a.worst > b.worst;
  return a.fit_rms < b.fit_rms;
}

// The eight fitted constants, by name, as pointers into a model.
using ModelField = double MachineModel::*;
struct Constant {
  const char* name;
  ModelField field;
};
inline const std::vector<Constant> kFitted = {
    {"launch_s", &MachineModel::launch_s},
    {"sm_l2_bytes_per_s", &MachineModel::sm_l2_bytes_per_s},
    {"streamed_slice", &MachineModel::streamed_slice},
    {"split_s", &MachineModel::split_s},
    {"narrow_wave_s", &MachineModel::narrow_wave_s},
    {"sm_dram_bytes_per_s", &MachineModel::sm_dram_bytes_per_s},
    {"wide_l2_bytes_per_s", &MachineModel::wide_l2_bytes_per_s},
    {"pair_l2_bytes_per_s", &MachineModel::pair_l2_bytes_per_s},
};

// Coordinate descent from `start` under `better_than`: each round tries every fitted constant at each of kSteps times
// its value and keeps any that is better; a round where none of those is better tries every two constants at every
// two steps together, since two constants that must move together to change a pick (the wide and pair tiles' L2
// intakes, where both tiles are close at 8B down 512) stall a search of one at a time. It stops after a round that
// changed nothing, or after max_rounds. The steps are coarse on purpose: the sweep's times move a few percent from run
// to run, and finer constants would fit that.
template <typename Better>
MachineModel descend(const std::vector<SweepRow>& rows, const MachineModel& start, int max_rounds,
                     const Better& better_than) {
  static constexpr double kSteps[] = {0.5, 0.7, 0.85, 1.2, 1.4, 2.0};
  MachineModel best = start;
  ModelError best_error = model_error(rows, best);
  auto keep_if_better = [&](const MachineModel& trial) {
    const ModelError e = model_error(rows, trial);
    if (!better_than(e, best_error)) return false;
    best = trial, best_error = e;
    return true;
  };
  for (int round = 0; round < max_rounds; ++round) {
    bool changed = false;
    for (const Constant& c : kFitted)
      for (double step : kSteps) {
        MachineModel trial = best;
        trial.*c.field = best.*c.field * step;
        changed = keep_if_better(trial) || changed;
      }
    for (std::size_t i = 0; !changed && i < kFitted.size(); ++i)
      for (std::size_t j = i + 1; j < kFitted.size(); ++j)
        for (double step_i : kSteps)
          for (double step_j : kSteps) {
            MachineModel trial = best;
            trial.*kFitted[i].field = best.*kFitted[i].field * step_i;
            trial.*kFitted[j].field = best.*kFitted[j].field * step_j;
            changed = keep_if_better(trial) || changed;
          }
    if (!changed) break;
  }
  return best;
}

// The fit: the search for the picks (better()) from `start`, or, where it does better, the same search started from
// the constants whose estimates come closest to the measured times (the smallest fit_rms, whatever they pick). From
// constants far off, the search for the picks alone can stall where no one or two constants change a pick for the
// better, with a constant nowhere near what the times say (its recovery test: an SM's L2 intake at 5.6 times the
// truth); started among constants that explain the times, it does not. Kept only where better, so that constants the
// search for the picks keeps where they are stay a fixed point of the fit.
inline MachineModel calibrate(const std::vector<SweepRow>& rows, const MachineModel& start, int max_rounds = 16) {
  const MachineModel direct = descend(rows, start, max_rounds, better);
  const MachineModel truest = descend(rows, start, max_rounds, [](const ModelError& a, const ModelError& b) {
    return a.fit_rms < b.fit_rms;
  });
  const MachineModel from_truest = descend(rows, truest, max_rounds, better);
  return better(model_error(rows, from_truest), model_error(rows, direct)) ? from_truest : direct;
}

}  // namespace calibration
