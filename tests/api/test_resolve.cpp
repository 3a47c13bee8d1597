// The resolution chain: override > tuned (database) > model > default, each reported.
#include <gtest/gtest.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <vector>

#include "../common/temp_dir.hpp"
#include "db/records.hpp"
#include "hetlu/detail/env_choice.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/detail/openmp_wait.hpp"
#include "hetlu/hetlu.hpp"
#include "solvers/lu.hpp"
#include "solvers/scalar.hpp"

using namespace hetlu;

namespace {
Options with_db(const std::string& path) {
  Options o;
  o.db_path = path;
  return o;
}

// A best plan for the n x n problem, as a calibration stores it.
db::BestPlan tuned(int n, int nb, double gflops = 6) {
  db::BestPlan b;
  b.m = b.n = n;
  b.plan.nb = nb;
  b.median_s = 0.1;
  b.gflops = gflops;
  return b;
}

// Stores the rows for the machine with fingerprint fp in the database at path.
void store(const std::string& path, const db::Fingerprint& fp, std::vector<db::BestPlan> rows) {
  auto database = db::Database::open(path, db::Database::Mode::read_write);
  const auto id = db::ensure_machine(database, fp);
  for (auto& b : rows) {
    b.machine_id = id;
    db::upsert_best_plan(database, b);
  }
}

// $HETLU_HOST_BACKEND_MEMORY_MIB set for a scope: the host backend's "device memory" in MiB.
struct HostMemoryCap {
  explicit HostMemoryCap(const char* mib) { ::setenv("HETLU_HOST_BACKEND_MEMORY_MIB", mib, 1); }
  ~HostMemoryCap() { ::unsetenv("HETLU_HOST_BACKEND_MEMORY_MIB"); }
  HostMemoryCap(const HostMemoryCap&) = delete;
  HostMemoryCap& operator=(const HostMemoryCap&) = delete;
};

// A diagonally dominant n x n matrix, column-major.
std::vector<double> dominant_matrix(int n) {
  std::vector<double> A(n * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) A[i + j * n] = (i == j ? n : 0) + std::sin(1.0 + i * 7 + j * 13);
  return A;
}

// max_i |(A x)_i - 1|: how far x is from solving A x = ones.
double distance_from_ones(int n, const std::vector<double>& A, const std::vector<double>& x) {
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j) s += A[i + j * n] * x[j];
    worst = std::max(worst, std::abs(s - 1));
  }
  return worst;
}
}  // namespace

TEST(Resolve, WithoutADatabaseTheModelAnswers) {
  test_support::TempDir dir;
  const auto r = resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, with_db(dir.file("none.db")));
  EXPECT_EQ(r.plan.source, PlanSource::model);
  EXPECT_TRUE(r.warnings.empty());  // no database yet is normal, not a warning
  EXPECT_NE(r.plan.source_detail.find("no database"), std::string::npos) << r.plan.source_detail;
}

// A CPU solve runs on the calling thread's OpenMP threads: the model prices those and says so, and
// a thread on one of them gets its own plan, not one cached for another count (OMP_NUM_THREADS=1
// had been priced on every core).
TEST(Resolve, TheModelPricesTheThreadsACpuSolveRunsOn) {
  const int mask = detail::cpus_in_affinity_mask();
  if (this_machine().cores < 2 || omp_get_max_threads() < 2 || (mask > 0 && mask < 2))
    GTEST_SKIP() << "one thread or one CPU: nothing fewer to price";
  test_support::TempDir dir;
  const Options options = with_db(dir.file("none.db"));
  const auto all = resolve_plan(Solver::gepp, Precision::double_, 3000, 3000, options);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = resolve_plan(Solver::gepp, Precision::double_, 3000, 3000, options);
  omp_set_num_threads(saved);
  ASSERT_TRUE(all.plan.predicted_seconds && one.plan.predicted_seconds);
  EXPECT_GT(*one.plan.predicted_seconds, 1.3 * *all.plan.predicted_seconds);
  auto says = [](const Resolution& r) {
    for (const auto& line : r.explanation)
      if (line.find("solves run their CPUs' work on 1 of the") != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(says(one));
  EXPECT_FALSE(says(all));
  EXPECT_EQ(*resolve_plan(Solver::gepp, Precision::double_, 3000, 3000, options).plan.predicted_seconds,
            *all.plan.predicted_seconds);
}

TEST(Resolve, TunedEntryForThisMachineWins) {
  test_support::TempDir dir;
  const auto path = dir.file("t.db");
  store(path, db::fingerprint(this_machine()), {tuned(1000, 72)});  // nb = 72: a value the model never picks
  const auto r = resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, with_db(path));
  EXPECT_EQ(r.plan.source, PlanSource::tuned);
  EXPECT_EQ(r.plan.nb, 72);
  // Its rate is its own predicted time's, not the model's own plan's.
  ASSERT_TRUE(r.plan.predicted_seconds && r.predicted_gflops);
  EXPECT_NEAR(*r.predicted_gflops * 1e9 * *r.plan.predicted_seconds, detail::getrf_flops(1000, 1000), 1);
  // Another size far away falls back to the model; a single-precision query finds nothing tuned.
  EXPECT_EQ(resolve_plan(Solver::gepp, Precision::double_, 9000, 9000, with_db(path)).plan.source, PlanSource::model);
  EXPECT_EQ(resolve_plan(Solver::gepp, Precision::single, 1000, 1000, with_db(path)).plan.source, PlanSource::model);
}

TEST(Resolve, AnotherMachinesEntriesAreNotUsed) {
  test_support::TempDir dir;
  const auto path = dir.file("t.db");
  MachineProfile other = this_machine();
  other.cpu_model += " (another one)";
  store(path, db::fingerprint(other), {tuned(1000, 72)});
  const auto r = resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, with_db(path));
  EXPECT_EQ(r.plan.source, PlanSource::model);
  EXPECT_NE(r.plan.source_detail.find("fingerprint mismatch"), std::string::npos) << r.plan.source_detail;
}

