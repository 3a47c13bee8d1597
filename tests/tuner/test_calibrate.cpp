#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "../common/temp_dir.hpp"
#include "db/records.hpp"
#include "probes/memory.hpp"
#include "solvers/backend.hpp"
#include "tuner/calibrate.hpp"

using namespace hetlu;

namespace {
MachineProfile measured_profile() {
  MachineProfile p;
  p.cpu_model = "Test CPU";
  p.cores = 2;
  p.dgemm_gflops_all_cores = 50;
  p.dgemm_gflops_one_core = 25;
  p.sgemm_gflops_all_cores = 100;  // probed with them: single precision and mixed are priced
  p.sgemm_gflops_one_core = 50;
  p.rates_measured = true;
  return p;
}

// The CPU threads a calibration here runs its trials of this kind on: their key.
int threads_of(const Plan& kind) {
  return backends::cpu_threads_here(kind.target, kind.devices);
}

tuner::LevelSettings tiny_settings() {
  tuner::LevelSettings s;
  s.sizes = {40, 96};
  s.space.nb = {8, 16, 32};
  s.space.lookahead = {1};
  s.timing.min_samples = 2;
  s.timing.max_samples = 3;
  s.prune_above = 0;  // every configuration timed: what these tests count must not depend on timings
  return s;
}
// Every test: a fresh database holding the measured test machine.
class Calibrate : public ::testing::Test {
 protected:
  test_support::TempDir dir;
  db::Database database = db::Database::open(dir.file("t.db"), db::Database::Mode::read_write);
  MachineProfile profile = measured_profile();
  std::int64_t id = db::ensure_machine(database, db::fingerprint(profile));
};
}  // namespace

TEST_F(Calibrate, StoresEveryTrialAndTheBestPlan) {
  std::vector<std::string> lines;
  const auto results =
      tuner::tune(database, id, profile, tiny_settings(), {}, [&](const std::string& l) { lines.push_back(l); });
  ASSERT_EQ(results.size(), 2u);
  int trials = 0;
  for (const auto& r : results) {
    EXPECT_EQ(r.best.source, PlanSource::tuned);
    EXPECT_GT(r.gflops, 0);
    EXPECT_EQ(r.reused, 0);
    EXPECT_EQ(r.failed, 0);
    trials += r.measured;
  }
  EXPECT_EQ(db::count_trials(database), trials);
  // One line per trial, beside any saying that another process's measurements held this one up
  // (ctest -j2 runs calibrations side by side: they take turns, and a wait past 2 s is said).
  const auto waits = std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.rfind("waiting for another hetlu process's measurements", 0) == 0;
  });
  EXPECT_EQ(lines.size() - static_cast<size_t>(waits), static_cast<size_t>(trials));
  EXPECT_EQ(db::list_best_plans(database).size(), 2u);

  // The best plan is the fastest measured trial or, within noise of it, the model's choice.
  for (const auto& b : db::list_best_plans(database)) {
    EXPECT_EQ(b.cpu_threads, threads_of(Plan{}));  // keyed by the threads the trials ran on
    const auto measured = db::list_trials(database, id, Plan{}, b.m, b.n, CalibrationLevel::quick, b.cpu_threads);
    ASSERT_FALSE(measured.empty());
    double fastest = 1e9;
    for (const auto& t : measured) fastest = std::min(fastest, *t.median_s);
    EXPECT_LE(b.median_s, fastest * 1.5);
  }
}

TEST_F(Calibrate, ResumesWithoutRemeasuring) {
  auto settings = tiny_settings();
  settings.sizes = {40};
  tuner::tune(database, id, profile, settings, {}, nullptr);
  const auto stored = db::count_trials(database);

  settings.sizes = {40, 64};  // as if the first run had been killed after n = 40
  const auto results = tuner::tune(database, id, profile, settings, {}, nullptr);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].measured, 0);
  EXPECT_EQ(results[0].reused, stored);
  EXPECT_GT(results[1].measured, 0);
}

