#include <gtest/gtest.h>

#include <algorithm>

#include "../common/temp_dir.hpp"
#include "db/exchange.hpp"
#include "db/records.hpp"

using namespace hetlu;
using db::Database;

namespace {
MachineProfile profile(const std::string& cpu = "Test CPU") {
  MachineProfile p;
  p.cpu_model = cpu;
  p.cores = 8;
  p.packages = 1;
  p.hardware_threads = 16;
  p.numa_nodes = 1;
  p.blas_library = "OpenBLAS 0.3.21";
  p.hostname = "host-a";
  return p;
}

Plan kind(Solver solver, Precision precision, Target target, BackendKind backend = BackendKind::host) {
  Plan p;
  p.solver = solver;
  p.precision = precision;
  p.target = target;
  p.devices = backend;
  return p;
}

db::Trial trial(std::int64_t machine, int n, int nb, double seconds, CalibrationLevel level = CalibrationLevel::quick) {
  db::Trial t;
  t.machine_id = machine;
  t.level = level;
  t.m = t.n = n;
  t.cpu_threads = 2;
  t.plan.nb = nb;
  t.repetitions = 3;
  t.median_s = seconds;
  t.min_s = seconds * 0.99;
  t.spread = 0.01;
  t.gflops = 1.0 / seconds;
  t.predicted_s = seconds * 1.1;
  t.samples = {seconds, seconds * 0.99, seconds * 1.01};
  return t;
}

db::BestPlan best(std::int64_t machine, int n, int nb, CalibrationLevel level = CalibrationLevel::quick,
                  int cpu_threads = 2) {
  db::BestPlan b;
  b.machine_id = machine;
  b.m = b.n = n;
  b.cpu_threads = cpu_threads;
  b.plan.nb = nb;
  b.level = level;
  b.median_s = 0.5;
  b.gflops = 10;
  return b;
}
// A database holding this machine (profile()), whose probe runs a test stores one at a time.
struct ProbedMachine {
  test_support::TempDir dir;
  Database database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  db::Fingerprint fp = db::fingerprint(profile());
  std::int64_t id = db::ensure_machine(database, fp);
  void store_run(std::vector<ProbeMeasurement> measurements) {
    MachineProfile measured = profile();
    measured.rates_measured = true;
    measured.measurements = std::move(measurements);
    db::store_probe_results(database, id, measured);
  }
};
}  // namespace

TEST(Fingerprint, HardKeyDecidesSoftDoesNot) {
  auto a = profile(), b = profile();
  b.hostname = "host-b";
  EXPECT_EQ(db::fingerprint(a).hash, db::fingerprint(b).hash);
  EXPECT_NE(db::fingerprint(a).soft_attributes, db::fingerprint(b).soft_attributes);
  b = profile();
  b.cores = 4;
  EXPECT_NE(db::fingerprint(a).hash, db::fingerprint(b).hash);
  b = profile();
  GpuInfo h100;
  h100.name = "NVIDIA H100";
  h100.compute_capability_major = 9;
  h100.multiprocessors = 132;
  h100.memory_bytes = 80LL << 30;
  b.gpus.push_back(h100);
  EXPECT_NE(db::fingerprint(a).hash, db::fingerprint(b).hash);
  EXPECT_EQ(db::fingerprint(a).hash.size(), 16u);
}

TEST(Machines, EnsureIsIdempotent) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  const auto fp = db::fingerprint(profile());
  const auto id = db::ensure_machine(database, fp);
  EXPECT_EQ(db::ensure_machine(database, fp), id);
  EXPECT_EQ(db::list_machines(database).size(), 1u);
  ASSERT_TRUE(db::find_machine(database, fp.hash));
  EXPECT_EQ(db::find_machine(database, fp.hash)->id, id);
  EXPECT_FALSE(db::find_machine(database, "0000000000000000"));
}

TEST(ProbeResults, TheNewestRunIsLoadedWithItsSpreads) {
  ProbedMachine machine;
  auto& database = machine.database;
  const auto id = machine.id;
  std::vector<ProbeMeasurement> run = {{"dgemm_one_core", 10, 0.01, "GFlop/s", "n=256 threads=1"},
                                       {"dgemm_all_cores", 60, 0.02, "GFlop/s", "n=256 threads=8"},
                                       {"dgemm_all_cores", 70, 0.03, "GFlop/s", "n=512 threads=8"},  // the plateau
                                       {"triad_bandwidth", 20, 0.05, "GB/s", "doubles=1000"},
                                       {"panel_gepp", 5, 0.1, "GFlop/s", "rows=4096 width=128 threads=1"}};
  machine.store_run(run);
  run[2].median = 75;  // a later run
  run.pop_back();
  machine.store_run(run);

  MachineProfile loaded = profile();
  ASSERT_TRUE(db::load_probe_rates(database, id, loaded));
  EXPECT_TRUE(loaded.rates_measured);
  EXPECT_DOUBLE_EQ(loaded.dgemm_gflops_one_core, 10);
  EXPECT_DOUBLE_EQ(loaded.dgemm_gflops_all_cores, 75);
  EXPECT_EQ(loaded.dgemm_probe_size, 512);
  EXPECT_DOUBLE_EQ(loaded.memory_bandwidth_gbs, 20);
  EXPECT_TRUE(loaded.panel_rates.empty());  // only in the older run
  ASSERT_EQ(loaded.measurements.size(), 4u);
  EXPECT_DOUBLE_EQ(loaded.measurements[3].spread, 0.05);

  MachineProfile nothing = profile();
  EXPECT_FALSE(db::load_probe_rates(database, id + 1, nothing));
}

TEST(ProbeResults, PanelRatesRoundTrip) {
  ProbedMachine machine;
  auto& database = machine.database;
  const auto id = machine.id;
  machine.store_run({{"panel_tslu", 7.5, 0.1, "GFlop/s", "rows=4096 width=64 threads=8"}});
  MachineProfile loaded = profile();
  ASSERT_TRUE(db::load_probe_rates(database, id, loaded));
  ASSERT_EQ(loaded.panel_rates.size(), 1u);
  EXPECT_EQ(loaded.panel_rates[0].kind, "tslu");
  EXPECT_EQ(loaded.panel_rates[0].rows, 4096);
  EXPECT_EQ(loaded.panel_rates[0].width, 64);
  EXPECT_EQ(loaded.panel_rates[0].threads, 8);
  EXPECT_DOUBLE_EQ(loaded.panel_rates[0].gflops, 7.5);
}

// The GPU's probes, the staged copies, single precision's LU and TF32's GEMM among them, come
// back onto the GPU they were taken on.
TEST(ProbeResults, TheGpusStagedCopiesRoundTrip) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  MachineProfile with_gpu = profile();
  with_gpu.gpus.push_back(GpuInfo{});
  with_gpu.gpus.back().name = "NVIDIA H100 80GB HBM3";
  const auto id = db::ensure_machine(database, db::fingerprint(with_gpu));
  MachineProfile measured = with_gpu;
  measured.rates_measured = true;
  measured.measurements = {{"gpu_h2d_bandwidth", 55.1, 0.01, "GB/s", "gpu=0"},
                           {"gpu_staged_upload", 31.5, 0.02, "GB/s", "gpu=0 n=8192"},
                           {"gpu_staged_download", 27.25, 0.03, "GB/s", "gpu=0 n=8192"},
                           {"gpu_dgetrf", 9318, 0.01, "GFlop/s", "gpu=0 n=8192"},
                           {"gpu_sgetrf", 12500, 0.01, "GFlop/s", "gpu=0 n=8192"},
                           {"gpu_tf32_gemm", 250000, 0.02, "GFlop/s", "gpu=0 n=8192"}};
  db::store_probe_results(database, id, measured);
  MachineProfile loaded = with_gpu;
  ASSERT_TRUE(db::load_probe_rates(database, id, loaded));
  ASSERT_EQ(loaded.gpus.size(), 1u);
  EXPECT_DOUBLE_EQ(loaded.gpus[0].h2d_bandwidth_gbs, 55.1);
  EXPECT_DOUBLE_EQ(loaded.gpus[0].staged_upload_gbs, 31.5);
  EXPECT_DOUBLE_EQ(loaded.gpus[0].staged_download_gbs, 27.25);
  EXPECT_DOUBLE_EQ(loaded.gpus[0].dgetrf_gflops, 9318);
  EXPECT_DOUBLE_EQ(loaded.gpus[0].sgetrf_gflops, 12500);
  EXPECT_DOUBLE_EQ(loaded.gpus[0].tf32_gemm_gflops, 250000);
}

