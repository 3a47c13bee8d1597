// Mixed precision on one device (solvers/mixed_device.hpp), on every backend (complex and a device
// memory limit on the host backend): the single factors
// and A in double stay on the device and refinement runs there, for GEPP and CALU at every CPU
// share d, real and complex; where the device cannot hold both, the CPUs refine and the note says
// why; every fallback to the double solver (a stall, a zero pivot in single, no right-hand side)
// answers as on the CPUs, and two threads' solves share the device in turn.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "solvers/accuracy.hpp"
#include "solvers/backend.hpp"
#include "solvers/lu.hpp"
#include "tests/api/conditioned_systems.hpp"

using namespace hetlu;
using namespace hetlu::solvers;
using hetlu::testing::conditioned;

namespace {

using zd = std::complex<double>;

Plan hybrid_plan(Solver solver, Precision precision, int d, BackendKind kind) {
  Plan p;
  p.solver = solver;
  p.precision = precision;
  p.target = Target::hybrid;
  p.devices = kind;
  p.nb = 32;
  p.ib = 8;
  p.panel_threads = 2;
  p.cpu_block_columns = d;
  return p;
}

struct Solved {
  int info = 0;
  MixedDetails details;
  double omega = 0;
  std::vector<int> ipiv;
};

template <class T>
Solved solve(const hetlu::testing::System<T>& s, int nrhs, Solver solver, int d, const MixedSafeguards& safeguards = {},
             BackendKind kind = BackendKind::host) {
  const int n = s.n;
  auto A = s.A;
  std::vector<T> X(static_cast<size_t>(n) * std::max(1, nrhs));
  Solved out;
  out.ipiv.assign(n, 0);
  Plan low = hybrid_plan(solver, Precision::single, d, kind), high = hybrid_plan(solver, Precision::double_, d, kind);
  out.info =
      mixed_gesv(low, high, n, nrhs, A.data(), n, out.ipiv.data(), s.B.data(), n, X.data(), n, out.details, safeguards);
  if (out.info == 0 && nrhs > 0)
    out.omega = accuracy::backward_error(n, nrhs, s.A.data(), n, X.data(), n, s.B.data(), n);
  return out;
}

// Restores a variable a test sets.
struct ScopedVariable {
  const char* name;
  ScopedVariable(const char* n, const char* value) : name(n) { ::setenv(name, value, 1); }
  ~ScopedVariable() { ::unsetenv(name); }
};

// The cases every backend this machine has runs (a GPU's too: device_run.sh's tests stage).
class MixedOnDevice : public ::testing::TestWithParam<BackendKind> {
 protected:
  void SetUp() override {
    std::string why;
    if (!backends::available(GetParam(), &why)) GTEST_SKIP() << why;
  }
};

}  // namespace

TEST_P(MixedOnDevice, RefinesThereForGeppAndCaluAtEveryShare) {
  const int n = 150;
  for (Solver solver : {Solver::gepp, Solver::calu})
    for (int d : {0, 1, 3}) {
      SCOPED_TRACE(to_string(solver) + " d=" + std::to_string(d));
      auto s = conditioned<double>(n, 1e3, 5);
      s.B.resize(static_cast<size_t>(n) * 3);
      for (size_t i = 0; i < s.B.size(); ++i) s.B[i] = std::sin(0.3 * double(i));
      const auto out = solve(s, 3, solver, d, MixedSafeguards::double_accuracy<double>(n), GetParam());
      ASSERT_EQ(out.info, 0);
      EXPECT_GE(out.details.iter, 0);
      EXPECT_TRUE(out.details.refined_on_device) << out.details.note;
      EXPECT_EQ(out.details.note, "");
      EXPECT_LE(out.omega, (n + 1) * accuracy::unit_roundoff<double>());
      for (int i = 0; i < n; ++i) ASSERT_TRUE(out.ipiv[i] >= i + 1 && out.ipiv[i] <= n) << i;
      ASSERT_FALSE(out.details.phase_seconds.empty());
      EXPECT_EQ(out.details.phase_seconds.back().first, "refinement on the device");
    }
}

