// hetlu::calibrate: the one calibration sequence that the command, the Python module and C++ users
// share: probe, store the probe run under this machine's fingerprint, tune, store the best plans.
#include "tuner/calibrate.hpp"

#include <cmath>
#include <exception>
#include <optional>

#include "configs/configs.hpp"
#include "db/records.hpp"
#include "hetlu/hetlu.hpp"
#include "probes/probes.hpp"
#include "solvers/backend.hpp"
#include "tuner/crossover.hpp"

namespace hetlu {

CalibrationReport calibrate(const CalibrationOptions& options) {
  tuner::LevelSettings settings = configs::calibration_level(options.level, options.config_path);
  constexpr int largest_size = 100000;  // as the command's --sizes
  for (int n : options.sizes)
    if (n < 1 || n > largest_size)
      throw InvalidArgument("calibrate: size " + std::to_string(n) +
                            (n < 1 ? " is not a positive matrix order"
                                   : " is larger than calibrate tunes (at most " + std::to_string(largest_size) + ")"));
  if (!std::isfinite(options.budget_seconds) || options.budget_seconds < 0)
    throw InvalidArgument("calibrate: the budget must be a finite number of seconds >= 0 (0: none)");
  if (!settings.measure_rates && (!options.sizes.empty() || !options.solvers.empty() || !options.precisions.empty()))
    throw InvalidArgument("calibrate: level " + to_string(options.level) +
                          " times nothing: sizes, solvers and precisions need a level that measures (quick and above)");
  if (options.devices && options.target != Target::hybrid)
    throw InvalidArgument("calibrate: devices apply to the hybrid target only");
  if (options.target == Target::hybrid) {
    settings.target = Target::hybrid;
    settings.devices = options.devices.value_or(default_devices());
    if (settings.devices.has(BackendKind::host)) {  // a bad HETLU_HOST_BACKEND_* fails now, not after the probes
      backends::host_backend_threads();
      backends::host_backend_memory_limit();
    }
    std::string why;
    if (!devices_available(settings.devices, &why))
      throw Error("cannot tune the hybrid target on devices '" + to_string(settings.devices) + "': " + why);
    settings.sizes = settings.hybrid_sizes;
    if (settings.sizes.empty() && options.sizes.empty() && settings.measure_rates)
      throw InvalidArgument("level " + to_string(options.level) + " lists no hybrid_sizes: give the sizes to tune");
  }
  if (!options.sizes.empty()) settings.sizes = options.sizes;
  if (!options.solvers.empty()) settings.solvers = options.solvers;
  if (!options.precisions.empty()) settings.precisions = options.precisions;
  if (options.budget_seconds > 0) settings.budget_seconds = options.budget_seconds;
  settings.retry_failed = options.retry_failed;
  settings.timing.stop_requested = options.stop_requested;

  CalibrationReport report;
  report.db_path = db::path_or_default(options.db_path);
  auto database = db::Database::open(report.db_path, db::Database::Mode::read_write);

  probes::ProbeOptions probe_options;
  probe_options.measure = settings.measure_rates;
  probe_options.gemm_size = settings.probe_gemm_size;
  probe_options.stop_requested = options.stop_requested;
  if (options.progress)
    options.progress(std::string("probing this machine") + (settings.measure_rates ? " (timing)" : ""));
  {
    std::optional<tuner::MeasurementTurn> turn;  // probes time too: one process at a time
    if (settings.measure_rates) turn.emplace(options.stop_requested, options.progress);
    report.profile = probes::probe_machine(probe_options);
    if (settings.measure_rates) tuner::measure_getrf_crossovers(report.profile, configs::model_params());
  }
  const auto fingerprint = db::fingerprint(report.profile);
  report.machine = fingerprint.hash;
  const auto machine_id = db::ensure_machine(database, fingerprint);
  db::store_probe_results(database, machine_id, report.profile);

  struct ForgetCachedPlans {  // later calls in this process must see the new entries, however tune ends
    ~ForgetCachedPlans() { clear_plan_cache(); }
  } forget;
  std::vector<tuner::TuneResult> results;
  try {
    results = tuner::tune(database, machine_id, report.profile, settings, configs::model_params(), options.progress,
                          options.on_trial);
  } catch (const db::DatabaseError&) {
    // `hetlu db forget` of this machine while it was measured: SQLite's own words were "FOREIGN
    // KEY constraint failed".
    const std::exception_ptr original = std::current_exception();
    std::optional<db::MachineRow> still;
    try {
      still = db::find_machine(database, fingerprint.hash);
    } catch (const db::DatabaseError&) {  // cannot tell: the first error says what went wrong
      std::rethrow_exception(original);
    }
    if (still && still->id == machine_id) std::rethrow_exception(original);
    throw db::DatabaseError("database '" + report.db_path + "': machine " + fingerprint.hash +
                            " was deleted while this calibration measured it ('hetlu db forget'?): the calibration "
                            "stopped; run it again to measure this machine");
  }
  for (const auto& r : results)
    if (r.no_plan.empty())
      report.entries.push_back({r.solver, r.m, r.n, r.best, r.median_s, r.gflops, r.predicted_s, r.measured, r.reused,
                                r.failed, r.pruned, r.left_by_budget});
    else
      report.without_plan.push_back({r.solver, r.precision, r.m, r.n, r.no_plan, r.budget_spent, r.left_by_budget});
  return report;
}

}  // namespace hetlu
