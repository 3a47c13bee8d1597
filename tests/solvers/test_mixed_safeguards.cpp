// The pieces of precision auto below the API (#15.3): the single factors' transposed and
// conjugate-transposed solves (the condition estimate's A^-T products), for partial pivoting and
// PRBT's butterflies, real and complex; and mixed_gesv's safeguards: a hopeless system handed to
// the double solver after one step at any order, a zero column of B converged as LAPACK tests it.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <vector>

#include "solvers/accuracy.hpp"
#include "solvers/lu.hpp"
#include "solvers/lu_factors.hpp"
#include "tests/api/conditioned_systems.hpp"

using namespace hetlu;
using namespace hetlu::solvers;
using hetlu::testing::conditioned;

namespace {

using zd = std::complex<double>;

Plan plan_of(Solver solver, Precision precision) {
  Plan p;
  p.solver = solver;
  p.precision = precision;
  p.nb = 8;
  p.ib = 4;
  return p;
}

// y = op(A) x for the n x n A, op: none, transpose or conjugate transpose.
template <class T>
std::vector<T> apply(const std::vector<T>& A, int n, const std::vector<T>& x, Transpose op) {
  std::vector<T> y(n, T(0));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      T a = op == Transpose::no ? A[i + static_cast<size_t>(j) * n] : A[j + static_cast<size_t>(i) * n];
      if constexpr (std::is_same_v<T, zd>)
        if (op == Transpose::conjugate) a = std::conj(a);
      y[i] += a * x[j];
    }
  return y;
}

// The single factors (F: float or complex<float>, as the mixed path makes them) of a
// well-conditioned A solve op(A) x = b to single's accuracy.
template <class T, class F>
void solves_each_way(Solver solver) {
  const int n = 37;  // PRBT pads to 40
  const auto s = conditioned<T>(n, 100, 3);
  kernels::WorkspaceVector<F> low(s.A.begin(), s.A.end());
  LuFactors<F> factors;
  ASSERT_EQ(factor(plan_of(solver, Precision::single), n, std::move(low), factors), 0);
  for (Transpose op : {Transpose::no, Transpose::yes, Transpose::conjugate}) {
    SCOPED_TRACE(static_cast<int>(op));
    std::vector<F> x(s.B.begin(), s.B.begin() + n);
    factors.solve(x.data(), n, 1, op);
    const auto back = apply(s.A, n, std::vector<T>(x.begin(), x.end()), op);
    for (int i = 0; i < n; ++i) EXPECT_LT(std::abs(back[i] - s.B[i]), 1e-4) << i;
  }
}

TEST(MixedFactors, SolveWithTheTransposeAndConjugateTransposeForEachSolver) {
  for (Solver solver : {Solver::gepp, Solver::calu, Solver::prbt}) {
    SCOPED_TRACE(to_string(solver));
    solves_each_way<double, float>(solver);
    solves_each_way<zd, std::complex<float>>(solver);
  }
}

struct MixedRun {
  int info;
  MixedDetails details;
  std::vector<double> X;
};

MixedRun mixed(const hetlu::testing::System<double>& s, int nrhs, const MixedSafeguards& safeguards) {
  auto A = s.A;
  MixedRun run;
  run.X.resize(static_cast<size_t>(s.n) * nrhs);
  std::vector<int> ipiv(s.n);
  run.info = mixed_gesv(plan_of(Solver::gepp, Precision::single), plan_of(Solver::gepp, Precision::double_), s.n, nrhs,
                        A.data(), s.n, ipiv.data(), s.B.data(), s.n, run.X.data(), s.n, run.details, safeguards);
  return run;
}

MixedSafeguards auto_safeguards(int n) {
  MixedSafeguards g;
  g.max_condition = 5e10;
  g.target_omega = accuracy::unit_roundoff<double>();
  g.max_omega = (n + 1) * accuracy::unit_roundoff<double>();
  return g;
}