TEST_F(Calibrate, TrialKeysHoldOnlyWhatTheTargetReads) {
  // The CPU target's trials do not depend on the model's hybrid share d or on GEPP's unused ib: a
  // re-probe that moves the model's raw plan reuses every stored trial.
  auto settings = tiny_settings();
  settings.sizes = {64};
  tuner::tune(database, id, profile, settings, {}, nullptr);
  const auto trials = db::list_trials(database, id, Plan{}, 64, 64, CalibrationLevel::quick, threads_of(Plan{}));
  ASSERT_FALSE(trials.empty());
  for (const auto& t : trials) {
    EXPECT_EQ(t.plan.cpu_block_columns, 0);
    EXPECT_EQ(t.plan.ib, Plan{}.ib);
    EXPECT_EQ(t.plan.panel_threads, Plan{}.panel_threads);
  }
  profile.dgemm_gflops_all_cores = 5, profile.dgemm_gflops_one_core = 2.5;  // a re-probe, other rates
  const auto again = tuner::tune(database, id, profile, settings, {}, nullptr);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].measured, 0);
}

TEST_F(Calibrate, FailedTrialsAreMeasuredAgainInAnotherEnvironmentOrWhenAsked) {
  auto settings = tiny_settings();
  settings.sizes = {40};
  settings.space.nb = {8};
  settings.space.lookahead = {1};
  tuner::tune(database, id, profile, settings, {}, nullptr);
  // Turn every stored trial into a failure: one of the configuration, one of another environment.
  database.exec("UPDATE trials SET status = 'failed', error = 'info = 3 on a random matrix', median_s = NULL");
  database.exec("DELETE FROM best_plans");
  auto results = tuner::tune(database, id, profile, settings, {}, nullptr);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].measured, 0);  // a configuration's failure is reused ...
  EXPECT_NE(results[0].no_plan.find("failed (info = 3"), std::string::npos) << results[0].no_plan;
  EXPECT_FALSE(results[0].budget_spent);
  EXPECT_EQ(db::list_best_plans(database).size(), 0u);

  database.exec("UPDATE trials SET environment = 'host backend: 1 threads, memory limit 1.0 MiB'");
  results = tuner::tune(database, id, profile, settings, {}, nullptr);  // ... one of another environment is not
  ASSERT_EQ(results.size(), 1u);
  EXPECT_GT(results[0].measured, 0);
  EXPECT_EQ(results[0].no_plan, "");
  EXPECT_EQ(db::list_best_plans(database).size(), 1u);

  database.exec("UPDATE trials SET status = 'failed', error = 'info = 3', median_s = NULL, environment = ''");
  settings.retry_failed = true;  // --retry-failed: every failure, each once
  results = tuner::tune(database, id, profile, settings, {}, nullptr);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].measured, static_cast<int>(db::count_trials(database)));
  EXPECT_EQ(results[0].no_plan, "");
}

TEST_F(Calibrate, UnknownStrategyFailsBeforeTiming) {
  auto settings = tiny_settings();
  settings.strategy = "nope";
  EXPECT_THROW(tuner::tune(database, 1, measured_profile(), settings, {}, nullptr), InvalidArgument);
  EXPECT_EQ(db::count_trials(database), 0);
}

TEST_F(Calibrate, EverySolverAndTheBudget) {
  auto settings = tiny_settings();
  settings.sizes = {48};
  settings.solvers = {Solver::gepp, Solver::calu, Solver::prbt};
  settings.space.ib = {8, 16};
  const auto results = tuner::tune(database, id, profile, settings, {}, nullptr);
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) {
    EXPECT_EQ(r.failed, 0) << to_string(r.solver);
    EXPECT_EQ(r.best.solver, r.solver);
  }
  // A spent budget starts no new measurement: nothing is timed, nothing is lost.
  settings.sizes = {64};
  settings.budget_seconds = 1e-9;
  std::vector<std::string> lines;
  const auto none = tuner::tune(database, id, profile, settings, {}, [&](const std::string& l) { lines.push_back(l); });
  ASSERT_EQ(none.size(), 3u);  // no plan, and a rerun resumes
  for (const auto& r : none) {
    EXPECT_TRUE(r.budget_spent);
    EXPECT_NE(r.no_plan.find("budget"), std::string::npos) << r.no_plan;
  }
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.front().find("budget"), std::string::npos);
}

