// Singular and nearly singular matrices, every solver, both targets (the hybrid one on the host
// backend): an exactly singular matrix is reported as singular (LAPACK's info) by every solver,
// also when PRBT's randomization turns its zero pivot into a tiny one; a subnormal pivot gives a
// finite answer; a zero pivot inside a tournament leaves complete factors (LAPACK's contract).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "solvers/accuracy.hpp"
#include "solvers/condition.hpp"
#include "solvers/lu.hpp"
#include "solvers/variants.hpp"

using namespace hetlu;

namespace {

using Matrix = std::vector<double>;

Plan plan_for(Solver solver, Target target, int nb = 16) {
  Plan p;
  p.solver = solver;
  p.nb = nb;
  p.ib = 8;
  p.panel_threads = 2;
  p.target = target;
  p.devices = BackendKind::host;
  p.cpu_block_columns = 1;
  return p;
}

Matrix random_matrix(int m, int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Matrix A(static_cast<size_t>(m) * n);
  for (auto& a : A) a = u(rng);
  return A;
}

struct Solution {
  int info;
  Matrix x;
  SolveDetails details;
};

Solution solve(const Plan& plan, int n, Matrix A, Matrix b) {
  std::vector<int> ipiv(n);
  SolveDetails details;
  const int info = solvers::gesv(plan, n, 1, A.data(), n, ipiv.data(), b.data(), n, InputCheck::finite, &details);
  return {info, b, details};
}

// The exactly singular matrices the red team used, and their class: [1 2; 2 4], rank 1 of several
// sizes, rank n - 1 (a row repeated, or four times another). After one step of elimination a rank-1
// matrix whose rows are power-of-two multiples of each other is exactly zero, so that every
// pivoting solver meets an exact zero pivot; in the rank n - 1 ones the blocked updates round rows
// differently, and even GEPP (as LAPACK's) may find no exact zero: `exact` says which.
struct Singular {
  int n;
  Matrix A;
  bool exact;
};

std::vector<Singular> singular_matrices() {
  std::vector<Singular> out;
  out.push_back({2, {1, 2, 2, 4}, true});
  for (int n : {3, 10, 37, 64}) {  // rank 1: row i is 2^(i mod 5) v^T
    const Matrix v = random_matrix(1, n, 40 + n);
    Matrix A(static_cast<size_t>(n) * n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) A[i + static_cast<size_t>(j) * n] = std::ldexp(v[j], i % 5);
    out.push_back({n, A, true});
  }
  for (auto [n, factor] : {std::pair{30, 1.0}, std::pair{50, 4.0}, std::pair{129, 0.25}}) {  // rank n - 1
    Matrix A = random_matrix(n, n, 99 + n);
    for (int j = 0; j < n; ++j) A[7 + static_cast<size_t>(j) * n] = factor * A[3 + static_cast<size_t>(j) * n];
    out.push_back({n, A, false});
  }
  return out;
}

class EverySolver : public ::testing::TestWithParam<std::tuple<Solver, Target>> {};

// Every solver answers a singular matrix as GEPP does (LAPACK's info); PRBT never returns its own
// solution of one.
TEST_P(EverySolver, ReportsASingularMatrixAsGeppDoes) {
  const auto [solver, target] = GetParam();
  for (const auto& [n, A, exact] : singular_matrices()) {
    const Matrix b(n, 1.0);
    const Solution gepp = solve(plan_for(Solver::gepp, Target::cpu), n, A, b);
    const Solution s = solve(plan_for(solver, target), n, A, b);
    if (exact) {
      ASSERT_GT(gepp.info, 0) << "n = " << n;
      EXPECT_EQ(s.info, gepp.info) << "n = " << n;
    }
    if (solver == Solver::prbt) {  // GEPP's answer, never a randomized one
      EXPECT_TRUE(s.details.fell_back_to_gepp) << "n = " << n;
      EXPECT_EQ(s.info, gepp.info) << "n = " << n;
    }
  }
}

// Nearly singular: a column repeated up to noise of 1e-15 (kappa_1 about 1e17). Refinement converges to
// an x of tiny backward error and wrong in every digit; PRBT's condition estimate through the randomized
// factors saw 8.5e-15 (true 7.2e-18) above its 10 u limit, and answered that x with no warning
// (a hostile tester's find). Every solver must say how near singular A is: rcond below u, where
// hetlu's front ends warn.
TEST_P(EverySolver, ANearlyRepeatedColumnIsSeenToBeNearlySingular) {
  const auto [solver, target] = GetParam();
  const int n = 200;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(500 + seed);
    std::normal_distribution<double> normal;
    Matrix A(static_cast<size_t>(n) * n), b(n, 0.0);
    for (auto& a : A) a = normal(rng);
    for (int i = 0; i < n; ++i) A[i + static_cast<size_t>(n - 1) * n] = A[i] + 1e-15 * normal(rng);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) b[i] += A[i + static_cast<size_t>(j) * n];  // x = ones
    const Solution s = solve(plan_for(solver, target), n, A, b);
    if (s.info > 0) continue;  // an exactly zero pivot: singular, said
    EXPECT_LT(s.details.rcond, accuracy::unit_roundoff<double>()) << "seed " << seed;
  }
}