// At a small order, single's factors of a hopeless matrix give a kappa estimate that saturates
// below any limit: the first step's contraction alone sends it to double, after one step.
TEST(MixedSafeguards, AHopelessSystemGoesToDoubleAfterOneStepAtASmallOrder) {
  for (int n : {40, 200}) {
    SCOPED_TRACE(n);
    const auto s = conditioned<double>(n, 1e15, 4);
    const MixedRun run = mixed(s, 2, auto_safeguards(n));
    EXPECT_EQ(run.info, 0);
    EXPECT_EQ(run.details.iter, -1);
    EXPECT_EQ(run.details.classical_steps, 1);
    EXPECT_EQ(run.details.gmres_steps, 0);
    EXPECT_GE(run.details.first_contraction, 0.01);
    // Without the safeguards (dsgesv's semantics) the same system runs on to GMRES and -31.
    EXPECT_EQ(mixed(s, 2, {}).details.iter, -31);
  }
}

TEST(MixedSafeguards, OmegaIsPolishedAndStaysBelowTheBound) {
  const int n = 150;
  const auto s = conditioned<double>(n, 1e6, 5);
  const MixedRun plain = mixed(s, 2, {}), guarded = mixed(s, 2, auto_safeguards(n));
  ASSERT_GE(plain.details.iter, 0);
  ASSERT_GE(guarded.details.iter, 0);
  ASSERT_TRUE(guarded.details.backward_error.has_value());
  const double omega = accuracy::backward_error(n, 2, s.A.data(), n, guarded.X.data(), n, s.B.data(), n);
  EXPECT_DOUBLE_EQ(*guarded.details.backward_error, omega);
  EXPECT_LE(omega, accuracy::backward_error(n, 2, s.A.data(), n, plain.X.data(), n, s.B.data(), n));
  EXPECT_LE(omega, (n + 1) * accuracy::unit_roundoff<double>());
  // An impossible bound on omega makes the double solver answer (-31), with a right answer.
  MixedSafeguards strict = auto_safeguards(n);
  strict.max_omega = 1e-30;
  const MixedRun refused = mixed(s, 2, strict);
  EXPECT_EQ(refused.details.iter, -31);
  EXPECT_LT(accuracy::backward_error(n, 2, s.A.data(), n, refused.X.data(), n, s.B.data(), n),
            30 * (n + 1) * accuracy::unit_roundoff<double>());
}

// LAPACK's dsgesv (OpenBLAS 0.3.21's) returned ITER = 10, converged, with X infinite on a
// 1000 x 1000 matrix of kappa_2 = 1e10 (`bench_dsgesv_overflow 1000 1e10`, bench/dsgesv_overflow.c):
// refinement diverged until X overflowed, and its test RNRM < XNRM * CTE held with XNRM = inf. Here, even with LAPACK's
// semantics (no safeguards), a converged X is finite, and one that overflows is no answer (-31: the double solver's,
// finite).
TEST(MixedSafeguards, ANonFiniteXIsNeverConverged) {
  const int n = 300;
  for (double cond : {1e9, 1e10, 1e11, 1e12})
    for (unsigned seed : {1u, 2u}) {
      const auto s = conditioned<double>(n, cond, seed);
      const MixedRun run = mixed(s, 2, {});
      SCOPED_TRACE(std::to_string(cond) + " seed " + std::to_string(seed) + " ITER " +
                   std::to_string(run.details.iter));
      EXPECT_EQ(run.info, 0);
      for (double x : run.X) ASSERT_TRUE(std::isfinite(x));
    }
}

// A zero right-hand side has the solution 0 with residual 0: converged, as dsgesv's
// RNRM > XNRM * CTE test has it (0 > 0 is false), not 30 steps and a fall-back.
TEST(MixedSafeguards, AZeroColumnOfBIsConverged) {
  auto s = conditioned<double>(60, 10, 6);
  for (int i = 0; i < 60; ++i) s.B[60 + i] = 0;
  for (const MixedSafeguards& g : {MixedSafeguards{}, auto_safeguards(60)}) {
    const MixedRun run = mixed(s, 2, g);
    EXPECT_GE(run.details.iter, 0);
    EXPECT_LE(run.details.classical_steps, 4);
    for (int i = 0; i < 60; ++i) EXPECT_EQ(run.X[60 + i], 0.0);
  }
}

}  // namespace