TEST_P(MixedOnDevice, ComplexDoubleFromComplexSingleOnTheDevice) {
  const int n = 97;
  const auto s = conditioned<zd>(n, 1e3, 6);
  for (int d : {0, 2}) {
    const auto out = solve(s, 1, Solver::gepp, d, MixedSafeguards::double_accuracy<zd>(n), GetParam());
    ASSERT_EQ(out.info, 0);
    EXPECT_GE(out.details.iter, 0);
    EXPECT_TRUE(out.details.refined_on_device);
    EXPECT_LE(out.omega, (n + 1) * accuracy::unit_roundoff<zd>());
  }
}

// n = 400: A in double (1.28 MB) alone exceeds 1 MiB of device memory. n = 300: A in double
// (0.72 MB) fits, the single factors beside it (0.36 MB more) do not; the factorization's
// workspace is rounded again before the CPUs' path factors it.
TEST(MixedDevice, WhereTheDeviceHoldsNotBothTheCpusRefine) {
  const ScopedVariable limit("HETLU_HOST_BACKEND_MEMORY_MIB", "1");
  for (int n : {400, 300})
    for (int d : {0, 2}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " d=" + std::to_string(d));
      const auto s = conditioned<double>(n, 1e3, 7);
      const auto out = solve(s, 1, Solver::gepp, d);
      ASSERT_EQ(out.info, 0);
      EXPECT_GE(out.details.iter, 0);
      EXPECT_FALSE(out.details.refined_on_device);
      EXPECT_NE(out.details.note.find("refinement on the CPUs"), std::string::npos) << out.details.note;
      EXPECT_NE(out.details.note.find("out of memory"), std::string::npos) << out.details.note;
      EXPECT_LE(out.omega, 30 * (n + 1) * accuracy::unit_roundoff<double>());
    }
}

// n = 300 with 150 right-hand sides: A in double and the single factors fit in 2 MiB, the
// refinement's buffers for 150 columns beside them do not. They are taken before the factorization,
// so the CPUs refine (before, the first step threw).
TEST(MixedDevice, RefinementBuffersTooLargeForTheDeviceLeaveItToTheCpus) {
  const ScopedVariable limit("HETLU_HOST_BACKEND_MEMORY_MIB", "2");
  const int n = 300, nrhs = 150;
  auto s = conditioned<double>(n, 1e3, 11);
  s.B.resize(static_cast<size_t>(n) * nrhs);
  for (size_t i = 0; i < s.B.size(); ++i) s.B[i] = std::cos(0.7 * double(i));
  const auto out = solve(s, nrhs, Solver::gepp, 0);
  ASSERT_EQ(out.info, 0);
  EXPECT_GE(out.details.iter, 0);
  EXPECT_FALSE(out.details.refined_on_device);
  EXPECT_NE(out.details.note.find("out of memory"), std::string::npos) << out.details.note;
  EXPECT_LE(out.omega, 30 * (n + 1) * accuracy::unit_roundoff<double>());
  // One right-hand side fits beside them: on the device.
  EXPECT_TRUE(solve(s, 1, Solver::gepp, 0).details.refined_on_device);
}

