#include "tuner/calibrate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include "db/records.hpp"
#include "hetlu/detail/cuda_tf32.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/detail/stopwatch.hpp"
#include "model/predict.hpp"
#include "probes/memory.hpp"
#include "solvers/backend.hpp"
#include "solvers/lu.hpp"

namespace hetlu::tuner {
namespace {

struct Problem {
  int n;
  std::vector<double> A, b;  // the same random system for every candidate
};

Problem random_problem(int n) {
  std::mt19937_64 rng(1234u + static_cast<unsigned>(n));
  std::uniform_real_distribution<double> dist(-1, 1);
  Problem p{n, std::vector<double>(static_cast<size_t>(n) * n), std::vector<double>(n)};
  for (auto& a : p.A) a = dist(rng);
  for (auto& x : p.b) x = dist(rng);
  return p;
}

// One timed run of a plan on the problem, in the plan's precision: getrf for GEPP and CALU, gesv
// (refinement included) for PRBT; single does the same in float on A rounded; mixed the whole mixed
// solve (mixed_gesv: single factorization, refinement in double, `fallback` where it gives up).
// prepare() restores the input; run() returns the solver's info. Holds its own working copies.
class CandidateRun {
 public:
  CandidateRun(const Plan& plan, const Plan& fallback, const Problem& problem)
      : plan_(plan), fallback_(fallback), problem_(problem), ipiv_(problem.n) {
    if (plan.precision == Precision::single) {
      A32_.assign(problem.A.begin(), problem.A.end());
      b32_.assign(problem.b.begin(), problem.b.end());
      work32_.resize(A32_.size()), x32_.resize(b32_.size());
    } else {
      work_.resize(problem.A.size()), x_.resize(problem.b.size());
    }
  }
  void prepare() {
    if (plan_.precision == Precision::single) {
      std::copy(A32_.begin(), A32_.end(), work32_.begin());
      std::copy(b32_.begin(), b32_.end(), x32_.begin());
    } else {
      std::copy(problem_.A.begin(), problem_.A.end(), work_.begin());
      std::copy(problem_.b.begin(), problem_.b.end(), x_.begin());
    }
  }
  int run() {
    const int n = problem_.n;
    if (plan_.precision == Precision::single) return factor_or_solve(work32_.data(), x32_.data());
    if (plan_.precision == Precision::double_) return factor_or_solve(work_.data(), x_.data());
    Plan low = plan_;
    low.precision = Precision::single;
    details_ = {};
    // As hetlu::mixed_gesv runs by default (Options::mixed_double_accuracy), so that the time and
    // the steps stored are what a caller gets.
    const int info = solvers::mixed_gesv(low, fallback_, n, 1, work_.data(), n, ipiv_.data(), problem_.b.data(), n,
                                         x_.data(), n, details_, solvers::MixedSafeguards::double_accuracy<double>(n));
    if (info == 0 && details_.iter < 0)  // the configuration gave no mixed answer: a failure, said so
      throw Error("the mixed path fell back to double precision on a random matrix (ITER = " +
                  std::to_string(details_.iter) + ")");
    return info;
  }
  // Mixed: the last run's refinement steps (GMRES's iterations count as steps: each is a product
  // with A in double and a solve with the single factors, as a classical step is; so do the
  // certificate's steps on its probe vector).
  int refinement_steps() const { return details_.classical_steps + details_.gmres_iterations + details_.certify_steps; }

 private:
  template <class T>
  int factor_or_solve(T* A, T* x) {
    const int n = problem_.n;
    return plan_.solver == Solver::prbt ? solvers::gesv(plan_, n, 1, A, n, ipiv_.data(), x, n)
                                        : solvers::getrf(plan_, n, n, A, n, ipiv_.data());
  }

