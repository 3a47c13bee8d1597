#include "tuner/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <vector>

#include "db/records.hpp"
#include "model/gepp_cpu.hpp"
#include "solvers/lu.hpp"

namespace hetlu::tuner {
namespace {

std::vector<double> random_matrix(int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> A(static_cast<size_t>(n) * n);
  for (auto& a : A) a = dist(rng);
  return A;
}

db::Trial time_candidate(const Plan& plan, int n, const std::vector<double>& original, const TimingOptions& timing) {
  db::Trial trial;
  trial.plan = plan;
  trial.m = trial.n = n;
  std::vector<double> work(original.size());
  std::vector<int> ipiv(n);
  try {
    int info = 0;
    Measurement m = measure([&] { std::copy(original.begin(), original.end(), work.begin()); },
                            [&] { info = solvers::getrf(plan, n, n, work.data(), n, ipiv.data()); }, timing);
    if (info != 0) throw Error("getrf returned info = " + std::to_string(info) + " on a random matrix");
    trial.status = m.noisy ? db::TrialStatus::noisy : db::TrialStatus::ok;
    trial.repetitions = static_cast<int>(m.samples.size());
    trial.median_s = m.median;
    trial.min_s = m.minimum;
    trial.spread = m.spread;
    trial.gflops = model::getrf_flops(n, n) / m.median / 1e9;
    trial.samples = m.samples;
  } catch (const std::exception& e) {
    trial.status = db::TrialStatus::failed;
    trial.error = e.what();
  }
  return trial;
}

// The fastest trial; among those within noise of it, the model's own plan wins, so that ties are
// decided the same way every time.
const db::Trial* choose_best(const std::vector<db::Trial>& trials, int model_nb) {
  const db::Trial* best = nullptr;
  for (const auto& t : trials)
    if (t.status != db::TrialStatus::failed && (!best || *t.median_s < *best->median_s)) best = &t;
  if (!best) return nullptr;
  const double noise = std::max(0.02, best->spread.value_or(0));
  for (const auto& t : trials)
    if (t.status != db::TrialStatus::failed && t.plan.nb == model_nb && *t.median_s <= *best->median_s * (1 + noise))
      return &t;
  return best;
}

}  // namespace

std::vector<TuneResult> tune_gepp_cpu(db::Database& db, std::int64_t machine_id, const MachineProfile& profile,
                                      const LevelSettings& settings, const model::ModelParams& params,
                                      const Progress& progress) {
  const Strategy strategy = find_strategy(settings.strategy);
  std::vector<TuneResult> results;
  for (int n : settings.sizes) {
    const Plan model_plan = model::plan_gepp_cpu(profile, n, n, params);
    const std::vector<Plan> candidates = strategy(settings.space, model_plan, n, n);
    const std::vector<double> original = random_matrix(n, 1234u + static_cast<unsigned>(n));

    TuneResult result;
    result.m = result.n = n;
    for (const Plan& candidate : candidates) {
      db::Trial key;
      key.machine_id = machine_id;
      key.level = settings.level;
      key.plan = candidate;
      key.m = key.n = n;
      if (auto stored = db::find_trial(db, key)) {
        ++result.reused;
        if (stored->status == db::TrialStatus::failed) ++result.failed;
        continue;
      }
      db::Trial trial = time_candidate(candidate, n, original, settings.timing);
      trial.machine_id = machine_id;
      trial.level = settings.level;
      trial.predicted_s = model::predict_gepp_cpu_seconds(profile, n, n, candidate.nb, params);
      db::insert_trial(db, trial);
      ++result.measured;
      if (trial.status == db::TrialStatus::failed) ++result.failed;
      if (progress) {
        std::ostringstream line;
        line.precision(3);
        line << "gepp n=" << n << " nb=" << candidate.nb << ": ";
        if (trial.status == db::TrialStatus::failed)
          line << "FAILED (" << trial.error << ")";
        else
          line << *trial.median_s << " s, " << *trial.gflops << " GFlop/s, model " << *trial.predicted_s << " s"
               << (trial.status == db::TrialStatus::noisy ? " (noisy)" : "");
        progress(line.str());
      }
    }

    const auto trials = db::list_trials(db, machine_id, model_plan, n, n, settings.level);
    const db::Trial* best = choose_best(trials, std::min(model_plan.nb, n));
    if (!best) {
      if (progress) progress("gepp n=" + std::to_string(n) + ": every candidate failed; no plan stored");
      continue;
    }
    db::BestPlan row;
    row.machine_id = machine_id;
    row.plan = best->plan;
    row.m = row.n = n;
    row.level = settings.level;
    row.median_s = *best->median_s;
    row.gflops = *best->gflops;
    row.predicted_s = best->predicted_s;
    row.trial_id = best->id;
    db::upsert_best_plan(db, row);

    result.best = best->plan;
    result.best.source = PlanSource::tuned;
    result.median_s = row.median_s;
    result.gflops = row.gflops;
    result.predicted_s = row.predicted_s;
    results.push_back(result);
  }
  return results;
}

}  // namespace hetlu::tuner