TEST_F(Calibrate, PrunesWhatTheModelPricesFarAboveTheBestMeasured) {
  // prune_above = 1: whatever the model prices above its price of the plan measured fastest so far
  // is not timed. The model's own plan goes first (nothing measured yet); a plan it prices lower is
  // timed, one it prices higher pruned: each of the three once.
  auto settings = tiny_settings();
  settings.sizes = {64};
  settings.prune_above = 1;
  std::vector<std::string> lines;
  const auto pruned =
      tuner::tune(database, id, profile, settings, {}, [&](const std::string& l) { lines.push_back(l); });
  ASSERT_EQ(pruned.size(), 1u);
  EXPECT_GE(pruned[0].measured, 1);
  EXPECT_GE(pruned[0].pruned, 1);
  EXPECT_EQ(pruned[0].measured + pruned[0].pruned, 3);  // nb = 8, 16, 32
  EXPECT_EQ(pruned[0].best.source, PlanSource::tuned);
  EXPECT_EQ(db::count_trials(database), pruned[0].measured);  // a pruned plan is not a trial: a later run may time it
  int said = 0;
  for (const auto& l : lines) said += l.find("not timed: the model prices it at") != std::string::npos;
  EXPECT_EQ(said, pruned[0].pruned);
  // prune_above = 0: everything is timed (the pruned ones now, the rest reused).
  settings.prune_above = 0;
  const auto timed = tuner::tune(database, id, profile, settings, {}, nullptr);
  EXPECT_EQ(timed[0].pruned, 0);
  EXPECT_EQ(timed[0].measured, pruned[0].pruned);
  EXPECT_EQ(timed[0].measured + timed[0].reused, 3);
}

// Once the budget is spent nothing more is timed or pruned: what is left is counted as left, and a
// plan stored from part of the search says the budget ran out (a rerun resumes it).
TEST_F(Calibrate, TheBudgetLeavesWhatItLeavesAndSaysSo) {
  auto settings = tiny_settings();
  settings.sizes = {64};
  settings.space.nb = {16};
  tuner::tune(database, id, profile, settings, {}, nullptr);  // one trial stored
  settings.space.nb = {8, 16, 32};
  settings.prune_above = 1;
  settings.budget_seconds = 1e-9;
  MachineProfile slow = profile;  // the model would prune everything else
  slow.dgemm_gflops_all_cores = slow.dgemm_gflops_one_core = 1e-5;
  const auto results = tuner::tune(database, id, slow, settings, {}, nullptr);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].no_plan.empty()) << results[0].no_plan;
  EXPECT_EQ(results[0].reused, 1);
  EXPECT_EQ(results[0].left_by_budget, 2);
  EXPECT_EQ(results[0].pruned, 0);
  EXPECT_TRUE(results[0].budget_spent);
}

// A size, solver or precision given twice is tuned once (100000 copies of one size in a config file
// ran a minute past a budget of 1 s); the order given is kept.
TEST_F(Calibrate, RepeatedSizesSolversAndPrecisionsAreTunedOnce) {
  auto settings = tiny_settings();
  settings.sizes = {64, 48, 64, 64, 48};
  settings.solvers = {Solver::gepp, Solver::gepp};
  settings.precisions = {Precision::double_, Precision::double_};
  settings.space.nb = {16};
  const auto results = tuner::tune(database, id, profile, settings, {}, nullptr);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].n, 64);
  EXPECT_EQ(results[1].n, 48);
}