  Plan plan_, fallback_;
  const Problem& problem_;
  std::vector<double> work_, x_;
  std::vector<float> A32_, b32_, work32_, x32_;
  std::vector<int> ipiv_;
  solvers::MixedDetails details_;
};

// Times one plan (CandidateRun). A failure says why, and under which environment when the
// environment caused it.
db::Trial time_candidate(const Plan& plan, const Plan& fallback, const Problem& problem, const TimingOptions& timing,
                         const std::string& environment) {
  const int n = problem.n;
  db::Trial trial;
  trial.plan = plan;
  trial.m = trial.n = n;
  try {
    CandidateRun candidate(plan, fallback, problem);
    int info = 0;
    Measurement m = measure([&] { candidate.prepare(); }, [&] { info = candidate.run(); }, timing);
    if (info != 0) throw Error("info = " + std::to_string(info) + " on a random matrix");
    trial.status = m.noisy ? db::TrialStatus::noisy : db::TrialStatus::ok;
    trial.repetitions = static_cast<int>(m.samples.size());
    trial.median_s = m.median;
    trial.min_s = m.minimum;
    trial.spread = m.spread;
    trial.gflops = detail::getrf_flops(n, n) / m.median / 1e9;
    trial.samples = m.samples;
  } catch (const Interrupted&) {
    throw;  // the caller asked to stop: not a failure of this configuration
  } catch (const DeviceOutOfMemory& e) {
    trial.status = db::TrialStatus::failed;
    trial.error = e.what();
    trial.environment = environment;
  } catch (const std::bad_alloc&) {
    trial.status = db::TrialStatus::failed;
    trial.error = "out of memory";
    trial.environment = environment;
  } catch (const std::exception& e) {
    trial.status = db::TrialStatus::failed;
    trial.error = e.what();
  }
  return trial;
}

// The parameters a tuned configuration is told apart by (within one problem and backend).
using ParameterKey = std::tuple<int, int, int, int, int>;
ParameterKey parameter_key(const Plan& p) {
  return {p.nb, p.ib, p.lookahead, p.panel_threads, p.cpu_block_columns};
}

bool same_parameters(const Plan& a, const Plan& b) {
  return parameter_key(a) == parameter_key(b);
}

// The fastest trial; among those within noise of it, the model's own plan wins, so that ties are
// decided the same way every time.
const db::Trial* choose_best(const std::vector<db::Trial>& trials, const Plan& model_plan) {
  const db::Trial* best = nullptr;
  for (const auto& t : trials)
    if (t.status != db::TrialStatus::failed && (!best || *t.median_s < *best->median_s)) best = &t;
  if (!best) return nullptr;
  // Within noise, but never more than 5 %: the stored plan is always within 5 % of the fastest.
  const double noise = std::min(0.05, std::max(0.02, best->spread.value_or(0)));
  for (const auto& t : trials)
    if (t.status != db::TrialStatus::failed && same_parameters(t.plan, model_plan) &&
        *t.median_s <= *best->median_s * (1 + noise))
      return &t;
  return best;
}

// "gepp n=1000 nb=128 lookahead=1", "calu single n=16384 nb=256 ib=32 d=0 (cuda)".
std::string describe_plan(const Plan& plan, int n) {
  std::ostringstream line;
  line << to_string(plan.solver);
  if (plan.precision != Precision::double_) line << " " << to_string(plan.precision);
  line << " n=" << n << " nb=" << plan.nb;
  if (plan.solver == Solver::calu) line << " ib=" << plan.ib;
  if (plan.target == Target::hybrid)
    line << " d=" << plan.cpu_block_columns << " (" << to_string(plan.devices) << ")";
  else
    line << " lookahead=" << plan.lookahead;
  return line.str();
}

std::string describe(const db::Trial& t) {
  std::ostringstream line;
  line.precision(3);
  line << describe_plan(t.plan, t.n) << ": ";
  if (t.status == db::TrialStatus::failed)
    line << "FAILED (" << t.error << ")";
  else
    line << *t.median_s << " s, " << *t.gflops << " GFlop/s, model " << t.predicted_s.value_or(0) << " s"
         << (t.status == db::TrialStatus::noisy ? " (noisy)" : "");
  return line.str();
}

// values without repeats, in their first order.
template <class T>
std::vector<T> distinct(const std::vector<T>& values) {
  std::vector<T> out;
  std::set<T> seen;
  for (const T& v : values)
    if (seen.insert(v).second) out.push_back(v);
  return out;
}

// Why a problem got no plan: every trial failed (the first reason), or none was measured.
std::string why_no_plan(const std::vector<db::Trial>& trials, bool budget_spent) {
  if (trials.empty() && budget_spent) return "the budget was spent before any trial (run again to resume)";
  if (trials.empty()) return "no trial was measured";
  return "all " + std::to_string(trials.size()) + " trials failed (" + trials.front().error +
         "; 'calibrate --retry-failed' measures them again)";
}

// Whether a stored trial is measured again rather than reused.
bool measure_again(const db::Trial& stored, const LevelSettings& settings, const std::string& environment) {
  if (stored.status != db::TrialStatus::failed) return false;
  return settings.retry_failed || (!stored.environment.empty() && stored.environment != environment);
}

// The refinement steps the best mixed plan takes on this machine and order, stored with the probes
// for the model's price of mixed precision (model/cpu_lu.cpp, mixed_refinement_steps): one more run, untimed but taking
// its turn. A failure costs the steps only (the model keeps its default), never the plan stored.
void store_steps_of(db::Database& db, std::int64_t machine_id, int n, const Plan& best, const Plan& fallback,
                    std::optional<Problem>& system, const LevelSettings& settings, const Progress& progress) {
  const std::string what = to_string(best.solver) + " mixed n=" + std::to_string(n) + ": ";
  try {
    if (!system) system = random_problem(n);
    CandidateRun run(best, fallback, *system);
    run.prepare();
    {
      const MeasurementTurn turn(settings.timing.stop_requested, progress);
      run.run();
    }
    const double steps = run.refinement_steps();
    db::store_refinement_steps(db, machine_id, best.solver, n, steps);
    if (progress) {
      std::ostringstream line;
      line << what << steps << " refinement step(s) after the single factorization, stored for the model";
      progress(line.str());
    }
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    if (progress) progress(what + "refinement steps not measured (" + e.what() + "); the model keeps its default");
  }
}

}  // namespace

std::string environment(const LevelSettings& settings) {
  if (settings.target != Target::hybrid) return "cpu";
  const std::size_t limit = backends::host_backend_memory_limit();
  const auto copies = backends::device_copies(settings.devices);
  std::string text;
  for (std::size_t i = 0; i < settings.devices.size(); ++i) {
    const Device& d = settings.devices.list[i];
    text += text.empty() ? "" : "; ";
    if (d.kind == BackendKind::cuda) {
      text += "cuda: " + backends::backend<double>(d, copies[i]).device_name();
      if (detail::cuda_tf32_requested()) text += ", single precision in TF32";
    } else {
      text +=
          "host backend: " + std::to_string(d.number > 0 ? d.number : backends::host_backend_threads()) + " threads, " +
          (limit == std::numeric_limits<std::size_t>::max() ? std::string("no memory limit")
                                                            : "memory limit " + detail::readable_bytes(double(limit)));
    }
  }
  return text;
}

std::vector<TuneResult> tune(db::Database& db, std::int64_t machine_id, const MachineProfile& probed,
                             const LevelSettings& settings, const model::ModelParams& params, const Progress& progress,
                             const Count& count) {
  const Target target = settings.target;
  // The threads the trials' CPUs run on: part of every trial's and plan's key, since a plan is
  // looked up for the threads a solve runs on (api/resolve.cpp).
  const int cpu_threads = backends::cpu_threads_here(target, settings.devices);
  // The machine as the solves' devices and CPUs' threads see it (api/resolve.cpp prices it so too).
  const MachineProfile profile = model::with_threads(
      target == Target::hybrid
          ? model::with_devices(probed, backends::with_team_sizes(settings.devices),
                                settings.devices.has(BackendKind::host) ? backends::host_backend_memory_limit() : 0)
          : probed,
      cpu_threads);
  const int devices = target == Target::hybrid ? static_cast<int>(settings.devices.size()) : 1;
  // The model's plan, snapped into the space, for this target and backend.
  auto model_plan_for = [&](const model::Problem& problem) {
    Plan plan = model::predict(profile, problem, params).plan;
    plan.devices = settings.devices;
    return without_unused_fields(settings.space.snapped(plan, problem.n));
  };
  const std::string here = environment(settings);
  std::set<std::int64_t> measured_now;  // trials this run stored: a failure among them is not retried
  const Strategy strategy = find_strategy(settings.strategy);
  const detail::Stopwatch since_start;
  auto over_budget = [&] { return settings.budget_seconds > 0 && since_start.seconds() >= settings.budget_seconds; };
  std::vector<TuneResult> results;
  bool budget_said = false;
  int done = 0, at_most = 0;
  // Each solver, precision and size once, in the order given (100000 copies of one size in a
  // config file ran a minute past a budget of 1 s).
  const auto solvers = distinct(settings.solvers);
  const auto precisions = distinct(settings.precisions);
  const auto sizes = distinct(settings.sizes);
  for (Solver solver : solvers)
    for (Precision precision : precisions)
      for (int n : sizes) {
        const model::Problem problem{solver, precision, target, n, n, devices, detail::cuda_tf32_requested()};
        at_most += static_cast<int>(settings.space.all(model_plan_for(problem), n, n).size());
      }
  for (Solver solver : solvers)
    for (Precision precision : precisions)
      for (int n : sizes) {
        TuneResult result;
        result.solver = solver;
        result.precision = precision;
        result.m = result.n = n;
        // A size this machine cannot hold is no plan, said with its bytes before anything is
        // allocated (A, its working copy and the reference's: 3 n^2 doubles). One such size among a
        // config file's had ended the whole calibration with bad_alloc, the other sizes untuned.
        const double needed = trial_bytes(n);
        if (const auto available = probes::available_memory_bytes(); available > 0 && needed > double(available)) {
          result.no_plan = "a trial needs " + probes::readable_bytes(needed) + " of memory, but only " +
                           probes::readable_bytes(double(available)) + " is available";
          if (progress) progress(to_string(solver) + " n=" + std::to_string(n) + ": no plan stored: " + result.no_plan);
          results.push_back(result);
          continue;
        }
        const model::Problem problem{solver, precision, target, n, n, devices, detail::cuda_tf32_requested()};
        const Plan model_plan = model_plan_for(problem);
        // Where the mixed path gives up, the double solver answers, with partial pivoting for PRBT.
        const Plan fallback = model_plan_for(
            model::Problem{solver == Solver::prbt ? Solver::gepp : solver, Precision::double_, target, n, n, devices});
        std::optional<Problem> system;  // made on first use: a resumed size needs none
        // The fastest time this problem has measured (or reused), and the model's price of that plan:
        // a candidate is pruned by its price against that price, the model's ranking, which it gets
        // right more often than absolute times.
        std::optional<double> best_seconds, best_predicted;
        auto noted = [&](std::optional<double> seconds, double predicted) {
          if (seconds && (!best_seconds || *seconds < *best_seconds))
            best_seconds = seconds, best_predicted = predicted;
          return seconds;
        };
        std::set<std::string> not_timed;  // pruned or left by the budget: counted once each
        // Once the budget is spent, the stored trials of this size read in one query, not one per
        // configuration: a space of 90000 ran 51 s past a budget of 1 s preparing each one's query.
        std::optional<std::map<ParameterKey, db::Trial>> stored_at_size;
        auto stored_after_budget = [&](const Plan& plan) -> std::optional<db::Trial> {
          if (!stored_at_size) {
            stored_at_size.emplace();
            for (auto& t : db::list_trials(db, machine_id, plan, n, n, settings.level, cpu_threads))
              stored_at_size->emplace(parameter_key(t.plan), std::move(t));
          }
          const auto found = stored_at_size->find(parameter_key(plan));
          return found == stored_at_size->end() ? std::nullopt : std::optional<db::Trial>(found->second);
        };

        Evaluate evaluate = [&](const Plan& candidate) -> std::optional<double> {
          struct Counted {  // reports the count when this evaluation ends, whichever way
            int& evaluated;
            int bound;
            const Count& report;
            ~Counted() {
              ++evaluated;
              if (report) report(evaluated, bound);
            }
          } counted{done, at_most, count};
          db::Trial key;
          key.machine_id = machine_id;
          key.level = settings.level;
          key.plan = without_unused_fields(candidate);
          key.m = key.n = n;
          key.cpu_threads = cpu_threads;
          const bool spent = over_budget();
          auto stored = spent ? stored_after_budget(key.plan) : db::find_trial(db, key);
          if (stored && (measured_now.count(stored->id) || !measure_again(*stored, settings, here))) {
            ++result.reused;
            if (stored->status == db::TrialStatus::failed) {
              ++result.failed;
              return std::nullopt;
            }
            return noted(stored->median_s, model::predict_seconds(profile, problem, key.plan, params));
          }
          const std::string name = describe_plan(key.plan, n);
          if (spent) {  // before pruning: what the budget leaves is left, not pruned
            if (not_timed.insert(name).second) ++result.left_by_budget;
            if (progress && !budget_said) {
              std::ostringstream said;
              said << "budget of " << settings.budget_seconds << " s spent";
              progress(said.str());
            }
            budget_said = true;
            return std::nullopt;
          }
          const double predicted = model::predict_seconds(profile, problem, key.plan, params);
          if (settings.prune_above > 0 && best_predicted && predicted > settings.prune_above * *best_predicted) {
            if (not_timed.insert(name).second) {
              ++result.pruned;
              if (progress) {
                std::ostringstream line;
                line.precision(3);
                line << name << ": not timed: the model prices it at " << predicted << " s, over "
                     << settings.prune_above << "x its price of the best measured plan (" << *best_predicted
                     << " s; measured " << *best_seconds << " s)";
                progress(line.str());
              }
            }
            return std::nullopt;
          }
          if (!system) system = random_problem(n);
          db::Trial trial;
          {
            const MeasurementTurn turn(settings.timing.stop_requested, progress);
            trial = time_candidate(key.plan, fallback, *system, settings.timing, here);
          }
          trial.machine_id = machine_id;
          trial.level = settings.level;
          trial.cpu_threads = cpu_threads;
          trial.predicted_s = predicted;
          // Another calibration may have stored this configuration meanwhile: its success is kept.
          trial = db::store_trial(db, trial);
          measured_now.insert(trial.id);
          ++result.measured;
          if (progress) progress(describe(trial));
          if (trial.status == db::TrialStatus::failed) {
            ++result.failed;
            return std::nullopt;
          }
          return noted(trial.median_s, predicted);
        };
        strategy(settings.space, model_plan, n, n, evaluate, 2026u + static_cast<unsigned>(n));

        const auto trials = db::list_trials(db, machine_id, model_plan, n, n, settings.level, cpu_threads);
        const db::Trial* best = choose_best(trials, model_plan);
        if (!best) {
          result.no_plan = why_no_plan(trials, result.left_by_budget > 0);
          result.budget_spent = result.left_by_budget > 0;
          if (progress)
            progress(to_string(solver) + (precision == Precision::double_ ? "" : " " + to_string(precision)) +
                     " n=" + std::to_string(n) + ": no plan stored: " + result.no_plan);
          results.push_back(result);
          continue;
        }
        // OpenBLAS's dgetrf on the same matrix, for the report's comparison (once per size, GEPP's turn).
        if (solver == Solver::gepp && precision == Precision::double_ && target == Target::cpu && system) {
          std::vector<double> work(system->A.size());
          std::vector<int> ipiv(n);
          const MeasurementTurn turn(settings.timing.stop_requested, progress);
          const Measurement reference =
              measure([&] { std::copy(system->A.begin(), system->A.end(), work.begin()); },
                      [&] { solvers::reference_getrf(n, n, work.data(), n, ipiv.data()); }, settings.timing);
          db::store_reference(db, machine_id, "openblas_dgetrf", n, reference.median,
                              detail::getrf_flops(n, n) / reference.median / 1e9, cpu_threads);
        }
        db::BestPlan row;
        row.machine_id = machine_id;
        row.plan = best->plan;
        row.m = row.n = n;
        row.cpu_threads = cpu_threads;
        row.level = settings.level;
        row.median_s = *best->median_s;
        row.gflops = *best->gflops;
        row.predicted_s = best->predicted_s;
        row.trial_id = best->id;
        db::upsert_best_plan(db, row);
        if (precision == Precision::mixed)
          store_steps_of(db, machine_id, n, best->plan, fallback, system, settings, progress);

        result.budget_spent = result.left_by_budget > 0;  // stored, but from part of the search
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