TEST(Resolve, OverrideWinsAndSaysWhich) {
  Options o;
  o.use_database = false;
  o.overrides.nb = 40;
  const auto r = resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, o);
  EXPECT_EQ(r.plan.source, PlanSource::override_);
  EXPECT_EQ(r.plan.nb, 40);
  EXPECT_EQ(r.plan.overridden, std::vector<std::string>{"nb"});
}

// A report names where nb came from: an override of d alone leaves nb the model's, and
// "nb = 64 (override)" said otherwise.
TEST(Resolve, AnOverrideOfOneFieldLeavesTheOthersOrigin) {
  Options o;
  o.use_database = false;
  o.target = Target::hybrid;
  o.overrides.devices = BackendKind::host;
  o.overrides.cpu_block_columns = 2;
  const auto r = resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, o);
  EXPECT_EQ(r.plan.source, PlanSource::override_);
  EXPECT_EQ(origin_of(r.plan, "cpu_block_columns"), "override");
  EXPECT_EQ(origin_of(r.plan, "nb"), "model");
  o.overrides.nb = 40;
  EXPECT_EQ(origin_of(resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, o).plan, "nb"), "override");
  Options plain;
  plain.use_database = false;
  EXPECT_EQ(origin_of(resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, plain).plan, "nb"), "model");
}

// A panel wider than the matrix is the whole matrix: an nb near INT_MAX once overflowed the
// block arithmetic (a segfault in GEPP and PRBT, an abort in CALU).
TEST(Resolve, AnOverriddenBlockWiderThanTheMatrixIsTheMatrix) {
  Options o;
  o.use_database = false;
  o.overrides.nb = std::numeric_limits<int>::max();
  o.overrides.ib = std::numeric_limits<int>::max();
  const auto r = resolve_plan(Solver::calu, Precision::double_, 7, 5, o);
  EXPECT_EQ(r.plan.nb, 7);
  EXPECT_EQ(r.plan.ib, 7);
  // An inner panel wider than the outer one runs as the outer one, and is reported so.
  o.overrides.nb = 64;
  o.overrides.ib = 128;
  EXPECT_EQ(resolve_plan(Solver::calu, Precision::double_, 500, 500, o).plan.ib, 64);
  // ... and a CPU share d beyond the block columns is all of them, reported as it runs.
  Options hybrid;
  hybrid.use_database = false;
  hybrid.target = Target::hybrid;
  hybrid.overrides.devices = DeviceSet(BackendKind::host);
  hybrid.overrides.nb = 64;
  hybrid.overrides.cpu_block_columns = 1000000;
  EXPECT_EQ(resolve_plan(Solver::gepp, Precision::double_, 257, 257, hybrid).plan.cpu_block_columns, 5);
  for (Solver solver : {Solver::gepp, Solver::calu, Solver::prbt}) {
    SCOPED_TRACE(to_string(solver));
    std::vector<double> A = {4, 1, 0, 1, 4, 1, 0, 1, 4}, B = {5, 6, 5};
    std::vector<int> ipiv(3);
    const auto report = gesv(solver, 3, 1, A.data(), 3, ipiv.data(), B.data(), 3, o);
    EXPECT_EQ(report.info, 0);
    for (double x : B) EXPECT_NEAR(x, 1.0, 1e-14);
  }
  for (int bad : {0, -1, std::numeric_limits<int>::min()}) {  // Python's nb = -1 reached PRBT's mixed path
    Options negative = o;
    negative.overrides.nb = bad;
    EXPECT_THROW(resolve_plan(Solver::prbt, Precision::mixed, 7, 7, negative), InvalidArgument) << bad;
    negative.overrides.nb.reset();
    negative.overrides.ib = bad;
    EXPECT_THROW(resolve_plan(Solver::calu, Precision::double_, 7, 7, negative), InvalidArgument) << bad;
  }
  Plan plan;  // a C++ caller's own plan reaches the solvers unresolved
  plan.nb = std::numeric_limits<int>::max();
  std::vector<double> A = {4, 1, 1, 4};
  std::vector<int> ipiv(2);
  EXPECT_EQ(solvers::getrf(plan, 2, 2, A.data(), 2, ipiv.data()), 0);
  EXPECT_NEAR(A[3], 4 - 0.25, 1e-15);
}

TEST(Resolve, EverySolverAndTargetHasAModelPlan) {
  Options o;
  o.use_database = false;
  for (Solver solver : {Solver::gepp, Solver::calu, Solver::prbt})
    for (Target target : {Target::cpu, Target::hybrid}) {
      o.target = target;
      const auto r = resolve_plan(solver, Precision::double_, 1000, 1000, o);
      EXPECT_EQ(r.plan.source, PlanSource::model) << to_string(solver);
      EXPECT_EQ(r.plan.solver, solver);
      EXPECT_EQ(r.plan.target, target);
      EXPECT_FALSE(r.explanation.empty());
      ASSERT_TRUE(r.predicted_gflops);
      EXPECT_GT(*r.predicted_gflops, 0);
    }
}

TEST(Resolve, CorruptDatabaseIsAWarningNotAFailure) {
  test_support::TempDir dir;
  const auto path = dir.file("corrupt.db");
  std::ofstream(path) << std::string(4096, 'x');
  const auto r = resolve_plan(Solver::gepp, Precision::double_, 500, 500, with_db(path));
  EXPECT_EQ(r.plan.source, PlanSource::model);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find(path), std::string::npos);
}

TEST(Solve, GesvReportsPlanAndSolves) {
  const int n = 64;
  std::vector<double> A(n * n), B(n, 1.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) A[i + j * n] = (i == j ? n : 0) + 1.0 / (1 + i + j);
  const auto A0 = A;
  std::vector<int> ipiv(n);
  Options o;
  o.use_database = false;
  const auto report = gesv(Solver::gepp, n, 1, A.data(), n, ipiv.data(), B.data(), n, o);
  EXPECT_EQ(report.info, 0);
  EXPECT_EQ(report.plan.source, PlanSource::model);
  for (int i = 0; i < n; ++i) {
    double r = -1;
    for (int j = 0; j < n; ++j) r += A0[i + j * n] * B[j];
    EXPECT_NEAR(r, 0, 1e-12);
  }
}