TEST_P(MixedOnDevice, AStallHandsTheDeviceToTheDoubleSolver) {
  const int n = 120;
  const auto s = conditioned<double>(n, 1e15, 2);  // far beyond single's reach; no GMRES on the device
  const auto out = solve(s, 1, Solver::gepp, 0, {}, GetParam());
  ASSERT_EQ(out.info, 0);
  EXPECT_EQ(out.details.iter, -31);
  EXPECT_EQ(out.details.gmres_steps, 0);
  EXPECT_EQ(out.details.phase_seconds.back().first, "the double solver");
  EXPECT_LE(out.omega, 30 * (n + 1) * accuracy::unit_roundoff<double>());
  // Precision auto's safeguards: the condition estimate and the certificate solve on the device too.
  MixedSafeguards safeguards = MixedSafeguards::double_accuracy<double>(n);
  safeguards.max_condition = 1e6;
  const auto guarded = solve(conditioned<double>(n, 1e9, 3), 1, Solver::calu, 2, safeguards, GetParam());
  ASSERT_EQ(guarded.info, 0);
  EXPECT_LT(guarded.details.iter, 0);
  EXPECT_LE(guarded.omega, 30 * (n + 1) * accuracy::unit_roundoff<double>());
}

TEST_P(MixedOnDevice, ZeroPivotsInSingleAndNoRightHandSideAnswerAsDsgesv) {
  const int n = 60;
  auto s = conditioned<double>(n, 10, 8);
  for (int i = 0; i < n; ++i) s.A[i + static_cast<size_t>(n) * 6] = 0;  // column 7 zero
  auto out = solve(s, 2, Solver::gepp, 0, {}, GetParam());
  EXPECT_EQ(out.details.iter, -3);
  EXPECT_EQ(out.info, 7);
  const auto fine = conditioned<double>(n, 10, 9);
  out = solve(fine, 0, Solver::gepp, 1, {}, GetParam());
  EXPECT_EQ(out.info, 0);
  EXPECT_EQ(out.details.iter, 0);
  for (int i = 0; i < n; ++i) EXPECT_TRUE(out.ipiv[i] >= i + 1 && out.ipiv[i] <= n) << i;
}

TEST_P(MixedOnDevice, TwoThreadsShareItInTurn) {
  const int n = 200;
  const auto s = conditioned<double>(n, 1e2, 10);
  Solved first, second;
  std::thread other([&] { first = solve(s, 1, Solver::gepp, 0, {}, GetParam()); });
  second = solve(s, 1, Solver::calu, 2, {}, GetParam());
  other.join();
  for (const Solved* out : {&first, &second}) {
    EXPECT_EQ(out->info, 0);
    EXPECT_GE(out->details.iter, 0);
    EXPECT_TRUE(out->details.refined_on_device);
    EXPECT_LE(out->omega, 30 * (n + 1) * accuracy::unit_roundoff<double>());
  }
}

// With the panel on the device (d = 0) A goes up once, in double, and the device rounds it: no host
// rounding pass, and its packing takes the norms the host's rounding would (||A||_1 to the bit); with
// d > 0 the host rounds it, as before.
TEST_P(MixedOnDevice, WithThePanelThereTheDeviceRoundsA) {
  const int n = 173;  // not a multiple of the block size: the last batch is narrow
  const auto s = conditioned<double>(n, 1e3, 12);
  auto has_phase = [](const Solved& out, const std::string& name) {
    for (const auto& [phase, seconds] : out.details.phase_seconds)
      if (phase == name) return true;
    return false;
  };
  const std::string rounded_there = "factorization, A up in double beside it and rounded to single there";
  for (Solver solver : {Solver::gepp, Solver::calu}) {
    SCOPED_TRACE(to_string(solver));
    const auto there = solve(s, 1, solver, 0, MixedSafeguards::double_accuracy<double>(n), GetParam());
    const auto host = solve(s, 1, solver, 2, MixedSafeguards::double_accuracy<double>(n), GetParam());
    for (const Solved* out : {&there, &host}) {
      ASSERT_EQ(out->info, 0);
      EXPECT_GE(out->details.iter, 0);
      EXPECT_TRUE(out->details.refined_on_device) << out->details.note;
      EXPECT_LE(out->omega, (n + 1) * accuracy::unit_roundoff<double>());
    }
    EXPECT_TRUE(has_phase(there, rounded_there));
    EXPECT_FALSE(has_phase(there, "rounding to single"));
    EXPECT_TRUE(has_phase(host, "rounding to single"));
    EXPECT_FALSE(has_phase(host, rounded_there));
    EXPECT_EQ(there.details.a_norm1, host.details.a_norm1);
    EXPECT_GT(there.details.a_norm1, 0);
  }
}