// Entries near the largest double, whose column sums overflow (||A||_1 = Inf at scale 5e306): not
// singular. PRBT's rcond was 0 there, and Python's hetlu.solve warned "singular to working precision".
// At 5e306 GENP's unpivoted factors overflow and PRBT falls back to GEPP, saying so.
TEST_P(EverySolver, EntriesWhoseColumnSumsOverflowAreNotCalledSingular) {
  const auto [solver, target] = GetParam();
  const int n = 100;
  for (double scale : {1.0, 1e304, 5e306}) {
    SCOPED_TRACE("scale " + std::to_string(scale));
    Matrix A = random_matrix(n, n, 7), b(n, 0.0);
    for (auto& a : A) a *= scale;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) b[i] += A[i + static_cast<size_t>(j) * n] / n;  // x = ones / n
    const Solution s = solve(plan_for(solver, target), n, A, b);
    ASSERT_EQ(s.info, 0);
    if (solver == Solver::prbt) {
      if (scale <= 1e304) {
        EXPECT_FALSE(s.details.fell_back_to_gepp) << s.details.note;
      }
      if (s.details.fell_back_to_gepp) {
        EXPECT_NE(s.details.note.find("overflowed"), std::string::npos);
      }
      EXPECT_GT(s.details.rcond, 1e-6);  // the same for every scale: about 1e-4
      EXPECT_LT(s.details.rcond, 1);
    }
    for (double xi : s.x) EXPECT_NEAR(xi * n, 1, 1e-8);
  }
}

// [1e-310 0; 0 1] x = [1e-300; 1]: a subnormal pivot is divided by, never inverted to infinity.
TEST_P(EverySolver, ASubnormalPivotGivesAFiniteAnswer) {
  const auto [solver, target] = GetParam();
  const Solution s = solve(plan_for(solver, target), 2, {1e-310, 0, 0, 1}, {1e-300, 1});
  ASSERT_EQ(s.info, 0);
  EXPECT_NEAR(s.x[0], 1e10, 1e10 * 1e-4);  // 1e-310 carries about 44 bits
  EXPECT_EQ(s.x[1], 1);
}

// The same for one right-hand side at orders where the BLAS library's getrs answers first (below
// blas.hpp's blocked order): OpenBLAS's complex trsv multiplies by each pivot's reciprocal, Inf for
// a subnormal one; X is then solved again by hetlu's loops, which divide. Real and complex, each way.
template <class T>
void subnormal_pivot_one_column(int n) {
  std::vector<T> LU(static_cast<size_t>(n) * n, T(0)), x(n, T(0));
  std::vector<int> ipiv(n);
  for (int i = 0; i < n; ++i) LU[i + static_cast<size_t>(i) * n] = T(1), ipiv[i] = i + 1;
  const int k = n / 2;
  LU[k + static_cast<size_t>(k) * n] = T(1e-310);
  for (Transpose trans : {Transpose::no, Transpose::yes, Transpose::conjugate}) {
    SCOPED_TRACE("n = " + std::to_string(n) + " trans " + std::to_string(static_cast<int>(trans)));
    std::fill(x.begin(), x.end(), T(1));
    x[k] = T(1e-300);
    variants::lu_getrs(trans, n, 1, LU.data(), n, ipiv.data(), x.data(), n);
    EXPECT_NEAR(std::abs(x[k]), 1e10, 1e10 * 1e-4);
    EXPECT_EQ(x[k + 1], T(1));
  }
}

TEST(Getrs, ASubnormalPivotGivesAFiniteAnswerOnTheLibrarysPathToo) {
  for (int n : {300, 1000}) {
    subnormal_pivot_one_column<double>(n);
    subnormal_pivot_one_column<std::complex<double>>(n);
  }
}