TEST(Resolve, ChangedSoftAttributesMarkTunedRowsStale) {
  test_support::TempDir dir;
  const auto path = dir.file("t.db");
  auto fp = db::fingerprint(this_machine());
  fp.soft_attributes = R"({"hostname":"another-host","hetlu_version":"0.0.1"})";
  store(path, fp, {tuned(777, 72, 1)});
  const auto r = resolve_plan(Solver::gepp, Precision::double_, 777, 777, with_db(path));
  EXPECT_EQ(r.plan.source, PlanSource::tuned);  // same hard key: the rows still apply
  EXPECT_NE(r.plan.source_detail.find("stale"), std::string::npos) << r.plan.source_detail;
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("hostname"), std::string::npos);
}

// Without a GPU the hybrid target runs on the host backend, modelled as a device made of some of
// this machine's cores: the model then gives the CPUs a share strictly between none and all.
TEST(Resolve, HybridWithoutAGpuUsesTheHostBackendAndTheModelsShare) {
  Options o;
  o.use_database = false;
  o.target = Target::hybrid;
  o.overrides.devices = BackendKind::host;
  const Resolution r = resolve_plan(Solver::calu, Precision::double_, 4000, 4000, o);
  EXPECT_EQ(r.plan.devices, BackendKind::host);
  const int blocks = (4000 + r.plan.nb - 1) / r.plan.nb;
  if (panel_location(r.plan) == PanelLocation::cpu) {
    EXPECT_GE(r.plan.cpu_block_columns, 1);
    EXPECT_LT(r.plan.cpu_block_columns, blocks);
  } else {
    EXPECT_EQ(r.plan.cpu_block_columns, 0);
  }
  EXPECT_GT(r.cpu_fraction, 0.0);
  EXPECT_LT(r.cpu_fraction, 1.0);
  ASSERT_FALSE(r.explanation.empty());
  EXPECT_NE(r.explanation.front().find("backend host"), std::string::npos) << r.explanation.front();
}

TEST(Resolve, PanelOnTheDeviceMeansNoCpuColumns) {
  Options o;
  o.use_database = false;
  o.target = Target::hybrid;
  o.overrides.devices = BackendKind::host;
  o.overrides.panel_location = PanelLocation::device;
  EXPECT_EQ(resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, o).plan.cpu_block_columns, 0);
  o.overrides.panel_location.reset();
  o.overrides.cpu_block_columns = 0;
  EXPECT_EQ(panel_location(resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, o).plan), PanelLocation::device);
  // The panel on the CPUs keeps at least its block column; a d that contradicts the place is refused.
  o.overrides.cpu_block_columns.reset();
  o.overrides.panel_location = PanelLocation::cpu;
  EXPECT_GE(resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, o).plan.cpu_block_columns, 1);
  o.overrides.cpu_block_columns = 0;
  EXPECT_THROW(resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, o), InvalidArgument);
  o.overrides.cpu_block_columns = 3;
  o.overrides.panel_location = PanelLocation::device;
  EXPECT_THROW(resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, o), InvalidArgument);
}

TEST(Solve, HybridGesvOnTheHostBackend) {
  const int n = 200;
  const auto A0 = dominant_matrix(n);
  auto A = A0;
  std::vector<double> B(n, 1.0);
  std::vector<int> ipiv(n);
  Options o;
  o.use_database = false;
  o.target = Target::hybrid;
  o.overrides.devices = BackendKind::host;
  const SolveReport r = gesv(Solver::gepp, n, 1, A.data(), n, ipiv.data(), B.data(), n, o);
  EXPECT_EQ(r.info, 0);
  EXPECT_EQ(r.plan.target, Target::hybrid);
  EXPECT_LT(distance_from_ones(n, A0, B), 1e-12);
}

// A device too small for the matrix: every solver's hybrid getrf and gesv run on the CPUs instead,
// say so, and still solve (the allocation fails before A or B changes).
TEST(Solve, DeviceOutOfMemoryFallsBackToTheCpus) {
  const int n = 400;  // 1.28 MB; the host backend gets 1 MiB of "device memory"
  const HostMemoryCap cap("1");
  const auto A0 = dominant_matrix(n);
  Options o;
  o.use_database = false;
  o.target = Target::hybrid;
  o.overrides.devices = BackendKind::host;
  o.overrides.nb = 64;
  o.overrides.cpu_block_columns = 1;  // the device holds n - nb columns and two panel slots: more than n
  auto fell_back = [](const SolveReport& r) {
    for (const auto& w : r.warnings)
      if (w.find("out of memory") != std::string::npos && w.find("solved on the CPUs instead") != std::string::npos)
        return true;
    return false;
  };
  for (Solver solver : {Solver::gepp, Solver::calu, Solver::prbt}) {
    SCOPED_TRACE(to_string(solver));
    auto A = A0;
    std::vector<double> B(n, 1.0);
    std::vector<int> ipiv(n);
    const SolveReport r = gesv(solver, n, 1, A.data(), n, ipiv.data(), B.data(), n, o);
    EXPECT_EQ(r.info, 0);
    EXPECT_EQ(r.plan.target, Target::cpu);
    EXPECT_TRUE(fell_back(r));
    EXPECT_LT(distance_from_ones(n, A0, B), 1e-12);
    if (solver == Solver::prbt) continue;
    A = A0;
    const SolveReport f = getrf(solver, n, n, A.data(), n, ipiv.data(), o);
    EXPECT_EQ(f.info, 0);
    EXPECT_TRUE(fell_back(f));
  }
}