TEST_F(Calibrate, TunedPlanIsWithinFivePercentOfTheExhaustiveBest) {
  // The figure of issue 5 on a small real grid: the stored plan against the fastest trial.
  auto settings = tiny_settings();
  settings.sizes = {300};
  settings.space.nb = {8, 16, 32, 48, 64};
  settings.timing.min_samples = 5;
  settings.timing.max_samples = 9;
  const auto results = tuner::tune(database, id, profile, settings, {}, nullptr);
  ASSERT_EQ(results.size(), 1u);
  double fastest = 1e300;
  for (const auto& t : db::list_trials(database, id, Plan{}, 300, 300, CalibrationLevel::quick, threads_of(Plan{})))
    if (t.median_s) fastest = std::min(fastest, *t.median_s);
  EXPECT_LE(results[0].median_s, fastest * 1.05);
}

TEST_F(Calibrate, TunesTheHybridTargetsCpuShareOnTheHostBackend) {
  auto settings = tiny_settings();
  settings.target = Target::hybrid;
  settings.devices = BackendKind::host;
  settings.sizes = {96};
  settings.space.nb = {16, 32};
  settings.space.cpu_share = {0, 0.5, 1};
  const auto results = tuner::tune(database, id, profile, settings, {}, nullptr);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].failed, 0);

  Plan kind;
  kind.target = Target::hybrid;
  kind.devices = BackendKind::host;
  const auto trials = db::list_trials(database, id, kind, 96, 96, CalibrationLevel::quick, threads_of(kind));
  std::set<std::pair<int, int>> tried;  // (nb, d)
  for (const auto& t : trials) {
    EXPECT_EQ(t.plan.target, Target::hybrid);
    EXPECT_EQ(t.plan.devices, BackendKind::host);
    tried.insert({t.plan.nb, t.plan.cpu_block_columns});
  }
  // Every share at each nb: N = 6 and 3 block columns, d = 0 (all on the device), half, all.
  for (auto point : {std::pair{16, 0}, {16, 3}, {16, 6}, {32, 0}, {32, 2}, {32, 3}})
    EXPECT_TRUE(tried.count(point)) << "nb " << point.first << " d " << point.second;
  EXPECT_TRUE(db::list_trials(database, id, Plan{}, 96, 96, CalibrationLevel::quick, threads_of(Plan{}))
                  .empty());  // no CPU trial

  const auto found = db::lookup_best_plan(database, id, kind, 96, 96, CalibrationLevel::quick, threads_of(kind));
  ASSERT_TRUE(found.best);
  EXPECT_EQ(found.best->plan.target, Target::hybrid);
  EXPECT_EQ(found.best->plan.cpu_block_columns, results[0].best.cpu_block_columns);
  kind.devices = BackendKind::cuda;  // tuned on the host backend: says nothing about a GPU
  EXPECT_FALSE(db::lookup_best_plan(database, id, kind, 96, 96, CalibrationLevel::quick, threads_of(kind)).best);
}

