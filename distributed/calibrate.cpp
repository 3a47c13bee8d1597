// hetlu calibrate --distributed: the tuner of the distributed solve. Rank 0 owns the database and
// the model; it sends every rank the configurations to time, in the model's order.
#include <mpi.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "configs/configs.hpp"
#include "db/distributed.hpp"
#include "distributed/blacs_grid.hpp"
#include "hetlu/detail/statistics.hpp"
#include "hetlu/distributed.hpp"
#include "hetlu/hetlu.hpp"
#include "model/distributed.hpp"

namespace hetlu::distributed {
namespace {

// The configurations timed at one order: the model's best `count`, and the defaults most codes use
// (nb = 64, the squarest grid) with one thread per rank, so that the database shows what tuning won.
std::vector<model::DistributedPrediction> configurations(const MachineProfile& profile, const NetworkProfile& net,
                                                         const model::DistributedProblem& problem, int count) {
  const auto params = configs::model_params();
  auto all = model::distributed_candidates(profile, net, problem, params);
  std::vector<model::DistributedPrediction> chosen(all.begin(), all.begin() + std::min<std::size_t>(count, all.size()));
  const DistributedPlan defaults = common_plan(problem.layout.ranks, 1);
  const bool has_defaults = std::any_of(chosen.begin(), chosen.end(), [&](const auto& c) {
    return c.plan.nb == defaults.nb && c.plan.grid_rows == defaults.grid_rows &&
           c.plan.threads_per_rank == defaults.threads_per_rank;
  });
  if (!has_defaults) chosen.push_back(model::predict_distributed_seconds(profile, net, problem, defaults, params));
  return chosen;
}

}  // namespace

CalibrationReport calibrate(MPI_Comm comm, const CalibrationOptions& options,
                            const std::function<void(const CalibrationRow&)>& progress) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  CalibrationReport report;
  report.layout = layout_of(comm);
  std::optional<db::Database> database;
  std::int64_t machine_id = 0;
  MachineProfile profile;
  std::string error;
  if (rank == 0) try {
      if (options.sizes.empty()) throw InvalidArgument("calibrate --distributed: no orders to tune");
      for (int n : options.sizes)
        if (n < 1 || n > 1000000)
          throw InvalidArgument("calibrate --distributed: order " + std::to_string(n) + " is not in [1, 1000000]");
      for (Precision p : options.precisions)
        if (p == Precision::mixed) throw InvalidArgument("calibrate --distributed: precision must be single or double");
      if (options.candidates < 1 || options.repetitions < 1)
        throw InvalidArgument("calibrate --distributed: candidates and repetitions must be >= 1");
      report.db_path = db::path_or_default(options.db_path);
      database = db::Database::open(report.db_path, db::Database::Mode::read_write);
      profile = this_machine();
      machine_id = db::ensure_machine(*database, db::fingerprint(profile));
      db::load_probe_rates(*database, machine_id, profile);  // measured rates, when hetlu probe ran
      // The CPUs' GEMM rates themselves, one core's and all cores', in every precision tuned (a stored
      // probe may hold a GPU's alone, or a damaged row the model passes over). A source that starts
      // "measured" was (a disturbed all-cores probe is "measured, ... taken as" one core's: a loaded
      // CI machine's probe was called the datasheet's).
      auto measured = [](const std::string& source) { return source.rfind("measured", 0) == 0; };
      report.cpu_rates_probed = true;
      for (Precision p : options.precisions) {
        const auto rates = model::rates_of(profile, p, configs::model_params());
        report.cpu_rates_probed &= measured(rates.cpu_one.source) && measured(rates.cpu_all.source);
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
  agree_on_error(comm, 0, error);

  report.network = probe_network(comm);
  if (rank == 0) database->transaction([&] { db::store_network_profile(*database, machine_id, report.network); });

  for (Precision precision : options.precisions)
    for (int n : options.sizes) {
      const model::DistributedProblem problem = model::problem_as_run_here(precision, n, report.layout);
      std::vector<model::DistributedPrediction> chosen;
      std::vector<std::optional<db::DistributedTrial>> stored;  // rank 0: each configuration's, if any
      std::vector<int> packed;  // count, then per configuration: P, Q, nb, threads, reused
      if (rank == 0) {
        chosen = configurations(profile, report.network, problem, options.candidates);
        packed.push_back(static_cast<int>(chosen.size()));
        for (const auto& c : chosen) {
          db::DistributedTrial key;
          key.machine_id = machine_id, key.precision = precision, key.layout = report.layout, key.n = n;
          key.plan = c.plan;
          stored.push_back(db::find_distributed_trial(*database, key));
          packed.insert(packed.end(), {c.plan.grid_rows, c.plan.grid_cols, c.plan.nb, c.plan.threads_per_rank,
                                       stored.back() && stored.back()->status != db::TrialStatus::failed});
        }
      }
      int size = static_cast<int>(packed.size());
      MPI_Bcast(&size, 1, MPI_INT, 0, comm);
      packed.resize(size);
      MPI_Bcast(packed.data(), size, MPI_INT, 0, comm);
      for (int i = 0; i < packed[0]; ++i) {
        const int* f = &packed[1 + 5 * i];
        CalibrationRow row;
        row.precision = precision, row.n = n;
        row.plan.grid_rows = f[0], row.plan.grid_cols = f[1], row.plan.nb = f[2], row.plan.threads_per_rank = f[3];
        row.reused = f[4] != 0;
        db::DistributedTrial trial;
        trial.machine_id = machine_id, trial.precision = precision, trial.layout = report.layout, trial.n = n;
        trial.plan = row.plan;
        if (rank == 0) row.plan.predicted_seconds = trial.predicted_s = chosen[i].seconds;
        if (row.reused) {
          if (rank == 0) row.median_seconds = stored[i]->median_s.value_or(0);
        } else {
          const Timing timing = time_gesv(comm, precision, n, row.plan, options.repetitions);
          row.median_seconds = detail::median(timing.samples);
          if (timing.info != 0) row.error = "p?gesv returned info = " + std::to_string(timing.info);
          if (rank == 0) {
            trial.status = row.error.empty() ? db::TrialStatus::ok : db::TrialStatus::failed;
            trial.error = row.error;
            trial.repetitions = options.repetitions;
            trial.samples = timing.samples;
            trial.median_s = row.median_seconds;
            database->transaction([&] { db::store_distributed_trial(*database, trial); });
          }
        }
        if (rank == 0 && progress) progress(row);
        report.rows.push_back(row);
      }
    }
  return report;
}

}  // namespace hetlu::distributed