TEST(Resolve, ATunedHybridShareAnswersForItsBackendAndScalesWithTheSize) {
  test_support::TempDir dir;
  const auto path = dir.file("t.db");
  auto hybrid = [](int n, int nb, int d) {
    db::BestPlan b = tuned(n, nb);
    b.plan.target = Target::hybrid;
    b.plan.devices = BackendKind::host;
    b.plan.cpu_block_columns = d;
    return b;
  };
  // N = 10 with d = 3, a share the model does not pick; at 3000, all of it on the device.
  store(path, db::fingerprint(this_machine()), {hybrid(1000, 100, 3), hybrid(3000, 50, 0)});
  Options o = with_db(path);
  o.target = Target::hybrid;
  o.overrides.devices = BackendKind::host;
  auto r = resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, o);
  EXPECT_EQ(r.plan.source, PlanSource::tuned) << r.plan.source_detail;
  EXPECT_EQ(r.plan.cpu_block_columns, 3);
  EXPECT_EQ(panel_location(r.plan), PanelLocation::cpu);
  EXPECT_DOUBLE_EQ(r.cpu_fraction, 0.3);
  // Between the tuned sizes: nb interpolated, d the same share of the block columns at that nb.
  r = resolve_plan(Solver::gepp, Precision::double_, 1500, 1500, o);
  EXPECT_NEAR(r.plan.cpu_block_columns / std::ceil(1500.0 / r.plan.nb), 0.3, 0.03) << r.plan.nb;
  // Beyond them, the nearest (1000, 1.4 times smaller): the same share of 14 block columns.
  r = resolve_plan(Solver::gepp, Precision::double_, 700, 700, o);
  EXPECT_EQ(r.plan.nb, 100);
  EXPECT_EQ(r.plan.cpu_block_columns, 2);  // 3 * 7 / 10 = 2.1
  // d = 0 is the panel on the device.
  r = resolve_plan(Solver::gepp, Precision::double_, 3000, 3000, o);
  EXPECT_EQ(r.plan.cpu_block_columns, 0);
  EXPECT_EQ(panel_location(r.plan), PanelLocation::device);
  // Another backend's query finds nothing tuned; nor does the CPU target.
  o.overrides.devices = BackendKind::cuda;
  EXPECT_EQ(resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, o).plan.source, PlanSource::model);
  EXPECT_EQ(resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, with_db(path)).plan.source, PlanSource::model);
}

// $HETLU_HOST_BACKEND_MEMORY_MIB caps a host team's "device memory": the model deals each team no
// more than it holds, so the executor runs the plan (two teams of 3 MiB at n = 1000, 8 MB: the
// model's plan without the cap, d = 1 of 8 with half of 7 block columns of 128 on each, 6.1 MB a
// team, ran out of memory and the CPUs solved alone).
TEST(Solve, HostTeamsUnderAMemoryCapAreDealtWhatTheyHold) {
  const int n = 1000;
  const HostMemoryCap cap("3");
  const auto A0 = dominant_matrix(n);
  Options o;
  o.use_database = false;
  o.target = Target::hybrid;
  o.overrides.devices = from_string<DeviceSet>("host:1,host:1");
  auto A = A0;
  std::vector<double> B(n, 1.0);
  std::vector<int> ipiv(n);
  const SolveReport r = gesv(Solver::gepp, n, 1, A.data(), n, ipiv.data(), B.data(), n, o);
  EXPECT_EQ(r.info, 0);
  EXPECT_EQ(r.plan.target, Target::hybrid);
  for (const auto& w : r.warnings) EXPECT_EQ(w.find("out of memory"), std::string::npos) << w;
  EXPECT_LT(r.plan.cpu_block_columns, block_columns(n, r.plan.nb)) << "the devices were given nothing";
  EXPECT_LT(distance_from_ones(n, A0, B), 1e-12);
}

// PRBT under a host memory cap, as a review found the model and the executor disagreeing (each ran
// out of memory and the CPUs solved alone): the model counts PRBT's padded order (n up to a
// multiple of 4) and the solves' buffers beside its two copies of A; a d that deals the device no
// block column runs as on the CPU target, holding nothing there.
TEST(Solve, PrbtUnderAHostMemoryCapRunsThePlanTheModelDealt) {
  struct Case {
    const char* mib;
    int n;
    const char* devices;
  };
  for (const Case& c : {Case{"1", 566, "host:1,host:1,host:1"}, Case{"7", 957, "host:1"}, Case{"1", 500, "host:1"},
                        Case{"16", 1024, "host:1"}, Case{"17", 1024, "host:1"}}) {
    SCOPED_TRACE(std::string(c.mib) + " MiB, n = " + std::to_string(c.n) + ", " + c.devices);
    const HostMemoryCap cap(c.mib);
    const auto A0 = dominant_matrix(c.n);
    auto A = A0;
    std::vector<double> B(c.n, 1.0);
    std::vector<int> ipiv(c.n);
    Options o;
    o.use_database = false;
    o.target = Target::hybrid;
    o.overrides.devices = from_string<DeviceSet>(c.devices);
    const SolveReport r = gesv(Solver::prbt, c.n, 1, A.data(), c.n, ipiv.data(), B.data(), c.n, o);
    EXPECT_EQ(r.info, 0);
    EXPECT_EQ(r.plan.target, Target::hybrid);
    for (const auto& w : r.warnings) EXPECT_EQ(w.find("out of memory"), std::string::npos) << w;
    EXPECT_LT(distance_from_ones(c.n, A0, B), 1e-12);
  }
}