TEST(ProbeResults, TsluLeavesAndPassCostsRoundTrip) {
  ProbedMachine machine;
  auto& database = machine.database;
  const auto id = machine.id;
  machine.store_run({{"panel_tslu_leaf", 4.5, 0.1, "GFlop/s", "rows=1024 width=32 threads=2"},
                     {"pass_randomize", 0.5, 0.02, "Gentries/s", "n=1024"},
                     {"pass_transposed_solve", 4, 0.02, "Gentries/s", "n=4096"}});
  MachineProfile loaded = profile();
  ASSERT_TRUE(db::load_probe_rates(database, id, loaded));
  ASSERT_EQ(loaded.panel_rates.size(), 1u);
  EXPECT_EQ(loaded.panel_rates[0].kind, "tslu_leaf");
  EXPECT_EQ(loaded.panel_rates[0].width, 32);
  ASSERT_EQ(loaded.pass_costs.size(), 2u);
  EXPECT_EQ(loaded.pass_costs[0].kind, "randomize");
  EXPECT_EQ(loaded.pass_costs[0].n, 1024);
  EXPECT_DOUBLE_EQ(loaded.pass_costs[0].ns_per_entry, 2);  // 0.5 giga-entries per second
  EXPECT_EQ(loaded.pass_costs[1].kind, "transposed_solve");
  EXPECT_DOUBLE_EQ(loaded.pass_costs[1].ns_per_entry, 0.25);
}

TEST(ProbeResults, MixedRefinementStepsRoundTripWithTheNewestRun) {
  ProbedMachine machine;
  auto& database = machine.database;
  const auto id = machine.id;
  machine.store_run({{"pass_randomize", 0.5, 0.02, "Gentries/s", "n=1024"}});
  db::store_refinement_steps(database, id, Solver::prbt, 4000, 13);
  db::store_refinement_steps(database, id, Solver::gepp, 2000, 2);
  // A row another version or a damaged file wrote is skipped, not fatal.
  database
      .prepare(
          "INSERT INTO probe_results (machine_id, name, value, unit, detail, spread, run) VALUES (?1, "
          "'mixed_refinement_steps', 5, 'steps', 'solver=quux n=100', 0, 1)")
      .bind(1, id)
      .run();
  MachineProfile loaded = profile();
  ASSERT_TRUE(db::load_probe_rates(database, id, loaded));
  ASSERT_EQ(loaded.mixed_refinement_steps.size(), 2u);  // ordered by solver, then order
  EXPECT_EQ(loaded.mixed_refinement_steps[0].solver, Solver::gepp);
  EXPECT_EQ(loaded.mixed_refinement_steps[0].n, 2000);
  EXPECT_EQ(loaded.mixed_refinement_steps[0].steps, 2);
  EXPECT_EQ(loaded.mixed_refinement_steps[1].solver, Solver::prbt);
  EXPECT_EQ(loaded.mixed_refinement_steps[1].steps, 13);
  // Later calibrations of double alone (new probe runs, more than are kept) keep them; measured
  // again, the newest replaces the old (one row per solver and order).
  for (int run = 0; run < 8; ++run) machine.store_run({{"pass_randomize", 0.5, 0.02, "Gentries/s", "n=1024"}});
  db::store_refinement_steps(database, id, Solver::prbt, 4000, 15);
  MachineProfile reloaded = profile();
  ASSERT_TRUE(db::load_probe_rates(database, id, reloaded));
  ASSERT_EQ(reloaded.mixed_refinement_steps.size(), 2u);
  EXPECT_EQ(reloaded.mixed_refinement_steps[1].steps, 15);
  auto rows = database.prepare("SELECT count(*) FROM probe_results WHERE name = 'mixed_refinement_steps'");
  ASSERT_TRUE(rows.step());
  EXPECT_EQ(rows.column_int(0), 3);  // gepp 2000, prbt 4000 and the damaged row
}

TEST(Trials, RoundTripIncludingFailures) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  const auto id = db::ensure_machine(database, db::fingerprint(profile()));
  const auto ok = trial(id, 100, 32, 0.25);
  db::insert_trial(database, ok);
  auto failed = trial(id, 100, 64, 0);
  failed.status = db::TrialStatus::failed;
  failed.error = "out of memory";
  failed.median_s = failed.min_s = failed.spread = failed.gflops = failed.predicted_s = std::nullopt;
  failed.samples.clear();
  db::insert_trial(database, failed);

  auto found = db::find_trial(database, ok);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->status, db::TrialStatus::ok);
  EXPECT_DOUBLE_EQ(*found->median_s, 0.25);
  EXPECT_EQ(found->samples, ok.samples);
  EXPECT_EQ(found->plan.solver, Solver::gepp);

  found = db::find_trial(database, failed);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->status, db::TrialStatus::failed);
  EXPECT_EQ(found->error, "out of memory");
  EXPECT_FALSE(found->median_s);
  // A driver's message holding ESC or CR is stored as shown: db check would call hetlu's own row NOT ok.
  failed.error = "device said \x1b[31mno\r";
  db::store_trial(database, failed);
  EXPECT_EQ(db::find_trial(database, failed)->error, "device said \\x1B[31mno\\x0D");
  EXPECT_TRUE(db::check(database).problems.empty());

  EXPECT_FALSE(db::find_trial(database, trial(id, 100, 128, 1)));
  EXPECT_FALSE(db::find_trial(database, trial(id, 100, 32, 1, CalibrationLevel::measure)));  // other level
  EXPECT_EQ(db::list_trials(database, id, Plan{}, 100, 100, CalibrationLevel::quick, 2).size(), 2u);
  EXPECT_EQ(db::count_trials(database), 2);
  EXPECT_THROW(db::insert_trial(database, ok), db::DatabaseError);  // the same configuration twice
}

