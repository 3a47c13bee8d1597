// Tuning runs: for each problem size, time the strategy's candidate plans around the model's plan,
// store every trial (failed ones too) and the best plan. Trials already in the database at the same
// level are reused, never re-measured, so a killed calibration resumes where it stopped.
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
  std::vector<int> sizes;  // square problems to tune
  std::string strategy = "grid";
  SearchSpace space;
  TimingOptions timing;
};

struct TuneResult {
  int m = 0, n = 0;
  Plan best;
  double median_s = 0, gflops = 0;
  std::optional<double> predicted_s;
  int measured = 0, reused = 0, failed = 0;
};

using Progress = std::function<void(const std::string& line)>;

std::vector<TuneResult> tune_gepp_cpu(db::Database& db, std::int64_t machine_id, const MachineProfile& profile,
                                      const LevelSettings& settings, const model::ModelParams& params,
                                      const Progress& progress);

}  // namespace hetlu::tuner