// A tuned plan for several devices keeps its nb and d where a deal of them fits the devices'
// memory; where none does, the model's plan runs and the explanation says why, at the size tuned
// too (the plan ran there in another memory: a review found it kept, out of memory and on the CPUs).
TEST(Resolve, ATunedPlanTheDevicesCannotHoldAtThisSizeGivesWayToTheModels) {
  test_support::TempDir dir;
  const auto path = dir.file("t.db");
  const auto teams = from_string<DeviceSet>("host:1,host:1");
  db::BestPlan b = tuned(1000, 50);
  b.plan.target = Target::hybrid;
  b.plan.devices = teams;
  b.plan.cpu_block_columns = 2;
  store(path, db::fingerprint(this_machine()), {b});
  Options o = with_db(path);
  o.target = Target::hybrid;
  o.overrides.devices = teams;
  auto r = resolve_plan(Solver::gepp, Precision::double_, 1200, 1200, o);
  EXPECT_EQ(r.plan.source, PlanSource::tuned) << r.plan.source_detail;
  ASSERT_EQ(r.plan.device_shares.size(), 2u);
  EXPECT_NEAR(r.plan.device_shares[0] + r.plan.device_shares[1], 1, 1e-9);

  const HostMemoryCap cap("3");  // 22 block columns of 50 x 1200: 10.6 MB
  r = resolve_plan(Solver::gepp, Precision::double_, 1200, 1200, o);
  EXPECT_EQ(r.plan.source, PlanSource::model) << r.plan.source_detail;
  EXPECT_NE(r.plan.source_detail.find("does not fit the devices' memory"), std::string::npos) << r.plan.source_detail;
  bool said = false;
  for (const auto& line : r.explanation)
    said = said || line.find("leaves the devices more than their memory holds") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_EQ(resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, o).plan.source, PlanSource::model);
  auto A0 = dominant_matrix(1200), A = A0;
  std::vector<double> B(1200, 1.0);
  std::vector<int> ipiv(1200);
  const SolveReport s = gesv(Solver::gepp, 1200, 1, A.data(), 1200, ipiv.data(), B.data(), 1200, o);
  EXPECT_EQ(s.info, 0);
  for (const auto& w : s.warnings) EXPECT_EQ(w.find("out of memory"), std::string::npos) << w;
  EXPECT_LT(distance_from_ones(1200, A0, B), 1e-12);
}

// A database another connection keeps locked: the first look-up waits out the busy timeout and
// says so; the next shapes answer from the model without waiting (each new shape waited 5 s, and a
// SciPy loop over shapes through the drop-in stalled for minutes: a hostile test's finding).
TEST(Resolve, ADatabaseLockedByAnotherIsLeftAloneForAWhile) {
  test_support::TempDir dir;
  const auto path = dir.file("locked.db");
  store(path, db::fingerprint(this_machine()), {tuned(1000, 72)});
  auto holder = db::Database::open(path, db::Database::Mode::read_write);
  holder.exec("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; DELETE FROM best_plans WHERE n = -1; COMMIT;");
  const auto start = std::chrono::steady_clock::now();
  const auto first = resolve_plan(Solver::gepp, Precision::double_, 1001, 1001, with_db(path));
  EXPECT_EQ(first.plan.source, PlanSource::model);
  bool said = false;
  for (const auto& w : first.warnings) said = said || w.find("not read again") != std::string::npos;
  EXPECT_TRUE(said);
  const auto waited = std::chrono::steady_clock::now();
  for (int n : {1002, 1003, 1004}) {
    const auto r = resolve_plan(Solver::gepp, Precision::double_, n, n, with_db(path));
    EXPECT_EQ(r.plan.source, PlanSource::model);
    EXPECT_NE(r.plan.source_detail.find("locked by another process"), std::string::npos) << r.plan.source_detail;
  }
  const double first_s = std::chrono::duration<double>(waited - start).count();
  const double rest_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - waited).count();
  EXPECT_GT(first_s, 4.0);  // the busy timeout
  EXPECT_LT(rest_s, 2.0) << "each look-up waited again";
  // The small-matrix crossover's look-up keeps the pause too (it waited 5 s a precision).
  const auto before_crossover = std::chrono::steady_clock::now();
  for (Precision p : {Precision::double_, Precision::single})
    EXPECT_EQ(small_matrix_crossover(p, with_db(path)).source, PlanSource::default_);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - before_crossover).count(), 2.0);
  // Free again, the pause forgotten with the cache: the tuned plan.
  { const db::Database released = std::move(holder); }
  clear_plan_cache();
  EXPECT_EQ(resolve_plan(Solver::gepp, Precision::double_, 1000, 1000, with_db(path)).plan.source, PlanSource::tuned);
}

// One damaged row of each kind: resolution skips it with a warning (the model answers), a solve
// succeeds, `db check` names it, and an export holding it is refused on import.
TEST(Resolve, AnInvalidRowIsAMissWithAWarning) {
  const std::vector<std::string> damage = {
      "UPDATE best_plans SET nb = 0",
      "UPDATE best_plans SET ib = -1",
      "UPDATE best_plans SET panel_threads = 0",
      "UPDATE best_plans SET level = 'bogus'",
      "UPDATE best_plans SET solver = 'fast'",
      "UPDATE machines SET soft_attributes = 'not json'",
  };
  for (std::size_t k = 0; k < damage.size(); ++k) {
    test_support::TempDir dir;
    const auto path = dir.file(std::string("t").append(std::to_string(k)).append(".db"));
    store(path, db::fingerprint(this_machine()), {tuned(300, 72)});
    {
      auto database = db::Database::open(path, db::Database::Mode::read_write);
      database.prepare(damage[k]).run();
    }
    clear_plan_cache();
    const auto r = resolve_plan(Solver::gepp, Precision::double_, 300, 300, with_db(path));
    EXPECT_EQ(r.plan.source, PlanSource::model) << damage[k];
    if (k < 3) {  // the rows a look-up reads; a renamed solver or level is simply not asked for
      ASSERT_EQ(r.warnings.size(), 1u) << damage[k];
      EXPECT_NE(r.warnings[0].find("invalid"), std::string::npos) << r.warnings[0];
    }
    const int n = 300;
    auto A = dominant_matrix(n);
    const auto original = A;
    std::vector<double> b(n, 1.0);
    std::vector<int> ipiv(n);
    const auto report = gesv(Solver::gepp, n, 1, A.data(), n, ipiv.data(), b.data(), n, with_db(path));
    EXPECT_EQ(report.info, 0);
    EXPECT_LT(distance_from_ones(n, original, b), 1e-10);
    if (k != 5) {
      auto database = db::Database::open(path, db::Database::Mode::read_only);
      EXPECT_FALSE(db::check(database).problems.empty()) << damage[k];
    }
  }
}