TEST(Trials, StoreKeepsTheFirstSuccessAndReplacesAFailure) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  const auto id = db::ensure_machine(database, db::fingerprint(profile()));
  // Two processes measured the same configuration: the second store returns the first success.
  const auto first = db::store_trial(database, trial(id, 100, 32, 0.25));
  const auto second = db::store_trial(database, trial(id, 100, 32, 0.5));
  EXPECT_EQ(second.id, first.id);
  EXPECT_DOUBLE_EQ(*second.median_s, 0.25);
  EXPECT_EQ(db::count_trials(database), 1);

  // A failure the environment caused says which environment; a later success replaces it in place.
  auto failed = trial(id, 100, 64, 0);
  failed.status = db::TrialStatus::failed;
  failed.error = "host backend: out of memory";
  failed.environment = "host backend: 1 threads, memory limit 1.0 MiB";
  failed.median_s = failed.min_s = failed.spread = failed.gflops = failed.predicted_s = std::nullopt;
  failed.samples.clear();
  const auto stored_failure = db::store_trial(database, failed);
  EXPECT_EQ(stored_failure.status, db::TrialStatus::failed);
  EXPECT_EQ(stored_failure.environment, failed.environment);
  const auto success = db::store_trial(database, trial(id, 100, 64, 0.125));
  EXPECT_EQ(success.id, stored_failure.id);
  EXPECT_EQ(success.status, db::TrialStatus::ok);
  EXPECT_EQ(success.error, "");
  EXPECT_EQ(success.environment, "");
  EXPECT_DOUBLE_EQ(*success.median_s, 0.125);
  // ... and a success is never replaced by a failure.
  EXPECT_EQ(db::store_trial(database, failed).status, db::TrialStatus::ok);
  EXPECT_EQ(db::count_trials(database), 2);

  // A damaged row (a NULL, text or negative time, a sample of text: a hand edit or a broken file)
  // is not seen as a measurement, and the next measurement replaces it. The tuner had read an
  // empty optional and stored the garbage as the best plan, with exit 0.
  for (const char* damage :
       {"median_s = NULL", "median_s = 'abc'", "median_s = -1", "samples = '[\"x\"]'", "samples = 'not json'",
        // A sample beyond double's range: SQLite reads it as infinity, the JSON reader refuses it, and
        // every calibration stopped on it (a hostile test's finding).
        "samples = '[1e999]'", "samples = '[0.5, -1e400]'"}) {
    database.exec(std::string("UPDATE trials SET ") + damage + " WHERE nb = 32");
    EXPECT_EQ(db::check(database).problems.size(), 1u) << damage;
    EXPECT_FALSE(db::find_trial(database, trial(id, 100, 32, 1))) << damage;
    EXPECT_EQ(db::list_trials(database, id, Plan{}, 100, 100, CalibrationLevel::quick, 2).size(), 1u) << damage;
    const auto remeasured = db::store_trial(database, trial(id, 100, 32, 0.375));
    EXPECT_DOUBLE_EQ(remeasured.median_s.value_or(0), 0.375) << damage;
    EXPECT_EQ(remeasured.id, first.id) << damage;
  }
}

TEST(BestPlans, LookupExactNearestAndMiss) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  const auto id = db::ensure_machine(database, db::fingerprint(profile()));
  db::upsert_best_plan(database, best(id, 1000, 96));
  db::upsert_best_plan(database, best(id, 4000, 256));
  db::upsert_best_plan(database, best(id, 4000, 192));  // replaces the row for 4000

  auto exact = db::lookup_best_plan(database, id, kind(Solver::gepp, Precision::double_, Target::cpu), 1000, 1000,
                                    CalibrationLevel::quick, 2);
  ASSERT_TRUE(exact.best);
  EXPECT_TRUE(exact.exact);
  EXPECT_EQ(exact.best->plan.nb, 96);
  EXPECT_EQ(exact.best->plan.source, PlanSource::tuned);

  auto nearest = db::lookup_best_plan(database, id, kind(Solver::gepp, Precision::double_, Target::cpu), 6000, 6000,
                                      CalibrationLevel::quick, 2);
  ASSERT_TRUE(nearest.best);
  EXPECT_FALSE(nearest.exact);
  EXPECT_EQ(nearest.best->plan.nb, 192);
  EXPECT_NE(nearest.detail.find("nearest"), std::string::npos);

  // Between 1000 (nb 96) and 4000 (nb 192), n = 2000 is half-way in log n: nb = sqrt(96 * 192).
  auto between = db::lookup_best_plan(database, id, kind(Solver::gepp, Precision::double_, Target::cpu), 2000, 2000,
                                      CalibrationLevel::quick, 2);
  ASSERT_TRUE(between.best);
  EXPECT_EQ(between.best->plan.nb, 136);
  EXPECT_NE(between.detail.find("interpolated"), std::string::npos) << between.detail;

  auto far = db::lookup_best_plan(database, id, kind(Solver::gepp, Precision::double_, Target::cpu), 20000, 20000,
                                  CalibrationLevel::quick, 2);
  EXPECT_FALSE(far.best);
  auto other_solver = db::lookup_best_plan(database, id, kind(Solver::calu, Precision::double_, Target::cpu), 1000,
                                           1000, CalibrationLevel::quick, 2);
  EXPECT_FALSE(other_solver.best);
  auto single = db::lookup_best_plan(database, id, kind(Solver::gepp, Precision::single, Target::cpu), 1000, 1000,
                                     CalibrationLevel::quick, 2);
  EXPECT_FALSE(single.best);
  EXPECT_EQ(db::list_best_plans(database).size(), 2u);
}

// A plan answers solves on the threads its trials ran on; rows from before schema 6 (0: not
// recorded) answer where no row of their kind recorded these threads, as they did before.
TEST(BestPlans, AnswerTheThreadsTheyWereTunedOn) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  const auto id = db::ensure_machine(database, db::fingerprint(profile()));
  const Plan gepp = kind(Solver::gepp, Precision::double_, Target::cpu);
  db::upsert_best_plan(database, best(id, 1000, 96, CalibrationLevel::quick, 2));
  auto on_one = db::lookup_best_plan(database, id, gepp, 1000, 1000, CalibrationLevel::quick, 1);
  EXPECT_FALSE(on_one.best);
  EXPECT_NE(on_one.detail.find("on 1 CPU thread for"), std::string::npos) << on_one.detail;
  EXPECT_NE(on_one.detail.find("tuned on 2 only"), std::string::npos) << on_one.detail;
  // A plan on one thread is kept beside the plan on two, never replacing it.
  db::upsert_best_plan(database, best(id, 1000, 160, CalibrationLevel::quick, 1));
  EXPECT_EQ(db::list_best_plans(database).size(), 2u);
  on_one = db::lookup_best_plan(database, id, gepp, 1000, 1000, CalibrationLevel::quick, 1);
  ASSERT_TRUE(on_one.best);
  EXPECT_EQ(on_one.best->plan.nb, 160);
  EXPECT_EQ(on_one.best->cpu_threads, 1);
  EXPECT_NE(on_one.detail.find("on 1 CPU thread)"), std::string::npos) << on_one.detail;
  const auto on_two = db::lookup_best_plan(database, id, gepp, 1000, 1000, CalibrationLevel::quick, 2);
  ASSERT_TRUE(on_two.best);
  EXPECT_EQ(on_two.best->plan.nb, 96);
  EXPECT_NE(on_two.detail.find("on 2 CPU threads)"), std::string::npos) << on_two.detail;
  // Interpolated between sizes on the same threads only.
  db::upsert_best_plan(database, best(id, 4000, 192, CalibrationLevel::quick, 2));
  const auto between = db::lookup_best_plan(database, id, gepp, 2000, 2000, CalibrationLevel::quick, 1);
  ASSERT_TRUE(between.best);
  EXPECT_EQ(between.best->plan.nb, 160) << between.detail;  // the one-thread row at 1000, the nearest
  // A row that recorded no threads answers any count none of its kind recorded.
  EXPECT_FALSE(db::lookup_best_plan(database, id, gepp, 1000, 1000, CalibrationLevel::quick, 3).best);
  db::upsert_best_plan(database, best(id, 1000, 64, CalibrationLevel::quick, 0));
  const auto legacy = db::lookup_best_plan(database, id, gepp, 1000, 1000, CalibrationLevel::quick, 3);
  ASSERT_TRUE(legacy.best);
  EXPECT_EQ(legacy.best->plan.nb, 64);
  EXPECT_NE(legacy.detail.find("not recorded"), std::string::npos) << legacy.detail;
  EXPECT_EQ(db::lookup_best_plan(database, id, gepp, 1000, 1000, CalibrationLevel::quick, 2).best->plan.nb, 96);
  // ... and where the rows of these threads are of other sizes only (a calibration on them at one
  // size had turned every older plan of the kind off), or invalid.
  db::upsert_best_plan(database, best(id, 16000, 384, CalibrationLevel::quick, 3));
  EXPECT_EQ(db::lookup_best_plan(database, id, gepp, 1000, 1000, CalibrationLevel::quick, 3).best->plan.nb, 64);
  EXPECT_EQ(db::lookup_best_plan(database, id, gepp, 16000, 16000, CalibrationLevel::quick, 3).best->plan.nb, 384);
  db::upsert_best_plan(database, best(id, 1000, 512, CalibrationLevel::quick, 4));
  database.exec("UPDATE best_plans SET median_s = -1 WHERE cpu_threads = 4");
  const auto past_invalid = db::lookup_best_plan(database, id, gepp, 1000, 1000, CalibrationLevel::quick, 4);
  ASSERT_TRUE(past_invalid.best);
  EXPECT_EQ(past_invalid.best->plan.nb, 64);
  EXPECT_EQ(past_invalid.invalid_rows.size(), 1u);
  database.exec("DELETE FROM best_plans WHERE cpu_threads IN (3, 4)");
  // A damaged count is named with its row, as the other fields are.
  database.exec("UPDATE best_plans SET cpu_threads = -1 WHERE nb = 160");
  const auto problems = db::invalid_best_plans(database);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("cpu_threads"), std::string::npos) << problems[0];
  const auto checked = db::check(database).problems;
  ASSERT_FALSE(checked.empty());
  EXPECT_NE(checked[0].find("cpu_threads"), std::string::npos) << checked[0];
}

