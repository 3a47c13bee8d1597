// The parallel residual and backward error against a plain loop; the kept work array.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "solvers/accuracy.hpp"
#include "solvers/row_omega.hpp"
#include "solvers/workspace.hpp"

using namespace hetlu;

namespace {

struct Problem {
  int n, nrhs, ld;
  std::vector<double> A, X, B;
};

Problem make_problem(int n, int nrhs) {
  Problem p{n, nrhs, n + 3, {}, {}, {}};
  p.A.resize(static_cast<size_t>(p.ld) * n);
  p.X.resize(static_cast<size_t>(p.ld) * nrhs);
  p.B.resize(static_cast<size_t>(p.ld) * nrhs);
  for (size_t i = 0; i < p.A.size(); ++i) p.A[i] = std::sin(0.7 * i);
  for (size_t i = 0; i < p.X.size(); ++i) p.X[i] = std::cos(0.3 * i);
  for (size_t i = 0; i < p.B.size(); ++i) p.B[i] = std::sin(1.1 * i + 2);
  return p;
}

// max_i |b - A x|_i / (|A| |x| + |b|)_i by the textbook loop, and the residual.
double plain_omega(const Problem& p, std::vector<double>* residual) {
  double omega = 0;
  residual->assign(static_cast<size_t>(p.n) * p.nrhs, 0);
  for (int r = 0; r < p.nrhs; ++r)
    for (int i = 0; i < p.n; ++i) {
      double res = p.B[i + r * p.ld], scale = std::abs(res);
      for (int j = 0; j < p.n; ++j) {
        res -= p.A[i + j * p.ld] * p.X[j + r * p.ld];
        scale += std::abs(p.A[i + j * p.ld] * p.X[j + r * p.ld]);
      }
      (*residual)[i + r * p.n] = res;
      omega = std::max(omega, std::abs(res) / scale);
    }
  return omega;
}

}  // namespace

TEST(Accuracy, ResidualAndBackwardErrorMatchThePlainLoop) {
  for (int n : {1, 3, 7, 301, 1030}) {  // column tails of 1..3 and row chunks that do not divide n
    for (int nrhs : {1, 3}) {
      const Problem p = make_problem(n, nrhs);
      std::vector<double> expected_residual;
      const double expected = plain_omega(p, &expected_residual);
      std::vector<double> residual(static_cast<size_t>(n) * nrhs, -1);
      const double omega = accuracy::residual_and_backward_error(n, nrhs, p.A.data(), p.ld, p.X.data(), p.ld,
                                                                 p.B.data(), p.ld, residual.data(), n);
      EXPECT_NEAR(omega, expected, 1e-12 * expected) << n << " " << nrhs;
      for (size_t i = 0; i < residual.size(); ++i) EXPECT_NEAR(residual[i], expected_residual[i], 1e-9) << n;
      EXPECT_EQ(accuracy::backward_error(n, nrhs, p.A.data(), p.ld, p.X.data(), p.ld, p.B.data(), p.ld), omega);
    }
  }
}

TEST(Accuracy, BackwardErrorDoesNotDependOnTheThreadCount) {
  const Problem p = make_problem(700, 2);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const double one = accuracy::backward_error(p.n, p.nrhs, p.A.data(), p.ld, p.X.data(), p.ld, p.B.data(), p.ld);
  omp_set_num_threads(2);
  const double two = accuracy::backward_error(p.n, p.nrhs, p.A.data(), p.ld, p.X.data(), p.ld, p.B.data(), p.ld);
  omp_set_num_threads(threads);
  EXPECT_EQ(one, two);
}

TEST(Accuracy, ANanSolutionHasAnInfiniteBackwardError) {
  Problem p = make_problem(300, 1);
  p.X[17] = std::nan("");
  EXPECT_EQ(accuracy::backward_error(p.n, 1, p.A.data(), p.ld, p.X.data(), p.ld, p.B.data(), p.ld),
            std::numeric_limits<double>::infinity());
}