// solve_checked on matrices whose rows or columns span the floating-point range (found by a
// hostile review): the exact answers, finite, with omega checked on the equilibrated system.
TEST(Solve, CheckedSolvesAcrossTheFloatingPointRange) {
  struct Case {
    int n;
    std::vector<double> A, b, x;
  };
  const std::vector<Case> cases = {
      {2, {1e200, 0, 0, 1e-200}, {1, 1}, {1e-200, 1e200}},     // once: U(2,2) "exactly zero"
      {2, {1.7e308, 0, 0, 1}, {1, 1}, {1 / 1.7e308, 1}},       // once: "not finite"
      {1, {7e-320}, {3e-320}, {3.0 / 7.0}},                    // once: 4e-5 off with omega 0
      {2, {1e-310, 0, 0, 1}, {1e-300, 1}, {1e10, 1}},          // a subnormal pivot
      {2, {1e300, 1e-30, 1e300, -1e-30}, {2e300, 0}, {1, 1}},  // rows 330 orders apart
      // Columns 600 orders apart in rows led by 1e300: scaling the rows first underflowed the
      // middle column to zeros, and this nonsingular matrix was "exactly singular" (second review).
      {3,
       {2, 1, 1, 1e-300, 3e-300, 1e-300, 1e300, 1e300, 4e300},
       {1, 1, 1},
       {6.0 / 17, 3.0 / 17 * 1e300, 2.0 / 17 * 1e-300}},
  };
  for (const auto& c : cases) {
    for (auto solver : {std::optional<Solver>{}, std::optional(Solver::gepp), std::optional(Solver::calu),
                        std::optional(Solver::prbt)}) {
      auto b = c.b;
      const auto r = solve_checked(solver, c.n, 1, c.A.data(), c.n, b.data(), c.n, with_db("/nonexistent/none.db"));
      ASSERT_EQ(r.info, 0) << c.A[0];
      EXPECT_TRUE(r.accurate) << c.A[0];
      for (int i = 0; i < c.n; ++i) EXPECT_NEAR(b[i] / c.x[i], 1.0, 1e-9) << c.A[0] << " x(" << i << ")";
    }
  }
  // The class: a random 40 x 40 matrix with its columns scaled by 10^+-300 is never "singular".
  const int n = 40;
  std::vector<double> A(n * n), b(n, 1.0);
  unsigned seed = 7;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      A[i + j * n] = (double(rand_r(&seed)) / RAND_MAX - 0.5) * (j % 3 == 0 ? 1e300 : j % 3 == 1 ? 1e-300 : 1);
  const auto r =
      solve_checked(std::optional<Solver>{}, n, 1, A.data(), n, b.data(), n, with_db("/nonexistent/none.db"));
  EXPECT_EQ(r.info, 0);
  EXPECT_TRUE(r.accurate) << r.backward_error.value_or(-1);
}

TEST(SmallMatrixCrossover, MeasuredForThisMachineElseTheDefault) {
  test_support::TempDir dir;
  const std::string path = dir.file("t.db");
  const auto none = small_matrix_crossover(Precision::double_, with_db(path));
  EXPECT_EQ(none.below, default_small_matrix_crossover);
  EXPECT_EQ(none.source, PlanSource::default_);
  {
    auto database = db::Database::open(path, db::Database::Mode::read_write);
    MachineProfile measured = this_machine();
    measured.rates_measured = true;
    measured.measurements = {{"getrf_crossover", 96, 0, "n", "precision=double"},
                             {"getrf_crossover", 2048, 0, "n", "precision=single"}};
    db::store_probe_results(database, db::ensure_machine(database, db::fingerprint(measured)), measured);
  }
  clear_plan_cache();  // as calibrate does: the process sees the new measurement
  const auto d = small_matrix_crossover(Precision::double_, with_db(path));
  EXPECT_EQ(d.below, 96);
  EXPECT_EQ(d.source, PlanSource::tuned);
  EXPECT_EQ(small_matrix_crossover(Precision::single, with_db(path)).below, 2048);
}

TEST(SmallMatrixCrossover, ComparesWorkNotTheLongerSide) {
  // A tall panel of a few columns is less work than a small square: it takes the BLAS library's
  // LU (a hostile tester's 400 shapes of (600 + k) x 3 through the drop-in: 80-700x OpenBLAS's time,
  // a plan resolved for each).
  EXPECT_TRUE(below_small_matrix_crossover(100000, 3, 512));
  EXPECT_TRUE(below_small_matrix_crossover(3, 100000, 512));
  EXPECT_TRUE(below_small_matrix_crossover(511, 511, 512));
  EXPECT_FALSE(below_small_matrix_crossover(512, 512, 512));  // a square below the order, as before
  EXPECT_FALSE(below_small_matrix_crossover(100000, 512, 512));
  EXPECT_TRUE(below_small_matrix_crossover(0, 100000, 512));
  EXPECT_FALSE(below_small_matrix_crossover(1, 1, 0));  // HETLU_SMALL_MATRIX_CROSSOVER=0: never
  EXPECT_FALSE(below_small_matrix_crossover(-1, 4, 512));
  EXPECT_FALSE(below_small_matrix_crossover(4, 4, -1));  // not resolved yet
  const int m = 3000, n = 3;
  std::vector<double> A(static_cast<size_t>(m) * n);
  unsigned seed = 3;
  for (auto& a : A) a = double(rand_r(&seed)) / RAND_MAX - 0.5;
  std::vector<int> ipiv(n);
  Options small = with_db("/nonexistent/none.db");
  small.small_matrix_path = true;
  const auto r = hetlu::getrf(Solver::gepp, m, n, A.data(), m, ipiv.data(), small);
  EXPECT_EQ(r.info, 0);
  EXPECT_EQ(r.plan.source_detail, "small-matrix LU");
}

