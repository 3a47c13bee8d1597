// hetlu::auto_precision_gesv (#15.3): the mixed path where the model prices it faster and it can
// converge, else the double solver; never a worse omega than the double solver's, a matrix beyond
// mixed's reach detected after one refinement step and remembered for the next calls.
#include <gtest/gtest.h>

#include <complex>
#include <string>
#include <thread>
#include <vector>

#include "../common/temp_dir.hpp"
#include "api/mixed.hpp"
#include "db/records.hpp"
#include "hetlu/hetlu.hpp"
#include "solvers/accuracy.hpp"
#include "tests/api/conditioned_systems.hpp"

using namespace hetlu;
using namespace hetlu::testing;

namespace {

struct Outcome {
  SolveReport report;
  std::vector<double> X;
  double omega;
  bool a_unchanged;
};

Options no_database() {
  Options options;
  options.use_database = false;
  return options;
}

template <class T>
Outcome solve_auto(const System<T>& s, Solver solver = Solver::gepp, const Options& options = no_database()) {
  auto A = s.A;
  std::vector<T> X(s.B.size());
  std::vector<int> ipiv(s.n);
  Outcome out;
  out.report = auto_precision_gesv(solver, s.n, 2, A.data(), s.n, ipiv.data(), s.B.data(), s.n, X.data(), s.n, options);
  out.omega = accuracy::backward_error(s.n, 2, s.A.data(), s.n, X.data(), s.n, s.B.data(), s.n);
  out.a_unchanged = A == s.A;
  return out;
}

// omega of the double solver (hetlu's GEPP, as auto's fallback) on the same system.
double double_solver_omega(const System<double>& s) {
  auto A = s.A, X = s.B;
  std::vector<int> ipiv(s.n);
  EXPECT_EQ(gesv(Solver::gepp, s.n, 2, A.data(), s.n, ipiv.data(), X.data(), s.n, no_database()).info, 0);
  return accuracy::backward_error(s.n, 2, s.A.data(), s.n, X.data(), s.n, s.B.data(), s.n);
}

bool says(const std::string& text, const char* what) {
  return text.find(what) != std::string::npos;
}

// n = 1000: where the model prices single's LU well below double's on any machine with SGEMM at
// twice DGEMM's rate (refinement's O(n^2) passes are a few percent of it).
constexpr int order = 1000;

// Each test starts with no memory of earlier fall-backs. Where the model has no rate to price
// with (no detected frequency or flags), auto answers in double and the mixed cases are skipped.
class AutoPrecision : public ::testing::Test {
 protected:
  void SetUp() override {
    detail::forget_mixed_fallbacks();
    const Plan mixed = resolve_plan(Solver::gepp, Precision::mixed, order, order, no_database()).plan;
    const Plan dbl = resolve_plan(Solver::gepp, Precision::double_, order, order, no_database()).plan;
    priced_mixed =
        mixed.predicted_seconds && dbl.predicted_seconds && *mixed.predicted_seconds < 0.9 * *dbl.predicted_seconds;
  }
  bool priced_mixed = false;
};

#define SKIP_UNLESS_MIXED_IS_PRICED \
  if (!priced_mixed) GTEST_SKIP() << "the model does not price mixed below double at n = " << order << " here"

TEST_F(AutoPrecision, AWellConditionedSystemIsAnsweredInMixedWithOmegaNoWorseThanDouble) {
  SKIP_UNLESS_MIXED_IS_PRICED;
  for (Solver solver : {Solver::gepp, Solver::calu}) {
    SCOPED_TRACE(to_string(solver));
    const auto s = conditioned<double>(order, 1e3, 11);
    const auto out = solve_auto(s, solver);
    EXPECT_EQ(out.report.info, 0);
    EXPECT_EQ(out.report.plan.precision, Precision::mixed) << out.report.auto_choice;
    EXPECT_TRUE(says(out.report.auto_choice, "predicted")) << out.report.auto_choice;
    EXPECT_TRUE(out.a_unchanged);
    ASSERT_TRUE(out.report.backward_error.has_value());
    EXPECT_DOUBLE_EQ(*out.report.backward_error, out.omega);
    // Refined until omega stopped halving: at double's own level or better.
    EXPECT_LE(out.omega, double_solver_omega(s) + 2 * accuracy::unit_roundoff<double>());
    EXPECT_LT(out.omega, 4 * accuracy::unit_roundoff<double>()) << out.report.note;
  }
}

// kappa_2 = 1e8: refinement from single still converges, in more steps; omega is still double's.
TEST_F(AutoPrecision, AModeratelyIllConditionedSystemStaysMixedAndAccurate) {
  SKIP_UNLESS_MIXED_IS_PRICED;
  const auto s = conditioned<double>(order, 1e8, 12);
  const auto out = solve_auto(s);
  EXPECT_EQ(out.report.plan.precision, Precision::mixed) << out.report.auto_choice << "; " << out.report.note;
  EXPECT_LE(out.omega, double_solver_omega(s) + 2 * accuracy::unit_roundoff<double>());
}

TEST_F(AutoPrecision, BeyondReachTheDoubleSolverAnswersAfterOneStepAndIsRemembered) {
  SKIP_UNLESS_MIXED_IS_PRICED;
  const int n = order + 1;
  const auto s = conditioned<double>(n, 1e13, 13);
  const auto first = solve_auto(s);
  EXPECT_EQ(first.report.info, 0);
  EXPECT_EQ(first.report.plan.precision, Precision::double_);
  EXPECT_FALSE(first.a_unchanged);  // the double factors, as dsgesv leaves them
  EXPECT_TRUE(says(first.report.note, "1 step(s) of classical refinement")) << first.report.note;
  ASSERT_FALSE(first.report.warnings.empty());
  EXPECT_TRUE(says(first.report.warnings.back(), "beyond mixed precision's reach") ||
              says(first.report.warnings.back(), "not half"))
      << first.report.warnings.back();
  EXPECT_TRUE(says(first.report.auto_choice, "then double")) << first.report.auto_choice;
  const double double_omega = double_solver_omega(s);
  EXPECT_LE(first.omega, 30 * (n + 1) * accuracy::unit_roundoff<double>());
  // The next 8 calls of this kind skip the single factorization; the ninth tries mixed again.
  for (int call = 1; call <= 8; ++call) {
    SCOPED_TRACE(call);
    const auto next = solve_auto(s);
    EXPECT_EQ(next.report.plan.precision, Precision::double_);
    EXPECT_TRUE(says(next.report.auto_choice, "fell back on this solver and order's last try"))
        << next.report.auto_choice;
    EXPECT_FALSE(says(next.report.note, "classical")) << next.report.note;  // no single path at all
    EXPECT_DOUBLE_EQ(next.omega, double_omega);                             // the double solver's answer
  }
  const auto retried = solve_auto(s);
  EXPECT_TRUE(says(retried.report.auto_choice, "predicted")) << retried.report.auto_choice;
  EXPECT_TRUE(says(retried.report.note, "1 step(s) of classical refinement")) << retried.report.note;
  // Another order, or a solver, has a memory of its own.
  const auto calu = solve_auto(s, Solver::calu);
  EXPECT_FALSE(says(calu.report.auto_choice, "last try")) << calu.report.auto_choice;
}

TEST_F(AutoPrecision, ComplexSystemsAreAnsweredAccurately) {
  const auto s = conditioned<std::complex<double>>(400, 1e4, 14);
  auto A = s.A;
  std::vector<std::complex<double>> X(s.B.size());
  std::vector<int> ipiv(s.n);
  const auto report = auto_precision_gesv(Solver::gepp, s.n, 2, A.data(), s.n, ipiv.data(), s.B.data(), s.n, X.data(),
                                          s.n, no_database());
  EXPECT_EQ(report.info, 0);
  EXPECT_FALSE(report.auto_choice.empty());
  EXPECT_LT(accuracy::backward_error(s.n, 2, s.A.data(), s.n, X.data(), s.n, s.B.data(), s.n),
            30 * 401 * accuracy::unit_roundoff<double>());
}

// PRBT's mixed path runs on the hybrid target too (mixed_device.hpp): the model weighs it against
// double there, as elsewhere (before, auto answered in double, saying "CPU target only").
TEST_F(AutoPrecision, PrbtOnTheHybridTargetIsWeighedByTheModel) {
  const auto s = conditioned<double>(64, 10, 15);
  Options hybrid = no_database();
  hybrid.target = Target::hybrid;
  hybrid.overrides.devices = from_string<DeviceSet>("host:1");
  const auto out = solve_auto(s, Solver::prbt, hybrid);
  EXPECT_TRUE(says(out.report.auto_choice, "predicted")) << out.report.auto_choice;  // the model weighed both
  if (out.report.plan.precision == Precision::mixed) {
    EXPECT_TRUE(says(out.report.note, "on the device"));
  }
  EXPECT_LT(out.omega, 30 * 65 * accuracy::unit_roundoff<double>());
}

TEST_F(AutoPrecision, WhereBothPrecisionsWereTunedAtThisOrderTheirMeasuredTimesDecide) {
  // The tuner measured both (calibrate --precision double,mixed): its times decide, not the model's
  // prices, whichever way they point; a plan tuned at another order leaves it to the model.
  test_support::TempDir dir;
  const std::string path = dir.file("t.db");
  const auto store = [&](double mixed_seconds, double double_seconds, int n) {
    auto database = db::Database::open(path, db::Database::Mode::read_write);
    const auto id = db::ensure_machine(database, db::fingerprint(this_machine()));
    for (const auto& [precision, seconds] :
         {std::pair{Precision::mixed, mixed_seconds}, std::pair{Precision::double_, double_seconds}}) {
      db::BestPlan b;
      b.machine_id = id;
      b.m = b.n = n;
      b.plan.nb = 32;
      b.plan.precision = precision;
      b.median_s = seconds;
      b.gflops = 1;
      db::upsert_best_plan(database, b);
    }
    clear_plan_cache();  // as calibrate does
  };
  Options options;
  options.db_path = path;
  const auto s = conditioned<double>(200, 1e3, 21);
  auto answer = [&] {
    auto A = s.A;
    std::vector<double> X(s.n);
    std::vector<int> ipiv(s.n);
    return auto_precision_gesv(Solver::gepp, s.n, 1, A.data(), s.n, ipiv.data(), s.B.data(), s.n, X.data(), s.n,
                               options);
  };
  store(0.5, 0.1, 200);
  auto report = answer();
  EXPECT_EQ(report.plan.precision, Precision::double_) << report.auto_choice;
  EXPECT_TRUE(says(report.auto_choice, "measured 0.5 s against double's 0.10")) << report.auto_choice;
  store(0.01, 0.1, 200);
  report = answer();
  EXPECT_EQ(report.plan.precision, Precision::mixed) << report.auto_choice;
  EXPECT_TRUE(says(report.auto_choice, "both tuned at this order")) << report.auto_choice;
  // Tuned at another order only: the model prices it.
  test_support::TempDir other;
  options.db_path = other.file("t.db");
  {
    auto database = db::Database::open(options.db_path, db::Database::Mode::read_write);
    const auto id = db::ensure_machine(database, db::fingerprint(this_machine()));
    db::BestPlan b;
    b.machine_id = id;
    b.m = b.n = 400;
    b.plan.nb = 32;
    b.plan.precision = Precision::mixed;
    b.median_s = 0.01;
    b.gflops = 1;
    db::upsert_best_plan(database, b);
    b.plan.precision = Precision::double_;
    db::upsert_best_plan(database, b);
  }
  clear_plan_cache();
  report = answer();
  EXPECT_FALSE(says(report.auto_choice, "measured")) << report.auto_choice;
}

TEST_F(AutoPrecision, SingularAndBadArguments) {
  auto s = conditioned<double>(50, 10, 16);
  for (int i = 0; i < 50; ++i) s.A[i + 50 * 9] = 0;  // column 10 zero
  EXPECT_GT(solve_auto(s).report.info, 0);
  std::vector<double> A(4, 1.0), B(2, 1.0), X(2);
  std::vector<int> ipiv(2);
  EXPECT_THROW(auto_precision_gesv(Solver::gepp, 2, 1, A.data(), 1, ipiv.data(), B.data(), 2, X.data(), 2),
               InvalidArgument);
  EXPECT_THROW(auto_precision_gesv(Solver::gepp, 2, 1, A.data(), 2, ipiv.data(), B.data(), 2, X.data(), 1),
               InvalidArgument);
  EXPECT_THROW(
      auto_precision_gesv(Solver::gepp, 2, 1, A.data(), 2, ipiv.data(), B.data(), 2, static_cast<double*>(nullptr), 2),
      InvalidArgument);
  B[1] = std::nan("");
  EXPECT_THROW(auto_precision_gesv(Solver::gepp, 2, 1, A.data(), 2, ipiv.data(), B.data(), 2, X.data(), 2),
               InvalidArgument);
  double a = 1, b = 1, x = 0;
  int p = 0;
  EXPECT_EQ(auto_precision_gesv(Solver::gepp, 0, 1, &a, 1, &p, &b, 1, &x, 1).info, 0);
}

// A singular A with B in its range: the first call's mixed refinement converges but is not vouched
// for, and double answers with A said singular to working precision. The calls that memory then sends
// straight to double say so too: rcond from dgecon's estimate of the double factors, and the warning.
TEST_F(AutoPrecision, ASingularMatrixRememberedIsStillSaidToBeSingular) {
  SKIP_UNLESS_MIXED_IS_PRICED;
  const int n = order + 2;
  System<double> s{n, conditioned<double>(n, 10, 17).A, std::vector<double>(2 * static_cast<size_t>(n), 0.0)};
  for (int j = 0; j < n; ++j)
    s.A[n - 1 + static_cast<size_t>(j) * n] = s.A[static_cast<size_t>(j) * n] + s.A[1 + static_cast<size_t>(j) * n];
  for (int r = 0; r < 2; ++r)  // B = A x0 with x0 = (1, 2, ..., n) and its reverse
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        s.B[i + static_cast<size_t>(r) * n] += s.A[i + static_cast<size_t>(j) * n] * (r == 0 ? j + 1 : n - j);
  auto said_singular = [](const SolveReport& report) {
    for (const auto& w : report.warnings)
      if (says(w, "singular to working precision")) return true;
    return report.info > 0;
  };
  const auto first = solve_auto(s);
  EXPECT_TRUE(said_singular(first.report)) << first.report.note;
  EXPECT_TRUE(says(first.report.auto_choice, "then double")) << first.report.auto_choice;
  const auto next = solve_auto(s);
  EXPECT_TRUE(says(next.report.auto_choice, "last try")) << next.report.auto_choice;
  EXPECT_TRUE(said_singular(next.report)) << next.report.note;
  if (next.report.info == 0) {
    ASSERT_TRUE(next.report.rcond.has_value());
    EXPECT_LT(*next.report.rcond, 10 * accuracy::unit_roundoff<double>());
  }
}

// Several threads at once on one kind of call (GEPP at one order) beyond mixed's reach: every
// answer is right, and each thread's second call finds the memory another (or its own first) left.
TEST_F(AutoPrecision, ConcurrentCallsShareTheMemoryAndAreEachRight) {
  SKIP_UNLESS_MIXED_IS_PRICED;
  const auto s = conditioned<double>(order, 1e13, 20);
  std::vector<std::thread> threads;
  std::vector<double> omegas(8);
  std::vector<std::string> second(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      omegas[2 * t] = solve_auto(s).omega;
      const auto again = solve_auto(s);
      omegas[2 * t + 1] = again.omega;
      second[t] = again.report.auto_choice;
    });
  for (auto& t : threads) t.join();
  for (double omega : omegas) EXPECT_LT(omega, 30 * (order + 1) * accuracy::unit_roundoff<double>());
  for (const auto& why : second) EXPECT_TRUE(says(why, "last try")) << why;
}

}  // namespace