// Trials are kept per thread count: a calibration on one thread measures again what one on two
// measured, rather than reusing its times.
TEST(Trials, AreKeyedByTheirThreads) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  const auto id = db::ensure_machine(database, db::fingerprint(profile()));
  db::store_trial(database, trial(id, 100, 32, 0.25));
  auto on_one = trial(id, 100, 32, 0.5);
  on_one.cpu_threads = 1;
  EXPECT_FALSE(db::find_trial(database, on_one));
  EXPECT_DOUBLE_EQ(db::store_trial(database, on_one).median_s.value_or(0), 0.5);
  EXPECT_EQ(db::count_trials(database), 2);
  EXPECT_EQ(db::list_trials(database, id, Plan{}, 100, 100, CalibrationLevel::quick, 1).size(), 1u);
  EXPECT_EQ(db::find_trial(database, trial(id, 100, 32, 9))->median_s.value_or(0), 0.25);
}

TEST(BestPlans, LowerLevelRowsDoNotAnswerHigherQueries) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  const auto id = db::ensure_machine(database, db::fingerprint(profile()));
  db::upsert_best_plan(database, best(id, 1000, 96, CalibrationLevel::quick));
  EXPECT_FALSE(db::lookup_best_plan(database, id, kind(Solver::gepp, Precision::double_, Target::cpu), 1000, 1000,
                                    CalibrationLevel::measure, 2)
                   .best);
  EXPECT_TRUE(db::lookup_best_plan(database, id, kind(Solver::gepp, Precision::double_, Target::cpu), 1000, 1000,
                                   CalibrationLevel::estimate, 2)
                  .best);
}

TEST(BestPlans, ALowerLevelDoesNotReplaceAHigherOne) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  const auto id = db::ensure_machine(database, db::fingerprint(profile()));
  db::upsert_best_plan(database, best(id, 1000, 96, CalibrationLevel::measure));
  db::upsert_best_plan(database, best(id, 1000, 32, CalibrationLevel::quick));
  auto rows = db::list_best_plans(database);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].plan.nb, 96);
  EXPECT_EQ(rows[0].level, CalibrationLevel::measure);
  db::upsert_best_plan(database, best(id, 1000, 128, CalibrationLevel::measure));  // same level: replaced
  EXPECT_EQ(db::list_best_plans(database)[0].plan.nb, 128);
}

TEST(Maintenance, CheckAndForget) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  const auto fp_a = db::fingerprint(profile("CPU A")), fp_b = db::fingerprint(profile("CPU B"));
  const auto a = db::ensure_machine(database, fp_a), b = db::ensure_machine(database, fp_b);
  for (auto id : {a, b}) {
    db::insert_trial(database, trial(id, 100, 32, 0.5));
    db::upsert_best_plan(database, best(id, 100, 32));
  }
  auto report = db::check(database);
  EXPECT_TRUE(report.problems.empty());
  EXPECT_EQ(report.schema_version, db::schema_version);
  EXPECT_EQ(report.machines, 2);
  EXPECT_EQ(report.trials, 2);

  EXPECT_EQ(db::forget_machine(database, fp_a.hash), 3);  // one trial, one best plan, the machine
  EXPECT_EQ(db::forget_machine(database, "0000000000000000"), 0);
  report = db::check(database);
  EXPECT_TRUE(report.problems.empty());
  EXPECT_EQ(report.machines, 1);
  EXPECT_EQ(report.trials, 1);
  EXPECT_EQ(report.best_plans, 1);
  EXPECT_FALSE(db::find_machine(database, fp_a.hash));
  EXPECT_TRUE(db::find_machine(database, fp_b.hash));
  // An infinite rate (1e999 in SQL) is out of range: it exported as JSON null, which no import took.
  database.exec("UPDATE best_plans SET gflops = 1e999");
  report = db::check(database);
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_NE(report.problems[0].find("best_plans row"), std::string::npos) << report.problems[0];
  database.exec("UPDATE best_plans SET gflops = 6; UPDATE trials SET median_s = 1e999");
  EXPECT_EQ(db::check(database).problems.size(), 1u);
}

TEST(BestPlans, HybridPlansAreKeptApartByBackend) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  const auto id = db::ensure_machine(database, db::fingerprint(profile()));
  for (BackendKind backend : {BackendKind::host, BackendKind::cuda}) {
    db::Trial t = trial(id, 1000, 128, backend == BackendKind::host ? 0.5 : 0.1);
    t.plan.target = Target::hybrid;
    t.plan.devices = backend;
    t.plan.cpu_block_columns = backend == BackendKind::host ? 4 : 1;
    const auto trial_id = db::insert_trial(database, t);  // same parameters, other backend: a new row
    db::BestPlan b = best(id, 1000, 128);
    b.plan = t.plan;
    b.trial_id = trial_id;
    db::upsert_best_plan(database, b);
  }
  EXPECT_EQ(db::list_best_plans(database).size(), 2u);
  for (BackendKind backend : {BackendKind::host, BackendKind::cuda}) {
    const auto found =
        db::lookup_best_plan(database, id, kind(Solver::gepp, Precision::double_, Target::hybrid, backend), 1000, 1000,
                             CalibrationLevel::quick, 2);
    ASSERT_TRUE(found.best);
    EXPECT_EQ(found.best->plan.devices, backend);
    EXPECT_EQ(found.best->plan.cpu_block_columns, backend == BackendKind::host ? 4 : 1);
    db::Trial key = trial(id, 1000, 128, 0);
    key.plan = found.best->plan;
    const auto stored = db::find_trial(database, key);
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->plan.devices, backend);
    EXPECT_EQ(db::list_trials(database, id, key.plan, 1000, 1000, CalibrationLevel::quick, 2).size(), 1u);
  }
  // The CPU target sees neither.
  EXPECT_FALSE(db::lookup_best_plan(database, id, kind(Solver::gepp, Precision::double_, Target::cpu), 1000, 1000,
                                    CalibrationLevel::quick, 2)
                   .best);
}