TEST(SmallMatrixCrossover, ASubnormalPivotOrANaNGoesToHetlusLuNotTheLibrarys) {
  // OpenBLAS's LU scales by a pivot's reciprocal: a pivot of 1e-310 gave NaN factors with INFO = 0,
  // and its single-precision LU left a NaN where it was. Those matrices go to hetlu's LU, which
  // divides as LAPACK's does.
  const int n = 40;
  std::vector<double> A = dominant_matrix(n);
  for (int i = 0; i < n; ++i) A[i] = i == 0 ? 1e-310 : 0.0;  // column 1: a subnormal pivot alone
  std::vector<int> ipiv(n);
  int info = -1;
  EXPECT_FALSE(blas_library_getrf(n, n, A.data(), n, ipiv.data(), &info)) << "the library took it";
  Options small = with_db("/nonexistent/none.db");
  small.small_matrix_path = true;
  std::vector<double> x(n, 1.0);
  const auto r = hetlu::gesv(Solver::gepp, n, 1, A.data(), n, ipiv.data(), x.data(), n, small);
  EXPECT_EQ(r.info, 0);
  int finite = 0;
  for (double v : A) finite += std::isfinite(v);
  EXPECT_EQ(finite, n * n) << "the factors of a matrix with a subnormal pivot";
  for (int i = 1; i < n; ++i) EXPECT_TRUE(std::isfinite(x[i])) << i;  // x(1) ~ 1e310 overflows, genuinely
  std::vector<float> S(40 * 40, 0.0f);
  for (int i = 0; i < 40; ++i) S[i + 40 * i] = 2.0f;
  S[41] = std::nanf("");
  std::vector<int> piv(40);
  EXPECT_FALSE(blas_library_getrf(40, 40, S.data(), 40, piv.data(), &info)) << "a NaN went to the library";
  // Up to order 32, hetlu's own loops (solvers/tiny_lu.hpp) factor it as LAPACK's sgetf2: the NaN is
  // column 2's pivot (isamax's first largest) and spreads down L's column.
  std::vector<float> T(16, 0.0f);
  for (int i = 0; i < 4; ++i) T[i + 4 * i] = 2.0f;
  T[5] = std::nanf("");
  ASSERT_TRUE(blas_library_getrf(4, 4, T.data(), 4, piv.data(), &info));
  EXPECT_EQ(info, 0);
  EXPECT_EQ(std::vector<int>(piv.begin(), piv.begin() + 4), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_TRUE(std::isnan(T[2 + 4 * 1]) && std::isnan(T[3 + 4 * 1]));  // L below the NaN pivot
  EXPECT_EQ(T[2 + 4 * 2], 2.0f);  // ger skips the zero entries of U's row, as netlib's does
  EXPECT_EQ(T[3 + 4 * 3], 2.0f);
  EXPECT_EQ(T[0], 2.0f);
  // A subnormal pivot is divided by, as LAPACK divides: finite factors.
  std::vector<double> D = {1e-310, 1, 1, 1};  // column-major [[1e-310, 1], [1, 1]]: the pivot is 1
  std::vector<double> E = {1e-310, 0, 1, 1};  // [[1e-310, 1], [0, 1]]: the pivot is 1e-310 alone
  for (auto* M : {&D, &E}) {
    ASSERT_TRUE(blas_library_getrf(2, 2, M->data(), 2, piv.data(), &info));
    EXPECT_EQ(info, 0);
    for (double v : *M) EXPECT_TRUE(std::isfinite(v)) << v;
  }
}

// Entries far above the scan's bound whose product is a subnormal pivot: [[1, e], [e, 0]] at the top
// of an identity of order 40, e = 2^-531 in double (2^-65 in single), pivot 2 = -e^2 (found by a
// hostile test on 2026-11-27: the library's factors were refused after the fact, with A gone, and
// the drop-in aborted its caller). The library's call now keeps A (and B): refused, they are put
// back as they were and the call is hetlu's, which divides by the pivot as LAPACK does.
template <class T>
void expect_a_product_pivot_goes_to_hetlu_lu() {
  using R = scalar::real_t<T>;
  const int n = 40;
  const R e = std::ldexp(R(1), std::is_same_v<R, double> ? -531 : -65);
  std::vector<T> A(static_cast<size_t>(n) * n, T(0));
  for (int i = 0; i < n; ++i) A[i + i * n] = T(1);
  A[1] = A[n] = T(e), A[1 + n] = T(0);
  std::vector<T> B(static_cast<size_t>(n) * 2, T(1));
  B[1] = B[n + 1] = T(e);  // x = ones with x(2) = 0
  const std::vector<T> A0 = A, B0 = B;
  std::vector<int> ipiv(n);
  int info = -1;
  EXPECT_FALSE(blas_library_gesv(n, 2, A.data(), n, ipiv.data(), B.data(), n, &info)) << "the library's answer kept";
  EXPECT_EQ(A, A0) << "A not put back";
  EXPECT_EQ(B, B0) << "B not put back";
  EXPECT_FALSE(blas_library_getrf(n, n, A.data(), n, ipiv.data(), &info));
  EXPECT_EQ(A, A0);
  Options small = with_db("/nonexistent/none.db");
  small.small_matrix_path = true;
  const auto r = hetlu::gesv(Solver::gepp, n, 2, A.data(), n, ipiv.data(), B.data(), n, small);
  EXPECT_EQ(r.info, 0);
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < n; ++i) EXPECT_EQ(B[i + j * n], T(i == 1 ? 0 : 1)) << i << ", " << j;
}

TEST(SmallMatrixCrossover, APivotThatIsAProductOfSmallEntriesGoesToHetlusLuWithAAsItWas) {
  expect_a_product_pivot_goes_to_hetlu_lu<double>();
  expect_a_product_pivot_goes_to_hetlu_lu<float>();
  expect_a_product_pivot_goes_to_hetlu_lu<std::complex<double>>();
  expect_a_product_pivot_goes_to_hetlu_lu<std::complex<float>>();
}