// Rigal and Gaches' normwise backward error against its definition, both layouts; a NaN is infinite.
TEST(Accuracy, NormwiseBackwardErrorIsRigalAndGaches) {
  // A = [1 2; 3 4], x = [1; 1], b = [3; 8]: r = b - A x = [0; 1], ||A||_inf = 7, ||x|| = 1, ||b|| = 8.
  const std::vector<double> A = {1, 3, 2, 4}, At = {1, 2, 3, 4}, x = {1, 1}, b = {3, 8};
  EXPECT_DOUBLE_EQ(accuracy::normwise_backward_error(2, 1, A.data(), 2, x.data(), 2, b.data(), 2), 1.0 / 15);
  EXPECT_DOUBLE_EQ(accuracy::normwise_backward_error(2, 1, At.data(), 2, x.data(), 2, b.data(), 2, true), 1.0 / 15);
  // Two right-hand sides: the larger of theirs; an exact one gives 0.
  const std::vector<double> X = {1, 1, 1, 0}, B = {3, 8, 1, 3};
  EXPECT_DOUBLE_EQ(accuracy::normwise_backward_error(2, 2, A.data(), 2, X.data(), 2, B.data(), 2), 1.0 / 15);
  EXPECT_EQ(accuracy::normwise_backward_error(2, 1, A.data(), 2, X.data() + 2, 2, B.data() + 2, 2), 0.0);
  const std::vector<float> Af = {1, 3, 2, 4}, nan_x = {std::numeric_limits<float>::quiet_NaN(), 1}, bf = {3, 8};
  EXPECT_EQ(accuracy::normwise_backward_error(2, 1, Af.data(), 2, nan_x.data(), 2, bf.data(), 2),
            std::numeric_limits<double>::infinity());
}