TEST(Exchange, ExportImportIsAFaithfulRoundTrip) {
  test_support::TempDir dir;
  auto source = Database::open(dir.file("a.db"), Database::Mode::read_write);
  const auto fp = db::fingerprint(profile());
  const auto id = db::ensure_machine(source, fp);
  source.exec("UPDATE machines SET first_seen = '2026-01-02 03:04:05', last_seen = '2026-02-03 04:05:06'");
  MachineProfile measured = profile();
  measured.rates_measured = true;
  measured.measurements = {{"dgemm_all_cores", 100, 0.01, "GFlop/s", "n=1024"}};
  db::store_probe_results(source, id, measured);  // run 1
  measured.measurements[0].median = 90;
  db::store_probe_results(source, id, measured);  // run 2: the model reads this one alone
  db::BestPlan b = best(id, 100, 32);
  b.trial_id = db::insert_trial(source, trial(id, 100, 32, 0.5));
  db::insert_trial(source, trial(id, 100, 64, 0.7));
  db::upsert_best_plan(source, b);
  const auto exported = db::export_json(source);

  auto target = Database::open(dir.file("b.db"), Database::Mode::read_write);
  auto report = db::import_json(target, exported, fp.hash, false);
  EXPECT_EQ(report.probe_results, 2);
  EXPECT_EQ(report.trials, 2);
  EXPECT_EQ(report.best_plans, 1);
  // Two runs stay two runs: the model reads the newest, 90, not a mix.
  auto runs = target.prepare("SELECT count(DISTINCT run) FROM probe_results");
  runs.step();
  EXPECT_EQ(runs.column_int(0), 2);
  MachineProfile loaded = profile();
  ASSERT_TRUE(db::load_probe_rates(target, 1, loaded));
  EXPECT_DOUBLE_EQ(loaded.dgemm_gflops_all_cores, 90);
  // The best plan points at its trial again; the machine keeps its history.
  const auto plans = db::list_best_plans(target);
  ASSERT_EQ(plans.size(), 1u);
  auto linked = target.prepare("SELECT nb FROM trials WHERE id = ?1");
  linked.bind(1, plans[0].trial_id);
  ASSERT_TRUE(linked.step()) << "trial_id " << plans[0].trial_id;
  EXPECT_EQ(linked.column_int(0), 32);
  const auto machine = db::find_machine(target, fp.hash);
  ASSERT_TRUE(machine);
  EXPECT_EQ(machine->first_seen, "2026-01-02 03:04:05");
  EXPECT_EQ(machine->last_seen, "2026-02-03 04:05:06");  // a new machine's history as the file has it
  EXPECT_EQ(report.machines, 1);
  // The same file twice adds nothing, probe rows and the machine included.
  report = db::import_json(target, exported, fp.hash, false);
  EXPECT_EQ(report.probe_results + report.trials + report.best_plans + report.machines, 0);
  EXPECT_EQ(report.skipped, 5);
  EXPECT_EQ(db::export_json(target)["machines"][0]["probe_results"].size(), 2u);

  // Rows compared on the columns the file gives: without measured_at (whose default is the time of
  // the import) the same rows twice are still the same rows.
  auto without_time = exported;
  for (auto& row : without_time["machines"][0]["probe_results"]) row.erase("measured_at");
  auto fresh = Database::open(dir.file("c.db"), Database::Mode::read_write);
  EXPECT_EQ(db::import_json(fresh, without_time, fp.hash, false).probe_results, 2);
  EXPECT_EQ(db::import_json(fresh, without_time, fp.hash, false).probe_results, 0);
  // A run whose first row is already there and whose next is new: the new row opens one new run.
  auto mixed = exported;
  auto& rows = mixed["machines"][0]["probe_results"];
  auto added = rows[0];
  added["name"] = "a probe not stored yet";
  for (auto& row : rows) row["run"] = 7;
  rows.push_back(added);
  report = db::import_json(target, mixed, fp.hash, false);
  EXPECT_EQ(report.probe_results, 1);
  auto newest = target.prepare("SELECT count(*), max(run) FROM probe_results WHERE name = 'a probe not stored yet'");
  newest.step();
  EXPECT_EQ(newest.column_int(0), 1);
  EXPECT_EQ(newest.column_int(1), 3);  // after the two runs imported first
}

// An import replaced the local machine's soft attributes with the file's (its hostname then made
// this host's own rows look stale), and a 200 KB file nested 100000 deep under soft_attributes
// crashed the import (nlohmann's dump recursing).
// A plan whose key no longer matches its trial's (a hand edit of its threads, level or nb) is said
// by db check and refused by export: it had passed both, and the export's import refused it.
TEST(Exchange, APlanUnlikeItsTrialIsSaidAndNotExported) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("a.db"), Database::Mode::read_write);
  const auto id = db::ensure_machine(database, db::fingerprint(profile()));
  db::BestPlan b = best(id, 100, 32);
  b.trial_id = db::insert_trial(database, trial(id, 100, 32, 0.5));
  db::upsert_best_plan(database, b);
  EXPECT_TRUE(db::check(database).problems.empty());
  EXPECT_NO_THROW(db::export_json(database));
  for (const char* edit : {"cpu_threads = 3", "nb = 16", "level = 'measure'"}) {
    database.exec(std::string("UPDATE best_plans SET ") + edit);
    const auto problems = db::check(database).problems;
    ASSERT_EQ(problems.size(), 1u) << edit;
    EXPECT_NE(problems[0].find("was measured with other parameters"), std::string::npos) << problems[0];
    EXPECT_THROW(db::export_json(database), db::DatabaseError) << edit;
    database.exec("UPDATE best_plans SET cpu_threads = 2, nb = 32, level = 'quick'");
  }
  EXPECT_TRUE(db::check(database).problems.empty());
}

// A plan the database held before without a trial (stored through the API) is not the file's to
// answer for: an import of a whole export had been refused, "no trial with its parameters", for it.
TEST(Exchange, AnImportAnswersOnlyForThePlansItAdds) {
  test_support::TempDir dir;
  auto source = Database::open(dir.file("a.db"), Database::Mode::read_write);
  const auto fp = db::fingerprint(profile());
  const auto id = db::ensure_machine(source, fp);
  db::BestPlan b = best(id, 100, 32);
  b.trial_id = db::insert_trial(source, trial(id, 100, 32, 0.5));
  db::upsert_best_plan(source, b);
  const auto exported = db::export_json(source);
  auto target = Database::open(dir.file("b.db"), Database::Mode::read_write);
  const auto here = db::ensure_machine(target, fp);
  db::upsert_best_plan(target, best(here, 700, 64));  // no trial
  const auto report = db::import_json(target, exported, fp.hash, false);
  EXPECT_EQ(report.best_plans, 1);
  EXPECT_EQ(db::list_best_plans(target).size(), 2u);
  // A plan of the file's without its trial is still refused.
  auto lonely = exported;
  lonely["machines"][0]["trials"] = nlohmann::json::array();
  auto fresh = Database::open(dir.file("c.db"), Database::Mode::read_write);
  EXPECT_THROW(db::import_json(fresh, lonely, fp.hash, false), db::DatabaseError);
}