// Entries near 3e36 in single complex, solved with A^H: OpenBLAS's ctrsv gave Inf in every entry
// at n = 600 (its reciprocals), LAPACK's a finite X; the library's X is declined and hetlu's loops,
// dividing, answer.
TEST(Getrs, ConjugateTransposedSolveNearSinglesRangeStaysFinite) {
  using C = std::complex<float>;
  const int n = 600;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  std::vector<C> A(static_cast<size_t>(n) * n), b(n, C(3e36f, 1.5e36f));
  for (auto& a : A) a = C(3e36f * u(rng), 3e36f * u(rng));
  auto LU = A;
  std::vector<int> ipiv(n);
  Plan plan;
  plan.precision = Precision::single;
  ASSERT_EQ(solvers::getrf(plan, n, n, LU.data(), n, ipiv.data()), 0);
  auto x = b;
  variants::lu_getrs(Transpose::conjugate, n, 1, LU.data(), n, ipiv.data(), x.data(), n);
  for (const C& v : x) ASSERT_TRUE(std::isfinite(v.real()) && std::isfinite(v.imag()));
  // A^H x = b, checked in double: the residual against |A^H| |x| + |b|.
  double omega = 0;
  for (int j = 0; j < n; ++j) {
    std::complex<double> r = b[j];
    double scale = std::abs(std::complex<double>(b[j]));
    for (int i = 0; i < n; ++i) {
      const std::complex<double> a = std::conj(std::complex<double>(A[i + static_cast<size_t>(j) * n]));
      r -= a * std::complex<double>(x[i]);
      scale += std::abs(a) * std::abs(std::complex<double>(x[i]));
    }
    omega = std::max(omega, std::abs(r) / scale);
  }
  EXPECT_LT(omega, 30 * (n + 1) * accuracy::unit_roundoff<float>());
}

// The class: a column of subnormal entries in a larger matrix, so that the subnormal pivot falls
// inside a tournament's panel with rows below it.
TEST_P(EverySolver, ASubnormalColumnGivesAFiniteBackwardStableAnswer) {
  const auto [solver, target] = GetParam();
  const int n = 40;
  Matrix A = random_matrix(n, n, 5);
  for (int i = 0; i < n; ++i) A[i + 3 * n] *= 1e-310;
  Matrix x_true(n, 1.0), b(n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) b[i] += A[i + static_cast<size_t>(j) * n] * x_true[j];
  Plan plan = plan_for(solver, target);
  plan.refinement = Refinement::working;
  const Solution s = solve(plan, n, A, b);
  ASSERT_EQ(s.info, 0);
  for (double v : s.x) ASSERT_TRUE(std::isfinite(v));
  EXPECT_LE(accuracy::backward_error(n, 1, A.data(), n, s.x.data(), n, b.data(), n), 1e-10);
}

INSTANTIATE_TEST_SUITE_P(Singular, EverySolver,
                         ::testing::Combine(::testing::Values(Solver::gepp, Solver::calu, Solver::prbt),
                                            ::testing::Values(Target::cpu, Target::hybrid)));

// A 64 x 64 random matrix with a zero column: CALU gives GEPP's info and complete factors, with the
// zero column in the first panel, in a later one, and at a panel's edge.
TEST(Calu, AZeroPivotLeavesCompleteFactors) {
  const int n = 64;
  for (int zero_column : {5, 6, 31, 32, 40, 63}) {
    for (int nb : {16, 64}) {
      Matrix A = random_matrix(n, n, 11);
      for (int i = 0; i < n; ++i) A[i + static_cast<size_t>(zero_column) * n] = 0;
      Matrix LU = A;
      std::vector<int> ipiv(n);
      const int info = solvers::getrf(plan_for(Solver::calu, Target::cpu, nb), n, n, LU.data(), n, ipiv.data());
      EXPECT_EQ(info, zero_column + 1) << "nb " << nb;
      EXPECT_LT(accuracy::factorization_residual(n, n, A.data(), n, LU.data(), n, ipiv.data()), 30.0)
          << "zero column " << zero_column << ", nb " << nb;
    }
  }
}

// The estimator against the exact ||A^-1||_1 of small matrices: a lower bound, within a factor of 3.
TEST(ConditionEstimate, BoundsTheInverseNorm) {
  for (int n : {1, 2, 5, 17}) {
    Matrix A = random_matrix(n, n, 3 + n), inverse(static_cast<size_t>(n) * n, 0.0);
    for (int i = 0; i < n; ++i) inverse[i + static_cast<size_t>(i) * n] = 1;
    Matrix LU = A;
    std::vector<int> ipiv(n);
    ASSERT_EQ(solvers::getrf(plan_for(Solver::gepp, Target::cpu), n, n, LU.data(), n, ipiv.data()), 0);
    solvers::getrs(plan_for(Solver::gepp, Target::cpu), Transpose::no, n, n, LU.data(), n, ipiv.data(), inverse.data(),
                   n);
    const double exact = kernels::norm1(n, n, inverse.data(), n);
    auto apply = [&](double* x, Transpose t) {
      solvers::getrs(plan_for(Solver::gepp, Target::cpu), t, n, 1, LU.data(), n, ipiv.data(), x, n);
    };
    const double estimate = kernels::inverse_norm1_estimate<double>(
        n, [&](double* x) { apply(x, Transpose::no); }, [&](double* x) { apply(x, Transpose::yes); });
    EXPECT_LE(estimate, exact * (1 + 1e-12)) << "n = " << n;
    EXPECT_GE(estimate, exact / 3) << "n = " << n;
  }
}