// eta where ||A|| ||x|| leaves the double range: the same as for the scaled system (A, b times a power of
// two), not 0 (||A||_inf summed to Inf hid a wrong x) nor Inf; real and complex, both layouts.
TEST(Accuracy, NormwiseBackwardErrorOfEntriesNearTheRangesEnds) {
  const std::vector<double> A = {1, 3, 2, 4}, At = {1, 2, 3, 4}, x = {1, 1}, b = {3, 8}, wrong_x = {3, -1};
  for (const double s : {std::ldexp(1.0, 1020), std::ldexp(1.0, -1000)}) {
    std::vector<double> sA = A, sAt = At, sb = b;
    for (double& v : sA) v *= s;
    for (double& v : sAt) v *= s;
    for (double& v : sb) v *= s;
    EXPECT_DOUBLE_EQ(accuracy::normwise_backward_error(2, 1, sA.data(), 2, x.data(), 2, sb.data(), 2), 1.0 / 15) << s;
    EXPECT_DOUBLE_EQ(accuracy::normwise_backward_error(2, 1, sAt.data(), 2, x.data(), 2, sb.data(), 2, true), 1.0 / 15)
        << s;
    // x = [3; -1]: r = [2; 3], ||x|| = 3: eta = 3 / (7 * 3 + 8).
    EXPECT_DOUBLE_EQ(accuracy::normwise_backward_error(2, 1, sA.data(), 2, wrong_x.data(), 2, sb.data(), 2), 3.0 / 29)
        << s;
  }
  // A near 1e308 and x near 1e-300 (A x near 1e8): both scaled, eta unchanged.
  std::vector<double> big_A = A, tiny_x = x, b2 = b;
  for (double& v : big_A) v *= std::ldexp(1.0, 1020);
  for (double& v : tiny_x) v *= std::ldexp(1.0, -1000);
  for (double& v : b2) v *= std::ldexp(1.0, 20);
  EXPECT_DOUBLE_EQ(accuracy::normwise_backward_error(2, 1, big_A.data(), 2, tiny_x.data(), 2, b2.data(), 2), 1.0 / 15);

  using Z = std::complex<double>;
  const double big =
      std::ldexp(1.0, 1020);  // a part near 1e307: |re| + |im| of 1 + i times it is finite, a row sum is not
  const std::vector<Z> Az = {Z(big, big), Z(3 * big, 0), Z(2 * big, 0), Z(4 * big, 4 * big)}, xz = {Z(1, 0), Z(1, 0)};
  const std::vector<Z> bz = {Az[0] + Az[2], Az[1] + Az[3] + Z(big, 0)};  // r = [0; big]
  // ||A||_inf (|re| + |im|) = 11 big, ||x|| = 1, ||b||_inf = |3 + 4i + 1|_1 big + ... = 8 big + 4 big.
  const double eta = accuracy::normwise_backward_error(2, 1, Az.data(), 2, xz.data(), 2, bz.data(), 2);
  EXPECT_DOUBLE_EQ(eta, 1.0 / (11 + 12));
  // x's parts near 1e308 with ||A|| near 1: ||x|| (|re| + |im|) past the range where max(|re|, |im|)
  // is not; eta of an exact x was Inf. And ||A|| ||x|| underflowing to 0: eta 0 for a wrong x.
  const std::vector<Z> small_A = {Z(0.25, 0), Z(0, 0), Z(0, 0), Z(0.25, 0)}, huge_x = {Z(big, big), Z(big, -big)};
  const std::vector<Z> its_b = {small_A[0] * huge_x[0], small_A[3] * huge_x[1]};
  EXPECT_EQ(accuracy::normwise_backward_error(2, 1, small_A.data(), 2, huge_x.data(), 2, its_b.data(), 2), 0.0);
  const std::vector<double> tiny_A = {1e-170, 0, 0, 1e-170}, tinier_x = {1e-170, 1e-170}, zero_b = {0, 0};
  EXPECT_DOUBLE_EQ(accuracy::normwise_backward_error(2, 1, tiny_A.data(), 2, tinier_x.data(), 2, zero_b.data(), 2),
                   1.0);
}

// A and b of subnormal entries, x wrong by 8 % (what GEPP in subnormal arithmetic gave): the residual
// rounds to 0 in double, and omega was 0. The share of what underflow can hide says it.
TEST(Accuracy, AResidualLostToUnderflowIsNotCalledZero) {
  const double u = std::numeric_limits<double>::denorm_min();
  const std::vector<double> A = {7 * u, 3 * u, 2 * u, 5 * u}, b = {10 * u, 7 * u}, wrong_x = {8.0 / 7, 0.75},
                            right_x = {36.0 / 29, 19.0 / 29};
  std::vector<double> R(2);
  EXPECT_GT(accuracy::residual_and_backward_error(2, 1, A.data(), 2, wrong_x.data(), 2, b.data(), 2, R.data(), 2), 0.1);
  EXPECT_GT(accuracy::backward_error(2, 1, A.data(), 2, wrong_x.data(), 2, b.data(), 2, true), 0.1);
  // Scaled into the normal range the same system gives the right x an omega near u.
  std::vector<double> scaled_A = A, scaled_b = b;
  for (double& a : scaled_A) a = std::ldexp(a, 1074);
  for (double& v : scaled_b) v = std::ldexp(v, 1074);
  EXPECT_LT(accuracy::backward_error(2, 1, scaled_A.data(), 2, right_x.data(), 2, scaled_b.data(), 2), 1e-15);
}