TEST(Exchange, AnImportKeepsTheLocalMachinesAttributesAndRefusesDeepNesting) {
  test_support::TempDir dir;
  auto local = Database::open(dir.file("a.db"), Database::Mode::read_write);
  const auto fp = db::fingerprint(profile());
  db::ensure_machine(local, fp);
  auto exported = db::export_json(local);
  exported["machines"][0]["soft_attributes"] = {{"hostname", "some-other-host"}};
  EXPECT_EQ(db::import_json(local, exported, fp.hash, false).machines, 0);
  EXPECT_EQ(db::find_machine(local, fp.hash)->fingerprint.soft_attributes, fp.soft_attributes);

  std::string deep(100000, '[');
  deep += std::string(100000, ']');
  auto nested = db::export_json(local);
  nested["machines"][0]["soft_attributes"] = {{"x", nlohmann::json::parse(deep)}};
  try {
    db::import_json(local, nested, fp.hash, false);
    ADD_FAILURE() << "a document nested 100000 deep was imported";
  } catch (const db::DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("nested more than"), std::string::npos) << e.what();
  }
  // Parsed, the same file is refused as the parser passes the 32nd level, not once it holds the
  // whole (100 MB of '[' took 7.4 GB); an export itself parses to what it was.
  EXPECT_THROW(db::parse_export("{\"a\": " + deep + "}"), db::DatabaseError);
  EXPECT_THROW(db::parse_export(std::string(100000, '[')), db::DatabaseError);  // refused before the end is seen
  EXPECT_THROW(db::parse_export("[1,"), nlohmann::json::parse_error);
  EXPECT_EQ(db::parse_export(db::export_json(local).dump()), db::export_json(local));
  // The parser's bound is check_export's: the same documents refused by both.
  for (int depth = 28; depth <= 36; ++depth) {
    const std::string text = std::string(depth, '[') + std::string(depth, ']');
    bool parser_refused = false, check_refused = false;
    try {
      db::parse_export(text);
    } catch (const db::DatabaseError&) {
      parser_refused = true;
    }
    try {
      db::check_export(nlohmann::json::parse(text), fp.hash, true);
    } catch (const db::DatabaseError& e) {
      check_refused = std::string(e.what()).find("nested more than") != std::string::npos;
    }
    EXPECT_EQ(parser_refused, check_refused) << depth;
  }
  // A key twice in one object was taken last-wins ("nb": 64, "nb": 32 imported nb = 32); the same
  // key in two objects, or at two depths, is no repeat.
  for (const char* twice : {R"({"nb": 64, "nb": 32})", R"({"a": [{"b": 1, "c": {"b": 2}, "b": 3}]})"}) {
    try {
      db::parse_export(twice);
      ADD_FAILURE() << twice;
    } catch (const db::DatabaseError& e) {
      EXPECT_NE(std::string(e.what()).find("appears twice in one object"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(db::parse_export(R"({"a": {"nb": 1}, "b": {"nb": 1}, "nb": [{"nb": 2}, {"nb": 3}]})"));
}

TEST(Exchange, ARowThatBreaksAConstraintFailsTheImport) {
  test_support::TempDir dir;
  auto source = Database::open(dir.file("a.db"), Database::Mode::read_write);
  const auto fp = db::fingerprint(profile());
  const auto id = db::ensure_machine(source, fp);
  db::insert_trial(source, trial(id, 100, 32, 0.5));
  auto exported = db::export_json(source);
  exported["machines"][0]["trials"][0]["status"] = "bogus";  // breaks the CHECK
  auto target = Database::open(dir.file("b.db"), Database::Mode::read_write);
  EXPECT_THROW(db::import_json(target, exported, fp.hash, false), db::DatabaseError);
  EXPECT_EQ(db::count_trials(target), 0);  // nothing half-imported
  exported["machines"][0]["trials"][0]["status"] = nullptr;
  EXPECT_THROW(db::import_json(target, exported, fp.hash, false), db::DatabaseError);
  // A bad value is named with its entry's place in the file and its field (it was "machine X: a value
  // of the wrong type", and a row id of the import's own file).
  exported["machines"][0]["trials"][0]["status"] = "ok";
  db::insert_trial(source, trial(id, 200, 32, 0.5));
  auto two = db::export_json(source);
  two["machines"][0]["trials"][1]["measured_at"] = "never";
  two["machines"][0]["trials"][1]["nb"] = 1.5;
  auto expect_entry_2_named = [&](Database& into) {
    try {
      db::import_json(into, two, fp.hash, false);
      ADD_FAILURE() << "imported";
    } catch (const db::DatabaseError& e) {
      EXPECT_NE(std::string(e.what()).find("trials entry 2: nb, measured_at of the wrong type or out of range"),
                std::string::npos)
          << e.what();
    }
  };
  expect_entry_2_named(target);
  EXPECT_EQ(db::count_trials(target), 0);
  // Into a database that holds the row already (its key): judged as well, where it had counted as
  // "already there" and the import succeeded (a hostile helper's finding). The row as it was is
  // there, and is no fault.
  auto holder = Database::open(dir.file("c.db"), Database::Mode::read_write);
  const auto as_it_was = db::export_json(source);
  EXPECT_EQ(db::import_json(holder, as_it_was, fp.hash, false).trials, 2);
  EXPECT_EQ(db::import_json(holder, as_it_was, fp.hash, false).skipped, 2);
  expect_entry_2_named(holder);
  EXPECT_EQ(db::count_trials(holder), 2);
  EXPECT_TRUE(db::invalid_rows(holder).empty());
  // Rows that leave out columns with a default (a schema-3 export's trials have no environment) are
  // judged with the defaults an insert gives them, when their key is already there too: the second
  // import of such a file had been refused ("environment of the wrong type"; a review's finding).
  auto without_defaults = as_it_was;
  for (auto& row : without_defaults["machines"][0]["trials"])
    for (const char* column : {"environment", "measured_at", "error", "backend"}) row.erase(column);
  auto fresh = Database::open(dir.file("d.db"), Database::Mode::read_write);
  EXPECT_EQ(db::import_json(fresh, without_defaults, fp.hash, false).trials, 2);
  const auto again = db::import_json(fresh, without_defaults, fp.hash, false);
  EXPECT_EQ(again.trials, 0);
  EXPECT_EQ(again.skipped, 2);
  EXPECT_TRUE(db::invalid_rows(fresh).empty());
  // Malformed documents are refused by check_export, naming what is wrong.
  for (const char* bad : {R"({"format": "hetlu-tuning-db", "schema_version": 4})",
                          R"({"format": "hetlu-tuning-db", "schema_version": 2, "machines": []})",
                          R"({"format": "hetlu-tuning-db", "schema_version": "4", "machines": []})",
                          R"({"format": "hetlu-tuning-db", "schema_version": 4, "machines": [7]})",
                          R"({"format": "hetlu-tuning-db", "schema_version": 4, "machines": [{"fingerprint": 1}]})"})
    EXPECT_THROW(db::check_export(nlohmann::json::parse(bad), fp.hash, true), db::DatabaseError) << bad;
}

// A rate of 1e-300 or 1e300 GFlop/s (an import or a hand edit) passed db check, and the model priced
// plans at 300-digit times: such a row is listed, refused by an import and never read.
TEST(ProbeResults, AnAbsurdRateIsListedRefusedAndNeverRead) {
  ProbedMachine machine;
  auto& database = machine.database;
  const auto& fp = machine.fp;
  const auto id = machine.id;
  auto& dir = machine.dir;
  machine.store_run({{"dgemm_all_cores", 50, 0.01, "GFlop/s", "n=1024"},
                     {"triad_bandwidth", 5.0, 0.01, "GB/s", "doubles=8388608"},
                     {"getrf_crossover", 0, 0, "n", "precision=double"}});  // 0: not measured
  EXPECT_TRUE(db::invalid_rows(database).empty());
  const auto exported = db::export_json(database);
  for (const char* value : {"1e-300", "1e300", "1e-4"}) {
    SCOPED_TRACE(value);
    database.exec(std::string("UPDATE probe_results SET value = ") + value + " WHERE name = 'dgemm_all_cores'");
    const auto problems = db::invalid_rows(database);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("(dgemm_all_cores): value of the wrong type"), std::string::npos) << problems[0];
    MachineProfile loaded = profile();
    loaded.dgemm_gflops_all_cores = 7;
    db::load_probe_rates(database, id, loaded);
    EXPECT_EQ(loaded.dgemm_gflops_all_cores, 7);  // the row is not read
    auto damaged = exported;
    damaged["machines"][0]["probe_results"][0]["value"] = std::stod(value);
    auto target = Database::open(dir.file(std::string("import-") + value + ".db"), Database::Mode::read_write);
    EXPECT_THROW(db::import_json(target, damaged, fp.hash, false), db::DatabaseError);
  }
}

// A newer probe run of zeros (an import) passed db check and hid the measured run: the model
// went to the datasheet's rates. A CPU rate of 0 is listed, and the newest run with valid rows
// is read.
TEST(ProbeResults, ARunOfZerosIsListedAndDoesNotHideTheMeasuredOne) {
  ProbedMachine machine;
  auto& database = machine.database;
  const auto id = machine.id;
  machine.store_run(
      {{"dgemm_all_cores", 50, 0.01, "GFlop/s", "n=1024"}, {"triad_bandwidth", 5.0, 0.01, "GB/s", "doubles=8388608"}});
  // Its other rows valid (0 is "not measured" for the crossover), as a real run's are.
  machine.store_run({{"dgemm_all_cores", 0, 0, "GFlop/s", "n=1024"},
                     {"triad_bandwidth", 0, 0, "GB/s", "doubles=8388608"},
                     {"getrf_crossover", 0, 0, "n", "precision=double"}});
  EXPECT_EQ(db::invalid_rows(database).size(), 2u);
  MachineProfile loaded = profile();
  ASSERT_TRUE(db::load_probe_rates(database, id, loaded));
  EXPECT_DOUBLE_EQ(loaded.dgemm_gflops_all_cores, 50);
  EXPECT_DOUBLE_EQ(loaded.memory_bandwidth_gbs, 5.0);
}

TEST(ProbeResults, OnlyTheNewestRunsAreKept) {
  ProbedMachine machine;
  auto& database = machine.database;
  const auto id = machine.id;
  for (int run = 1; run <= db::kept_probe_runs + 3; ++run) {
    machine.store_run({{"dgemm_all_cores", 10.0 * run, 0.01, "GFlop/s", "n=1024"},
                       {"triad_bandwidth", 5.0, 0.01, "GB/s", "doubles=8388608"}});
    if (run == 1) db::store_reference(database, id, "openblas_dgetrf", 500, 0.01, 8.3, 2);
  }
  auto runs =
      database.prepare("SELECT count(DISTINCT run), count(*) FROM probe_results WHERE name != 'openblas_dgetrf'");
  runs.step();
  EXPECT_EQ(runs.column_int(0), db::kept_probe_runs);
  EXPECT_EQ(runs.column_int(1), 2 * db::kept_probe_runs);
  auto references = database.prepare("SELECT count(*) FROM probe_results WHERE name = 'openblas_dgetrf'");
  references.step();
  EXPECT_EQ(references.column_int(0), 1);  // a reference outlives its run
  MachineProfile loaded = profile();
  ASSERT_TRUE(db::load_probe_rates(database, id, loaded));
  EXPECT_DOUBLE_EQ(loaded.dgemm_gflops_all_cores, 10.0 * (db::kept_probe_runs + 3));
}

// A best plan whose time or rate was damaged (-1, Inf, NULL, text) was shown and recommended as a
// tuned plan; one of a higher level with a bad nb or level kept every later calibration's result
// out, exit 0. Now the look-up skips it, saying why, and the next calibration replaces it.
TEST(BestPlans, ADamagedRowIsSkippedWithItsValueNamedAndReplacedByTheNextCalibration) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  const auto id = db::ensure_machine(database, db::fingerprint(profile()));
  for (const char* damage : {"median_s = -1", "median_s = 1e999", "gflops = ''", "predicted_s = 'abc'",
                             "nb = -5, level = 'exhaustive'", "level = 'bogus'"}) {
    db::upsert_best_plan(database, best(id, 100, 32));
    database.exec(std::string("UPDATE best_plans SET ") + damage);
    const auto found = db::lookup_best_plan(database, id, Plan{}, 100, 100, CalibrationLevel::quick, 2);
    EXPECT_FALSE(found.best) << damage;
    ASSERT_EQ(found.invalid_rows.size(), 1u) << damage;
    EXPECT_NE(found.invalid_rows[0].find("best_plans row (gepp double cpu on 2 CPU threads, m = 100, n = 100): "),
              std::string::npos)
        << found.invalid_rows[0];
    EXPECT_EQ(db::check(database).problems.size(), 1u) << damage;  // said once
    db::upsert_best_plan(database, best(id, 100, 48));
    const auto replaced = db::lookup_best_plan(database, id, Plan{}, 100, 100, CalibrationLevel::quick, 2);
    ASSERT_TRUE(replaced.best) << damage;
    EXPECT_EQ(replaced.best->plan.nb, 48) << damage;
  }
  // Two damaged rows alike but for their precision are two problems, not one said once.
  auto single = best(id, 100, 32);
  single.plan.precision = Precision::single;
  db::upsert_best_plan(database, single);
  database.exec("UPDATE best_plans SET median_s = -1");
  EXPECT_EQ(db::check(database).problems.size(), 2u);
}

// A plan made best by a trial flagged noisy (a calibration cut short by its budget stored one noisy
// trial, 8x the model's time) read as any other tuned plan: its detail says so.
TEST(BestPlans, APlanFromANoisyTrialSaysSo) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  const auto id = db::ensure_machine(database, db::fingerprint(profile()));
  auto noisy = trial(id, 100, 32, 0.5);
  noisy.status = db::TrialStatus::noisy;
  noisy.spread = 0.35;
  auto row = best(id, 100, 32);
  row.trial_id = db::insert_trial(database, noisy);
  db::upsert_best_plan(database, row);
  const auto found = db::lookup_best_plan(database, id, Plan{}, 100, 100, CalibrationLevel::quick, 2);
  ASSERT_TRUE(found.best);
  EXPECT_NE(found.detail.find("its time was measured noisy: spread 35 %"), std::string::npos) << found.detail;
  database.exec("UPDATE trials SET status = 'ok'");
  const auto quiet = db::lookup_best_plan(database, id, Plan{}, 100, 100, CalibrationLevel::quick, 2);
  EXPECT_EQ(quiet.detail.find("noisy"), std::string::npos) << quiet.detail;
}