// Where the device rounds A: an entry beyond single's range is found on the packing (ITER -2, the
// double solver answers), and a NaN or Inf is refused before the factorization goes on, naming the
// entry, with A, B, X and ipiv as they were. Without the check (LAPACK's mode), a NaN is no error.
TEST_P(MixedOnDevice, ThePackingThatFeedsTheDeviceChecksA) {
  const int n = 150;
  auto s = conditioned<double>(n, 1e2, 13);
  s.A[5 + static_cast<size_t>(n) * 140] = 1e39;  // column 141: in the last batch
  auto out = solve(s, 1, Solver::gepp, 0, {}, GetParam());
  ASSERT_EQ(out.info, 0);
  EXPECT_EQ(out.details.iter, -2);
  EXPECT_EQ(out.details.phase_seconds.back().first, "the double solver");
  EXPECT_LE(out.omega, 30 * (n + 1) * accuracy::unit_roundoff<double>());

  // Stopped early, ||A||_1 still covers the whole of A (the double solver's condition estimate takes
  // it): a large column after the stop counts, as where the host rounds (d > 0).
  {
    auto t = conditioned<double>(n, 1e2, 15);
    t.A[0] = 1e39;
    for (int i = 0; i < n; ++i) t.A[i + static_cast<size_t>(n) * (n - 1)] = i % 2 ? 3.3e38 : -3.3e38;
    const auto there = solve(t, 1, Solver::gepp, 0, {}, GetParam());
    const auto host = solve(t, 1, Solver::gepp, 2, {}, GetParam());
    EXPECT_EQ(there.details.iter, -2);
    EXPECT_EQ(host.details.iter, -2);
    EXPECT_EQ(there.details.a_norm1, host.details.a_norm1);
    EXPECT_GT(there.details.a_norm1, 1e40);
  }
  // An entry beyond single's range in the first batch stops the upload there; a NaN in a column that
  // never went up is still found (the whole of A is checked before ITER -2 is answered).
  for (double bad : {std::nan(""), -std::numeric_limits<double>::infinity(), 0.0}) {
    auto t = conditioned<double>(n, 1e2, 14);
    if (bad == 0.0) {  // the third case: a huge entry first, then a NaN far right
      t.A[2 + static_cast<size_t>(n) * 3] = -2e39;
      bad = std::nan("");
    }
    t.A[7 + static_cast<size_t>(n) * 100] = bad;
    auto A = t.A;
    std::vector<double> X(n, 3.0);
    std::vector<int> ipiv(n, -5);
    MixedDetails details;
    Plan low = hybrid_plan(Solver::gepp, Precision::single, 0, GetParam());
    Plan high = hybrid_plan(Solver::gepp, Precision::double_, 0, GetParam());
    try {
      mixed_gesv(low, high, n, 1, A.data(), n, ipiv.data(), t.B.data(), n, X.data(), n, details);
      ADD_FAILURE() << "no error for " << bad;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("A(8,101)"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(std::equal(A.begin(), A.end(), t.A.begin(),
                           [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }));
    EXPECT_EQ(X, std::vector<double>(n, 3.0));
    EXPECT_EQ(ipiv, std::vector<int>(n, -5));
    // LAPACK's mode: no check, and an answer that is no answer is not claimed as one (ITER < 0).
    const int info = mixed_gesv(low, high, n, 1, A.data(), n, ipiv.data(), t.B.data(), n, X.data(), n, details, {},
                                InputCheck::none);
    EXPECT_GE(info, 0);
    EXPECT_LT(details.iter, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, MixedOnDevice, ::testing::Values(BackendKind::host, BackendKind::cuda),
                         [](const auto& param_info) { return to_string(param_info.param); });