// ||A||_inf by rows of a column-major A, with each column's largest |re| + |im| from the same pass.
TEST(Norms, InfinityNormKeepsTheColumnsMaxima) {
  const std::vector<double> A = {1, -3, 0, 2, 4, 0};  // 3 x 2: [1 2; -3 4; 0 0], row sums 3, 7, 0
  std::vector<double> maxima;
  EXPECT_EQ(kernels::norm_inf(3, 2, A.data(), 3, maxima), 7);
  EXPECT_EQ(maxima, (std::vector<double>{3, 4}));
  using Z = std::complex<double>;
  const std::vector<Z> Az = {Z(3, 4), Z(0, 1), Z(1, 0), Z(0, 0)};  // [3+4i 1; i 0]
  EXPECT_DOUBLE_EQ(kernels::norm_inf(2, 2, Az.data(), 2, maxima), 6);
  EXPECT_EQ(maxima, (std::vector<double>{7, 1}));
}

// The overflow-safe norm: the plain norm where it is finite; otherwise 2^-64 A's norm, by columns or by
// rows, with a complex entry's parts scaled before its modulus (|1e308 + 1e308i| overflows itself).
TEST(OverflowSafeNorm, ScalesOnlyWhereThePlainSumsOverflow) {
  const std::vector<double> small = {1, 3, 2, 4};  // [1 2; 3 4]
  const kernels::ScaledNorm plain =
      kernels::overflow_safe_norm(kernels::norm1(2, 2, small.data(), 2), 2, small.data(), 2, false);
  EXPECT_EQ(plain.value, 6);
  EXPECT_EQ(plain.exponent, 0);
  EXPECT_EQ(plain.rcond(0.5), 0.5);

  const double big = 1e308;  // [big 1.5 big; big 0]: column sums 2 big and 1.5 big, row sums 2.5 big and big
  const std::vector<double> A = {big, big, 1.5 * big, 0};
  const double two64 = std::ldexp(1.0, 64);
  const kernels::ScaledNorm by_columns =
      kernels::overflow_safe_norm(kernels::norm1(2, 2, A.data(), 2), 2, A.data(), 2, false);
  EXPECT_EQ(by_columns.exponent, 64);
  EXPECT_DOUBLE_EQ(by_columns.value, big / two64 * 2);
  const kernels::ScaledNorm by_rows =
      kernels::overflow_safe_norm(std::numeric_limits<double>::infinity(), 2, A.data(), 2, true);
  EXPECT_EQ(by_rows.exponent, 64);
  EXPECT_DOUBLE_EQ(by_rows.value, big / two64 * 2.5);
  EXPECT_DOUBLE_EQ(by_rows.rcond(two64), 1.0);

  using Z = std::complex<double>;
  const std::vector<Z> Az = {Z(1.5 * big, 1.5 * big), Z(0, 0), Z(0, 0), Z(1, 0)};  // |a11| = 2.1e308
  const kernels::ScaledNorm complex_norm =
      kernels::overflow_safe_norm(kernels::norm1(2, 2, Az.data(), 2), 2, Az.data(), 2, false);
  EXPECT_EQ(complex_norm.exponent, 64);
  EXPECT_DOUBLE_EQ(complex_norm.value, big / two64 * 1.5 * std::sqrt(2.0));
  using C = std::complex<float>;
  const float fbig = 3e38f;
  const std::vector<C> Ac = {C(fbig, fbig), C(fbig, 0), C(0, 0), C(1, 0)};
  const kernels::ScaledNorm float_norm =
      kernels::overflow_safe_norm(kernels::norm1(2, 2, Ac.data(), 2), 2, Ac.data(), 2, false);
  EXPECT_TRUE(std::isfinite(float_norm.value));
  EXPECT_NEAR(std::ldexp(float_norm.value, float_norm.exponent), (std::sqrt(2.0) + 1) * double(fbig), 1e25);
}

}  // namespace