TEST_F(Calibrate, TunesMixedPrecisionAndStoresTheRefinementStepsItTook) {
  // --precision mixed is a plan value like the others (#15.2): its trials time the whole mixed solve,
  // its best plans are stored under precision mixed, and the steps it took go to the model.
  auto settings = tiny_settings();
  settings.sizes = {96};
  settings.solvers = {Solver::gepp, Solver::prbt};
  settings.precisions = {Precision::double_, Precision::mixed};
  MachineProfile probed = profile;  // as calibrate stores the probes before it tunes
  probed.measurements = {{"dgemm_all_cores", 50, 0.01, "GFlop/s", "n=1024"}};
  db::store_probe_results(database, id, probed);
  std::vector<std::string> lines;
  const auto results =
      tuner::tune(database, id, profile, settings, {}, [&](const std::string& l) { lines.push_back(l); });
  ASSERT_EQ(results.size(), 4u);
  for (const auto& r : results) {
    EXPECT_TRUE(r.no_plan.empty()) << r.no_plan;
    EXPECT_EQ(r.failed, 0) << to_string(r.solver) << " " << to_string(r.precision);
    EXPECT_EQ(r.best.precision, r.precision);
    EXPECT_GT(r.median_s, 0);
  }
  EXPECT_EQ(results[1].precision, Precision::mixed);
  for (Solver solver : {Solver::gepp, Solver::prbt}) {
    Plan kind;
    kind.solver = solver;
    kind.precision = Precision::mixed;
    const auto found = db::lookup_best_plan(database, id, kind, 96, 96, CalibrationLevel::quick, threads_of(kind));
    ASSERT_TRUE(found.best) << to_string(solver);
    EXPECT_EQ(found.best->plan.precision, Precision::mixed);
    for (const auto& t : db::list_trials(database, id, kind, 96, 96, CalibrationLevel::quick, threads_of(kind)))
      EXPECT_EQ(t.plan.precision, Precision::mixed);
  }
  MachineProfile loaded = profile;
  ASSERT_TRUE(db::load_probe_rates(database, id, loaded));
  ASSERT_EQ(loaded.mixed_refinement_steps.size(), 2u);
  for (const auto& steps : loaded.mixed_refinement_steps) {
    EXPECT_EQ(steps.n, 96);
    EXPECT_GE(steps.steps, 1) << to_string(steps.solver);   // refinement to double's accuracy takes steps
    EXPECT_LE(steps.steps, 30) << to_string(steps.solver);  // and converged: no fall-back
  }
  int said = 0;
  for (const auto& l : lines) said += l.find("refinement step(s)") != std::string::npos;
  EXPECT_EQ(said, 2);
}

TEST_F(Calibrate, MixedPrbtOnTheHybridTargetIsTunedAsGeppIs) {
  auto settings = tiny_settings();
  settings.target = Target::hybrid;
  settings.devices = BackendKind::host;
  settings.sizes = {64};
  settings.solvers = {Solver::prbt, Solver::gepp};
  settings.precisions = {Precision::mixed};
  settings.space.cpu_share = {0.5};
  const auto results = tuner::tune(database, id, profile, settings, {}, nullptr);
  ASSERT_EQ(results.size(), 2u);
  for (const auto& result : results) {  // PRBT's mixed path runs there too (mixed_device.hpp)
    EXPECT_TRUE(result.no_plan.empty()) << result.no_plan;
    EXPECT_GT(result.measured, 0);
    EXPECT_EQ(result.best.precision, Precision::mixed);
    EXPECT_EQ(result.best.target, Target::hybrid);
  }
  EXPECT_EQ(results[0].best.solver, Solver::prbt);
}

// A size beyond this machine's memory among others (a config file's sizes: 40, 200000, 96) ended the
// whole calibration with bad_alloc before the last was tuned. It is now no plan, said with its bytes.
TEST_F(Calibrate, ASizeBeyondMemoryIsNoPlanAndTheOthersAreTuned) {
  const auto available = probes::available_memory_bytes();
  if (available == 0) GTEST_SKIP() << "the memory available is unknown here";
  // Twice the order whose trial would fill what is available now, within int.
  const double order = std::min(2 * std::sqrt(double(available) / tuner::trial_bytes(1)), 2e9);
  auto settings = tiny_settings();
  settings.sizes = {40, static_cast<int>(order), 96};
  settings.space.nb = {16};
  const auto results = tuner::tune(database, id, profile, settings, {}, {}, {});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].no_plan.empty());
  EXPECT_NE(results[1].no_plan.find("of memory, but only"), std::string::npos) << results[1].no_plan;
  EXPECT_TRUE(results[2].no_plan.empty());
  EXPECT_EQ(db::list_best_plans(database).size(), 2u);
}