// Fields that do not fit together (a hand edit, an import) passed db check and were served as
// tuned: nb = 1e9 for n = 400, a look-ahead of 1e6, CALU's ib wider than nb, d past the block
// columns (scaled to another order, d = 2^31 - 1 overflowed to one block column); an imported trial
// of nb = 999999 became the next calibration's best plan (a hostile helper's findings).
TEST(BestPlans, FieldsThatDoNotFitTogetherAreSkippedListedAndRefusedByAnImport) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  const auto fp = db::fingerprint(profile());
  const auto id = db::ensure_machine(database, fp);
  const std::pair<const char*, const char*> damages[] = {
      {"nb = 1000000000", "nb = 1000000000 is wider than the matrix (100 x 100)"},
      {"nb = 101", "nb = 101 is wider than the matrix"},
      {"lookahead = 1000000", "lookahead"},
      {"solver = 'calu', ib = 64", "ib = 64 is wider than nb = 32"},
      {"cpu_block_columns = 2147483647", "cpu_block_columns = 2147483647 is more than the 4 block columns"}};
  for (const auto& [damage, said] : damages) {
    database.exec("DELETE FROM best_plans");
    db::upsert_best_plan(database, best(id, 100, 32));
    database.exec(std::string("UPDATE best_plans SET ") + damage);
    Plan asked;
    if (std::string(damage).find("calu") != std::string::npos) asked.solver = Solver::calu;
    const auto found = db::lookup_best_plan(database, id, asked, 100, 100, CalibrationLevel::quick, 2);
    EXPECT_FALSE(found.best) << damage;
    ASSERT_EQ(found.invalid_rows.size(), 1u) << damage;
    EXPECT_NE(found.invalid_rows[0].find(said), std::string::npos) << found.invalid_rows[0];
    EXPECT_EQ(db::check(database).problems.size(), 1u) << damage;  // said once
  }
  database.exec("DELETE FROM best_plans");
  EXPECT_TRUE(db::invalid_rows(database).empty());
  // Nor is such a trial imported (or read by a calibration: valid_trial_condition).
  db::insert_trial(database, trial(id, 100, 32, 0.5));
  auto exported = db::export_json(database);
  exported["machines"][0]["trials"][0]["nb"] = 999999;
  auto target = Database::open(dir.file("import.db"), Database::Mode::read_write);
  try {
    db::import_json(target, exported, fp.hash, false);
    ADD_FAILURE() << "imported";
  } catch (const db::DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("nb (wider than the matrix)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(db::count_trials(target), 0);
  EXPECT_EQ(same_cpu_share(2147483647, 4, 25), 25);  // clamped before the cast
  EXPECT_EQ(same_cpu_share(999999999, 4, 25), 25);
}

// A machine row with attributes that are not a JSON object, or a date that is none, passed db check
// ("ok"); export then failed with a raw JSON error naming neither the database nor the machine.
TEST(Maintenance, ADamagedMachineRowIsListedAndNamedByExport) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  db::ensure_machine(database, db::fingerprint(profile()));
  for (const auto& [damage, field] :
       {std::pair{"soft_attributes = '{{'", "soft_attributes"}, std::pair{"hard_key = '[1,2]'", "hard_key"},
        std::pair{"first_seen = 'yesterday'", "first_seen"}}) {
    SCOPED_TRACE(damage);
    database.exec(std::string("UPDATE machines SET ") + damage);
    const auto problems = db::check(database).problems;
    ASSERT_EQ(problems.size(), 1u);
    // Named with the field that is wrong, not only the row.
    EXPECT_EQ(problems[0],
              "machine " + db::fingerprint(profile()).hash + ": " + field + " of the wrong type or out of range");
    try {
      db::export_json(database);
      ADD_FAILURE() << "exported";
    } catch (const db::DatabaseError& e) {
      EXPECT_NE(std::string(e.what()).find("export: machine "), std::string::npos) << e.what();
    }
    database.exec("DELETE FROM machines");
    db::ensure_machine(database, db::fingerprint(profile()));
  }
}