// x decaying into the subnormals (a tridiagonal A of condition 3, b = e_1): the row of A is not small,
// only x is, and x is as exact as it can be stored. No underflow term is counted there: omega at
// n = 544 was 5e-11 with one (a false "inaccurate"), 9e-14 without.
TEST(Accuracy, ASolutionDecayingIntoTheSubnormalsIsNotCalledInaccurate) {
  const int n = 544;
  std::vector<double> A(static_cast<size_t>(n) * n, 0.0), x(n, 0.0), b(n, 0.0);
  for (int i = 0; i < n; ++i) {
    A[i + static_cast<size_t>(i) * n] = 4;
    if (i > 0) A[i + static_cast<size_t>(i - 1) * n] = -1, A[i - 1 + static_cast<size_t>(i) * n] = -1;
  }
  b[0] = 1;
  // x by elimination down the band (diagonally dominant: no pivoting), as LAPACK's LU computes it.
  std::vector<double> d(n, 4.0), y = b;
  for (int i = 1; i < n; ++i) {
    const double l = -1 / d[i - 1];
    d[i] -= l * -1;
    y[i] -= l * y[i - 1];
  }
  x[n - 1] = y[n - 1] / d[n - 1];
  for (int i = n - 2; i >= 0; --i) x[i] = (y[i] + x[i + 1]) / d[i];
  std::vector<double> R(n);
  const double omega = accuracy::residual_and_backward_error(n, 1, A.data(), n, x.data(), n, b.data(), n, R.data(), n);
  const double tolerance = 30 * (n + 1) * accuracy::unit_roundoff<double>();
  EXPECT_LT(omega, tolerance);
  std::vector<double> At(A.size());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) At[j + static_cast<size_t>(i) * n] = A[i + static_cast<size_t>(j) * n];
  EXPECT_LT(accuracy::backward_error(n, 1, At.data(), n, x.data(), n, b.data(), n, true), tolerance);
}

TEST(Workspace, ALargeArrayIsKeptAndHandedOutAgain) {
  kernels::release_workspace();
  const double* first = nullptr;
  {
    kernels::Workspace<double> w(1 << 20);  // 8 MiB
    first = w.data();
    w.data()[(1 << 20) - 1] = 1;  // all of it is usable
  }
  {
    kernels::Workspace<double> again(1 << 20);
    EXPECT_EQ(again.data(), first);  // the kept one
    kernels::Workspace<double> second(1 << 20);
    EXPECT_NE(second.data(), first);  // in use: a new one
  }
  {
    kernels::Workspace<double> much_smaller(1000);  // not worth 8 MiB of the kept array
    EXPECT_NE(much_smaller.data(), first);
  }
  kernels::release_workspace();
}

TEST(Accuracy, RowSharesOfOmegaNeverHideABrokenRow) {
  // 0 / 0 is 0; r / 0, a NaN and inf / inf (an overflow) are infinite, and one such row decides.
  EXPECT_EQ(accuracy::row_omega(0.0, 0.0), 0.0);
  EXPECT_EQ(accuracy::row_omega(1e-300, 0.0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(accuracy::row_omega(std::nan(""), 1.0), std::numeric_limits<double>::infinity());
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(accuracy::row_omega(inf, inf), inf);
  EXPECT_DOUBLE_EQ(accuracy::row_omega(-2.0, 8.0), 0.25);
  // What underflow may hide: (n + 2) smallest subnormals, where they exceed u times the row's reach.
  const double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_TRUE(accuracy::may_hide(2, 24 * tiny));
  EXPECT_FALSE(accuracy::may_hide(2, 0.0));  // 0 / 0 stays 0
  EXPECT_FALSE(accuracy::may_hide(1000, 1e-290));
  EXPECT_EQ(accuracy::underflow_hidden(2, 24 * tiny), 4 * tiny);
  EXPECT_EQ(accuracy::underflow_hidden(2, 1e-300), 0.0);
  EXPECT_DOUBLE_EQ(accuracy::row_omega(0.0, 24 * tiny, accuracy::underflow_hidden(2, 24 * tiny)), 4.0 / 24);
  const std::vector<float> shares = {0.1f, std::nanf(""), 0.2f};
  EXPECT_EQ(accuracy::largest_row_omega(3, 1, shares.data(), 3), inf);
}