// getrs on the small path: OpenBLAS's dgetrs_ with NRHS > 1 multiplies by each pivot's reciprocal
// (U(1,1) = 1e-310 gave x = Inf where it is 1e10), so such factors are declined above order 32
// (hetlu's solve answers) and solved by dividing, as LAPACK, up to it; pivots outside [1, n] are
// declined too (the full way names them), and the library's answer is LAPACK's otherwise. hetlu's
// own getrs divides by such pivots too (it used the library's trsm, and answered Inf).
TEST(SmallMatrixCrossover, GetrsDeclinesWhatTheLibraryMishandles) {
  for (int n : {8, 40}) {
    SCOPED_TRACE(n);
    std::vector<double> LU(static_cast<size_t>(n) * n, 0.0), B(static_cast<size_t>(n) * 3, 1.0);
    std::vector<int> ipiv(n);
    for (int i = 0; i < n; ++i) LU[i + i * n] = 1, ipiv[i] = i + 1;
    LU[0] = 1e-310;
    for (int j = 0; j < 3; ++j) B[j * n] = 1e-300;
    const bool solved = blas_library_getrs(Transpose::no, n, 3, LU.data(), n, ipiv.data(), B.data(), n);
    EXPECT_EQ(solved, n <= 32);
    if (solved) {
      for (int j = 0; j < 3; ++j) EXPECT_NEAR(B[j * n], 1e10, 1e4);  // 1e-310 holds 14 digits
    }
    std::vector<double> X(static_cast<size_t>(n) * 3, 1.0);  // hetlu's own getrs divides too
    for (int j = 0; j < 3; ++j) X[j * n] = 1e-300;
    hetlu::getrs(Transpose::no, n, 3, LU.data(), n, ipiv.data(), X.data(), n);
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(X[j * n], 1e10, 1e4);
    std::fill(X.begin(), X.end(), 1.0);
    for (int j = 0; j < 3; ++j) X[j * n] = 1e-300;
    hetlu::getrs(Transpose::yes, n, 3, LU.data(), n, ipiv.data(), X.data(), n);
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(X[j * n], 1e10, 1e4);
    // 1 / max itself (2^-1024: its reciprocal is Inf) is declined too, and hetlu's solve divides.
    LU[0] = 1 / std::numeric_limits<double>::max();
    for (int j = 0; j < 3; ++j) X[j * n] = 1e-300;
    EXPECT_EQ(blas_library_getrs(Transpose::no, n, 3, LU.data(), n, ipiv.data(), X.data(), n), n <= 32);
    for (int j = 0; j < 3; ++j) X[j * n] = 1e-300;
    hetlu::getrs(Transpose::no, n, 3, LU.data(), n, ipiv.data(), X.data(), n);
    for (int j = 0; j < 3; ++j) EXPECT_TRUE(std::isfinite(X[j * n]) && X[j * n] > 1e8) << X[j * n];
    ipiv[1] = n + 1;
    EXPECT_FALSE(blas_library_getrs(Transpose::yes, n, 1, LU.data(), n, ipiv.data(), B.data(), n));
  }
  const int n = 40;
  std::vector<double> A = dominant_matrix(n), B(static_cast<size_t>(n) * 2);
  std::vector<int> ipiv(n);
  ASSERT_EQ(hetlu::getrf(Solver::gepp, n, n, A.data(), n, ipiv.data()).info, 0);
  for (Transpose op : {Transpose::no, Transpose::yes}) {
    std::vector<double> b(static_cast<size_t>(n) * 2, 1.0), reference = b;
    ASSERT_TRUE(blas_library_getrs(op, n, 2, A.data(), n, ipiv.data(), b.data(), n));
    hetlu::getrs(op, n, 2, A.data(), n, ipiv.data(), reference.data(), n);
    for (int i = 0; i < 2 * n; ++i) EXPECT_NEAR(b[i], reference[i], 1e-12) << i;
  }
}

TEST(SmallMatrixCrossover, TheBlasLibrarysOwnLuIsLapacks) {
  // The small-matrix path: the BLAS library's getrf and gesv, found in that library itself.
  const int n = 40;
  std::vector<double> A = dominant_matrix(n), reference = A, b(n, 1.0);
  std::vector<int> ipiv(n), reference_ipiv(n);
  int info = -1;
  ASSERT_TRUE(blas_library_getrf(n, n, A.data(), n, ipiv.data(), &info));
  EXPECT_EQ(info, 0);
  EXPECT_EQ(hetlu::getrf(Solver::gepp, n, n, reference.data(), n, reference_ipiv.data()).info, 0);
  for (int i = 0; i < n * n; ++i) EXPECT_NEAR(A[i], reference[i], 1e-12 * n) << i;
  std::vector<double> B = dominant_matrix(n), x = b;
  ASSERT_TRUE(blas_library_gesv(n, 1, B.data(), n, ipiv.data(), x.data(), n, &info));
  EXPECT_EQ(info, 0);
  EXPECT_LT(distance_from_ones(n, dominant_matrix(n), x), 1e-12);
  std::vector<float> S = {1, 2, 2, 4};  // singular: LAPACK's info = 2
  std::vector<int> piv2(2);
  ASSERT_TRUE(blas_library_getrf(2, 2, S.data(), 2, piv2.data(), &info));
  EXPECT_EQ(info, 2);
}

// A HETLU_* switch with garbage in it is its default, said once (it was ignored without a word).
TEST(EnvChoice, KnownValuesAreTakenGarbageIsTheDefaultSaidOnce) {
  ::unsetenv("HETLU_TEST_SWITCH");
  EXPECT_EQ(detail::env_choice("HETLU_TEST_SWITCH", {"0", "1"}, "0"), "0");
  ::setenv("HETLU_TEST_SWITCH", "1", 1);
  EXPECT_EQ(detail::env_choice("HETLU_TEST_SWITCH", {"0", "1"}, "0"), "1");
  ::setenv("HETLU_TEST_SWITCH", "yes", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(detail::env_choice("HETLU_TEST_SWITCH", {"0", "1"}, "0"), "0");
  EXPECT_EQ(detail::env_choice("HETLU_TEST_SWITCH", {"0", "1"}, "0"), "0");
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "hetlu: warning: HETLU_TEST_SWITCH='yes' is not one of 0, 1: taken as 0\n");
  // A value is quoted printable and cut (ESC [ 2 J and a newline were echoed raw).
  ::setenv("HETLU_TEST_SWITCH_2", ("\x1b[2J\nhetlu: fake" + std::string(500, 'A')).c_str(), 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(detail::env_choice("HETLU_TEST_SWITCH_2", {"0", "1"}, "0"), "0");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "hetlu: warning: HETLU_TEST_SWITCH_2='\\x1B[2J\\nhetlu: fake" +
                                                        std::string(40 - 16, 'A') +
                                                        "...' is not one of 0, 1: taken as 0\n");
  ::unsetenv("HETLU_TEST_SWITCH");
  ::unsetenv("HETLU_TEST_SWITCH_2");
}
