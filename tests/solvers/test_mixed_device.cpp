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
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "solvers/accuracy.hpp"
#include "solvers/backend.hpp"
#include "solvers/lu.hpp"
#include "solvers/mixed_device.hpp"
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
  // The double solver as the API resolves it: GEPP for PRBT (GENP has nothing to fall back to).
  const Solver fallback = solver == Solver::prbt ? Solver::gepp : solver;
  Plan low = hybrid_plan(solver, Precision::single, d, kind), high = hybrid_plan(fallback, Precision::double_, d, kind);
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
  for (Solver solver : {Solver::gepp, Solver::prbt})  // PRBT: hybrid GENP of the CPUs' randomized copy
    for (int n : {400, 300})
      for (int d : {0, 2}) {
        SCOPED_TRACE(to_string(solver) + " n=" + std::to_string(n) + " d=" + std::to_string(d));
        const auto s = conditioned<double>(n, 1e3, 7);
        const auto out = solve(s, 1, solver, d);
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
  const auto s = conditioned<double>(n, 1e15, 2);  // far beyond single's reach and GMRES's budget
  const auto out = solve(s, 1, Solver::gepp, 0, {}, GetParam());
  ASSERT_EQ(out.info, 0);
  EXPECT_EQ(out.details.iter, -31);
  EXPECT_GE(out.details.gmres_iterations, 1);  // tried on the device first
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

// kappa u_single = 6e3 and 6e4: classical refinement stalls, GMRES preconditioned by the single
// factors in double converges on the device as it does on the CPUs (dsgesv's semantics: no
// certificate), at every share d, real and complex, with one and with three right-hand sides.
TEST_P(MixedOnDevice, GmresRefinementRunsThereWhereClassicalStalls) {
  const int n = 120;
  for (double cond : {1e11, 1e12})
    for (int d : {0, 2}) {
      SCOPED_TRACE("cond " + std::to_string(cond) + " d=" + std::to_string(d));
      auto s = conditioned<double>(n, cond, 6, hetlu::testing::Spectrum::one_small);
      s.B.resize(static_cast<size_t>(n) * 3);
      for (size_t i = 2 * n; i < s.B.size(); ++i) s.B[i] = std::cos(0.9 * double(i));
      for (int nrhs : {1, 3}) {
        const auto out = solve(s, nrhs, d == 0 ? Solver::gepp : Solver::calu, d, {}, GetParam());
        ASSERT_EQ(out.info, 0);
        EXPECT_TRUE(out.details.refined_on_device) << out.details.note;
        EXPECT_GE(out.details.iter, 1);
        EXPECT_GE(out.details.gmres_steps, 1);
        EXPECT_GE(out.details.gmres_iterations, nrhs);
        EXPECT_EQ(out.details.phase_seconds.back().first, "refinement on the device");
        EXPECT_LE(out.omega, 1e3 * n * accuracy::unit_roundoff<double>());  // dsgesv's normwise test, not omega's
      }
    }
  const auto complex =
      solve(conditioned<zd>(64, 1e12, 7, hetlu::testing::Spectrum::one_small), 1, Solver::gepp, 0, {}, GetParam());
  ASSERT_EQ(complex.info, 0);
  EXPECT_GE(complex.details.iter, 1);
  EXPECT_GE(complex.details.gmres_steps, 1);
  EXPECT_TRUE(complex.details.refined_on_device);
}

// n = 250 in 1 MiB: A in double and the single factors fit (0.75 MB), the factors widened to double
// beside them (0.5 MB more) do not: the double solver answers where classical refinement stalled, and
// the note says why GMRES did not run.
TEST(MixedDevice, WhereTheWidenedFactorsDoNotFitTheDoubleSolverAnswers) {
  const ScopedVariable limit("HETLU_HOST_BACKEND_MEMORY_MIB", "1");
  const int n = 250;
  const auto out = solve(conditioned<double>(n, 1e11, 6, hetlu::testing::Spectrum::one_small), 1, Solver::gepp, 0);
  ASSERT_EQ(out.info, 0);
  EXPECT_TRUE(out.details.refined_on_device);
  EXPECT_EQ(out.details.iter, -31);
  EXPECT_EQ(out.details.gmres_steps, 0);
  EXPECT_NE(out.details.note.find("GMRES-based refinement: the device cannot hold"), std::string::npos)
      << out.details.note;
  EXPECT_EQ(out.details.phase_seconds.back().first, "the double solver");
  EXPECT_LE(out.omega, 30 * (n + 1) * accuracy::unit_roundoff<double>());
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
    EXPECT_EQ(there.details.a_norm1.value, host.details.a_norm1.value);
    EXPECT_GT(there.details.a_norm1.value, 0);
  }
}

