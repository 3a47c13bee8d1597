// Tuning runs: for each solver and problem size, the strategy walks the search space from the
// model's plan; every configuration it asks for is timed (or taken from a trial already stored at
// the same level, by this process or another: never re-measured, so a killed calibration resumes
// where it stopped) and stored, failed ones too, with why; the best plan is stored per size. A
// failure the environment caused (out of memory) is measured again in another environment. `profile` is this machine as
// probed; for the hybrid target on the host backend the model sees part of its cores as the device.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "model/params.hpp"
#include "tuner/strategies/strategy.hpp"
#include "tuner/timing.hpp"

namespace hetlu::tuner {

// What one calibration level does; filled from configs/calibration.yaml.
struct LevelSettings {
  CalibrationLevel level = CalibrationLevel::quick;
  bool measure_rates = true;  // false: topology and datasheet peaks only, no timing at all
  int probe_gemm_size = 1024;
  std::vector<Solver> solvers = {Solver::gepp};
  // The precisions tuned (YAML precisions:, default double). single times the factorization in
  // float; mixed times the whole mixed solve (single factorization, refinement in double), and a
  // plan whose refinement falls back to double on a random matrix is a failed trial.
  std::vector<Precision> precisions = {Precision::double_};
  std::vector<int> sizes;  // square problems to tune
  // The target tuned: cpu, or hybrid on `devices` (d and nb; the space's cpu_share gives the d tried).
  Target target = Target::cpu;
  DeviceSet devices = BackendKind::host;
  std::vector<int> hybrid_sizes;  // the square sizes a hybrid calibration tunes (the device needs larger ones)
  std::string strategy = "grid";
  SearchSpace space;
  TimingOptions timing;
  double budget_seconds = 0;  // 0: no limit; else no new measurement starts after this long
  // A configuration the model prices above prune_above times its price of the plan measured fastest
  // so far for the same problem is not timed (YAML prune_above; 0: time every one): the model's
  // ranking decides (Spearman 0.93 over a d sweep on the H100), not its absolute times (off by up to
  // half). On the H100 a quick hybrid calibration spent 130 of its 150 s on d = 128..512, which the
  // model priced at 15-37x the d = 0 plan already measured, and which measured 16-31x.
  double prune_above = 4;
  bool retry_failed = false;  // measure stored failed trials again (else only those of another environment)
};

struct TuneResult {
  Solver solver = Solver::gepp;
  Precision precision = Precision::double_;
  int m = 0, n = 0;
  Plan best;
  double median_s = 0, gflops = 0;
  std::optional<double> predicted_s;
  int measured = 0, reused = 0, failed = 0;
  int pruned = 0;          // not timed: the model priced them above prune_above x the best measured
  int left_by_budget = 0;  // not timed: the budget was spent before their turn
  std::string no_plan;     // empty when a plan was stored; else why none was (best, median_s unset)
  // The budget ran out during this problem (left_by_budget > 0): a rerun resumes it. With a plan
  // stored, that plan is the best of part of the search.
  bool budget_spent = false;
};

using Progress = std::function<void(const std::string& line)>;
// After each configuration: how many were evaluated (measured or reused) and how many the search
// may evaluate at most (the whole space for the grid; an upper bound for the other strategies).
using Count = std::function<void(int done, int at_most)>;

// What a failure the environment caused depends on beyond the trial's key: the target, the
// backend and its limits (threads, memory).
std::string environment(const LevelSettings& settings);

// Bytes a trial at order n holds: A, its working copy (PRBT's padded) and the reference's, in double.
inline double trial_bytes(int n) {
  return 3 * 8.0 * n * double(n);
}

// One result per solver and size, in order; those with no_plan set stored no plan (a size beyond
// the memory available among them: no trial at all).
std::vector<TuneResult> tune(db::Database& db, std::int64_t machine_id, const MachineProfile& profile,
                             const LevelSettings& settings, const model::ModelParams& params, const Progress& progress,
                             const Count& count = nullptr);

}  // namespace hetlu::tuner