// A stored text that is not UTF-8 (a flipped byte) passed db check ("ok"), and export failed on it.
// Each malformed form is found, named by table, row and column; well-formed multi-byte text is not.
TEST(Maintenance, TextsThatAreNotUtf8AreListedByTableRowAndColumn) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  const auto id = db::ensure_machine(database, db::fingerprint(profile()));
  db::insert_trial(database, trial(id, 100, 32, 0.5));
  // é, 中, U+10FFFF and an emoji: well-formed.
  database.exec("UPDATE trials SET environment = CAST(X'C3A9E4B8ADF48FBFBFF09F9880' AS TEXT)");
  EXPECT_TRUE(db::check(database).problems.empty());
  for (const char* bytes : {"B8", "C080", "E4B8", "EDA080", "F4908080", "F8888080", "E0809F", "F08F8080", "C3A9FF"}) {
    SCOPED_TRACE(bytes);
    database.exec(std::string("UPDATE trials SET environment = CAST(X'") + bytes + "' AS TEXT)");
    const auto problems = db::check(database).problems;
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0], "trials row 1: environment is a text that is not valid UTF-8 (a damaged value)");
  }
}

// A stored text holding a control character (a hand edit) passed db check: ESC, U+009B (C1's escape
// sequence opener) or DEL would reach a terminal wherever the text is shown. A tab or a line feed (an
// error message's) and U+00A0 (just past C1) are not control characters a terminal acts on.
TEST(Maintenance, TextsHoldingControlCharactersAreListed) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  const auto id = db::ensure_machine(database, db::fingerprint(profile()));
  db::insert_trial(database, trial(id, 100, 32, 0.5));
  for (const char* bytes : {"6109620A63", "C2A0", "C2BF"}) {
    SCOPED_TRACE(bytes);
    database.exec(std::string("UPDATE trials SET environment = CAST(X'") + bytes + "' AS TEXT)");
    EXPECT_TRUE(db::check(database).problems.empty());
  }
  for (const char* bytes : {"611B5B326A", "61C29B326A", "C280", "C29F", "7F", "00", "0D"}) {
    SCOPED_TRACE(bytes);
    database.exec(std::string("UPDATE trials SET environment = CAST(X'") + bytes + "' AS TEXT)");
    const auto problems = db::check(database).problems;
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(problems[0],
              "trials row 1: environment holds a control character (a terminal would act on it where the text is "
              "shown)");
  }
  // A blob (no column of hetlu's holds one) was never looked at, and db show printed it as a text.
  database.exec("UPDATE trials SET environment = X'1B5B324A'");
  const auto problems = db::check(database).problems;  // also the trials' rule: environment is a text
  EXPECT_NE(std::find(problems.begin(), problems.end(),
                      "trials row 1: environment is a blob where a text or a number belongs (an edited value)"),
            problems.end());
}

// The fingerprint is the hash of the hard key, whatever the order of its keys (an export's are
// sorted); an export naming this machine's fingerprint beside another machine's hardware was
// imported as this machine's without --force (a hostile test's finding), and db check said ok.
TEST(Fingerprint, IsTheHardKeysHashAndImportAndCheckCompareThem) {
  MachineProfile p = profile();
  GpuInfo gpu;
  gpu.name = "NVIDIA H100";
  gpu.memory_bytes = 80ull << 30;
  p.gpus = {gpu};
  const auto fp = db::fingerprint(p);
  EXPECT_EQ(db::fingerprint_of_hard_key(fp.hard_key), fp.hash);
  auto sorted = nlohmann::json::parse(fp.hard_key);  // keys sorted, as an export writes them
  EXPECT_EQ(db::fingerprint_of_hard_key(sorted.dump()), fp.hash);
  auto spoofed = sorted;
  spoofed["cores"] = 72;
  EXPECT_NE(db::fingerprint_of_hard_key(spoofed.dump()), fp.hash);
  auto extra = sorted;
  extra["bogus"] = 1;
  EXPECT_EQ(db::fingerprint_of_hard_key(extra.dump()), "");
  EXPECT_EQ(db::fingerprint_of_hard_key("not json"), "");

  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  db::ensure_machine(database, fp);
  auto document = db::export_json(database);
  EXPECT_NO_THROW(db::import_json(database, document, fp.hash, false));  // as it was: already there
  document["machines"][0]["hard_key"] = spoofed;
  for (bool force : {false, true}) {
    try {
      db::import_json(database, document, fp.hash, force);
      ADD_FAILURE() << "imported";
    } catch (const db::DatabaseError& e) {
      EXPECT_NE(std::string(e.what()).find("not to its fingerprint"), std::string::npos) << e.what();
    }
  }
  // Fields this hetlu does not know (another version's): foreign, never this machine.
  document["machines"][0]["hard_key"] = extra;
  EXPECT_THROW(db::import_json(database, document, fp.hash, true), db::DatabaseError);
  document["machines"][0]["fingerprint"] = "0123456789abcdef";
  EXPECT_THROW(db::import_json(database, document, fp.hash, false), db::DatabaseError);  // foreign: --force
  EXPECT_EQ(db::import_json(database, document, fp.hash, true).machines, 1);
  EXPECT_TRUE(db::check(database).problems.empty());
  EXPECT_EQ(db::forget_machine(database, "0123456789abcdef"), 1);
  database.exec("UPDATE machines SET hard_key = json_set(hard_key, '$.cores', 72)");
  const auto problems = db::check(database).problems;
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "machine " + fp.hash + ": the fingerprint is not its hard_key's hash (an edited row)");
}