// Where the device rounds A: an entry beyond single's range is found on the packing (ITER -2, the
// double solver answers), and a NaN or Inf is refused before the factorization goes on, naming the
// entry, with A, B, X and ipiv as they were. Without the check (LAPACK's mode), a NaN is no error.
// GEPP's packing feeds the factorization's upload batch by batch; PRBT's goes up whole first.
static void packing_checks_a(Solver solver, BackendKind kind) {
  SCOPED_TRACE(to_string(solver));
  const int n = 150;
  auto s = conditioned<double>(n, 1e2, 13);
  s.A[5 + static_cast<size_t>(n) * 140] = 1e39;  // column 141: in the last batch
  auto out = solve(s, 1, solver, 0, {}, kind);
  ASSERT_EQ(out.info, 0);
  EXPECT_EQ(out.details.iter, -2);
  EXPECT_EQ(out.details.phase_seconds.back().first, "the double solver");
  EXPECT_LE(out.omega, 30 * (n + 1) * accuracy::unit_roundoff<double>());

  // Stopped early, ||A||_1 still covers the whole of A (the double solver's condition estimate takes
  // it): a large column after the stop counts, as where the host rounds (GEPP at d > 0; PRBT rounds
  // on the device at any d, and the bound alone tells).
  {
    auto t = conditioned<double>(n, 1e2, 15);
    t.A[0] = 1e39;
    for (int i = 0; i < n; ++i) t.A[i + static_cast<size_t>(n) * (n - 1)] = i % 2 ? 3.3e38 : -3.3e38;
    const auto there = solve(t, 1, solver, 0, {}, kind);
    const auto host = solve(t, 1, solver, 2, {}, kind);
    EXPECT_EQ(there.details.iter, -2);
    EXPECT_EQ(host.details.iter, -2);
    EXPECT_EQ(there.details.a_norm1.value, host.details.a_norm1.value);
    EXPECT_GT(there.details.a_norm1.value, 1e40);
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
    Plan low = hybrid_plan(solver, Precision::single, 0, kind);
    Plan high = hybrid_plan(solver == Solver::prbt ? Solver::gepp : solver, Precision::double_, 0, kind);
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

TEST_P(MixedOnDevice, ThePackingThatFeedsTheDeviceChecksA) {
  packing_checks_a(Solver::gepp, GetParam());
  packing_checks_a(Solver::prbt, GetParam());
}

// PRBT in mixed precision on the device: A up in double, rounded, padded (n = 149 and 150 pad to
// 152; 148 is not padded) and randomized there, GENP at d = 0 and 2, refinement there, real and complex; the pivots
// are the identity, as PRBT's CPU path reports them.
TEST_P(MixedOnDevice, PrbtRandomizesAndFactorsThereInSingle) {
  for (int n : {148, 149, 150})  // no padding, 3 rows and 2 rows of it
    for (int d : {0, 2}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " d=" + std::to_string(d));
      const auto s = conditioned<double>(n, 1e3, 16);
      const auto out = solve(s, 2, Solver::prbt, d, MixedSafeguards::double_accuracy<double>(n), GetParam());
      ASSERT_EQ(out.info, 0);
      EXPECT_GE(out.details.iter, 0);
      EXPECT_TRUE(out.details.refined_on_device) << out.details.note;
      EXPECT_LE(out.omega, (n + 1) * accuracy::unit_roundoff<double>());
      EXPECT_GT(out.details.a_norm1.value, 0);
      for (int i = 0; i < n; ++i) ASSERT_EQ(out.ipiv[i], i + 1);
      EXPECT_EQ(out.details.phase_seconds.back().first, "refinement on the device");
    }
  const int n = 61;
  const auto complex =
      solve(conditioned<zd>(n, 1e2, 17), 1, Solver::prbt, 0, MixedSafeguards::double_accuracy<zd>(n), GetParam());
  ASSERT_EQ(complex.info, 0);
  EXPECT_GE(complex.details.iter, 0);
  EXPECT_TRUE(complex.details.refined_on_device);
  EXPECT_LE(complex.omega, (n + 1) * accuracy::unit_roundoff<zd>());
}

// Several devices: no one device holds the factors; the CPUs randomize, the devices share GENP's
// updates, and the CPUs refine, as PRBT's double solve does there.
TEST(MixedDevice, PrbtOnSeveralDevicesRefinesOnTheCpus) {
  const int n = 130;
  const auto s = conditioned<double>(n, 1e2, 20);
  auto A = s.A;
  std::vector<double> X(n);
  std::vector<int> ipiv(n);
  MixedDetails details;
  Plan low = hybrid_plan(Solver::prbt, Precision::single, 1, BackendKind::host),
       high = hybrid_plan(Solver::gepp, Precision::double_, 1, BackendKind::host);
  low.devices = high.devices = from_string<DeviceSet>("host:1,host:1");
  low.device_shares = high.device_shares = {0.5, 0.5};
  ASSERT_EQ(mixed_gesv(low, high, n, 1, A.data(), n, ipiv.data(), s.B.data(), n, X.data(), n, details,
                       MixedSafeguards::double_accuracy<double>(n)),
            0);
  EXPECT_GE(details.iter, 0);
  EXPECT_FALSE(details.refined_on_device);
  EXPECT_LE(accuracy::backward_error(n, 1, s.A.data(), n, X.data(), n, s.B.data(), n),
            (n + 1) * accuracy::unit_roundoff<double>());
  EXPECT_EQ(A, s.A);  // converged: A as it was
}

// An exactly zero column makes A singular however it is randomized: the packing finds it, and the
// double solver (GEPP) answers with LAPACK's info, as on the CPU target.
TEST_P(MixedOnDevice, PrbtFindsAZeroColumnOnThePacking) {
  const int n = 90;
  auto s = conditioned<double>(n, 10, 18);
  for (int i = 0; i < n; ++i) s.A[i + static_cast<size_t>(n) * 33] = 0;
  const auto out = solve(s, 1, Solver::prbt, 0, {}, GetParam());
  EXPECT_EQ(out.details.iter, -3);
  EXPECT_GT(out.info, 0);
}

// GMRES-based refinement's operators on the device, for every way the single factors are made:
// M^-1 A v is v to within the single factors' error (kappa(A) = 10), and it is M^-1 applied to A v
// computed on the host, to double's rounding; and the transposed single solve inverts A^T.
TEST_P(MixedOnDevice, GmresOperatorsApplyTheFactorsInDouble) {
  const int n = 98;
  const auto s = conditioned<double>(n, 10, 19);
  std::vector<double> v(n), Av(n, 0.0), Atv(n, 0.0), w(n);
  for (int i = 0; i < n; ++i) v[i] = std::sin(1.3 * i + 0.2);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      Av[i] += s.A[i + static_cast<size_t>(j) * n] * v[j];
      Atv[j] += s.A[i + static_cast<size_t>(j) * n] * v[i];
    }
  for (Solver solver : {Solver::gepp, Solver::calu, Solver::prbt}) {
    SCOPED_TRACE(to_string(solver));
    const Plan low = hybrid_plan(solver, Precision::single, 0, GetParam());
    variants::MixedDevice<double> device(low, n, s.A.data(), n);
    ASSERT_EQ(device.factor(nullptr, 1), std::optional<int>(0));
    ASSERT_TRUE(device.prepare_gmres());
    device.apply_preconditioned(v.data(), w.data());
    double off = 0, norm = 0;
    for (int i = 0; i < n; ++i) off = std::max(off, std::abs(w[i] - v[i])), norm = std::max(norm, std::abs(v[i]));
    EXPECT_LT(off / norm, 1e-4);
    EXPECT_GT(off / norm, 0);  // single's factors, not double's
    std::vector<double> z = Av;
    device.precondition(z.data());
    for (int i = 0; i < n; ++i) EXPECT_NEAR(z[i], w[i], 1e-13 * norm) << i;
    // The single solve with M^T (the condition estimate's), on A^T v: v again.
    std::vector<float> t(n);
    for (int i = 0; i < n; ++i) t[i] = float(Atv[i]);
    device.solve(t.data(), n, 1, Transpose::yes);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(t[i], v[i], 1e-4 * norm) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, MixedOnDevice, ::testing::Values(BackendKind::host, BackendKind::cuda),
                         [](const auto& param_info) { return to_string(param_info.param); });
