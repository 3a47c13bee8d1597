// hetlu::mixed_gesv (#15.2): a double answer from a single-precision LU refined in double, with
// LAPACK dsgesv's ITER codes where the double solver answers instead.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "hetlu/hetlu.hpp"

using namespace hetlu;

namespace {

struct System {
  int n;
  std::vector<double> A, B;
};

// A = Q1 diag(1 .. 1/cond, geometric) Q2 from Householder reflections of random vectors.
System conditioned(int n, double cond, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<double> A(static_cast<size_t>(n) * n, 0.0), B(static_cast<size_t>(n) * 2);
  for (int i = 0; i < n; ++i) A[i + static_cast<size_t>(i) * n] = std::pow(cond, -double(i) / std::max(1, n - 1));
  for (int side = 0; side < 2; ++side) {  // A <- H A (rows) then A <- A H (columns)
    std::vector<double> v(n);
    double norm = 0;
    for (auto& x : v) norm += (x = normal(rng)) * x;
    for (auto& x : v) x /= std::sqrt(norm);
    for (int k = 0; k < n; ++k) {
      double dot = 0;
      for (int i = 0; i < n; ++i)
        dot += v[i] * (side == 0 ? A[i + static_cast<size_t>(k) * n] : A[k + static_cast<size_t>(i) * n]);
      for (int i = 0; i < n; ++i)
        (side == 0 ? A[i + static_cast<size_t>(k) * n] : A[k + static_cast<size_t>(i) * n]) -= 2 * dot * v[i];
    }
  }
  for (auto& x : B) x = normal(rng);
  return {n, A, B};
}

// LAPACK's test ratio (dget08): max_j ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf eps), eps = u.
double test_ratio(const System& s, const std::vector<double>& A, const std::vector<double>& X) {
  const int n = s.n;
  double anorm = 0, worst = 0;
  for (int i = 0; i < n; ++i) {
    double row = 0;
    for (int j = 0; j < n; ++j) row += std::abs(A[i + static_cast<size_t>(j) * n]);
    anorm = std::max(anorm, row);
  }
  for (int c = 0; c < 2; ++c) {
    double r = 0, x = 0;
    for (int i = 0; i < n; ++i) {
      double sum = s.B[i + static_cast<size_t>(c) * n];
      for (int j = 0; j < n; ++j) sum -= A[i + static_cast<size_t>(j) * n] * X[j + static_cast<size_t>(c) * n];
      r = std::max(r, std::abs(sum));
      x = std::max(x, std::abs(X[i + static_cast<size_t>(c) * n]));
    }
    worst = std::max(worst, r / anorm / x / (std::numeric_limits<double>::epsilon() / 2));
  }
  return worst;
}

struct Outcome {
  int iter;
  double ratio;
  bool a_unchanged;
  SolveReport report;
};

Outcome solve(const System& s) {
  auto A = s.A;
  std::vector<double> X(s.B.size());
  std::vector<int> ipiv(s.n);
  int iter = 99;
  Options options;
  options.use_database = false;
  const SolveReport report =
      mixed_gesv(s.n, 2, A.data(), s.n, ipiv.data(), s.B.data(), s.n, X.data(), s.n, &iter, options);
  EXPECT_EQ(report.info, 0);
  return {iter, test_ratio(s, s.A, X), A == s.A, report};
}

TEST(MixedGesv, AWellConditionedSystemIsAnsweredFromSinglePrecision) {
  const auto out = solve(conditioned(120, 1e3, 1));
  EXPECT_GE(out.iter, 1);
  EXPECT_LE(out.iter, 5);
  EXPECT_LT(out.ratio, std::sqrt(120.0));  // dsgesv's convergence test, as LAPACK's tester checks it
  EXPECT_TRUE(out.a_unchanged);
  EXPECT_TRUE(out.report.warnings.empty());
}

TEST(MixedGesv, AnIllConditionedSystemFallsBackEarlyAndIsStillRight) {
  const auto out = solve(conditioned(120, 1e11, 2));  // kappa u_single ~ 6000: refinement diverges
  EXPECT_EQ(out.iter, -31);
  EXPECT_LE(out.report.refinement_steps, 0);
  EXPECT_LT(out.ratio, 30.0);     // the double solver's answer
  EXPECT_FALSE(out.a_unchanged);  // A holds the double factors, as dsgesv leaves it
  ASSERT_EQ(out.report.warnings.size(), 1u);
  EXPECT_NE(out.report.warnings[0].find("stalled"), std::string::npos);
}

TEST(MixedGesv, EntriesBeyondSinglePrecisionAndZeroPivotsThereGoToDouble) {
  auto s = conditioned(30, 10, 3);
  s.A[5] = 1e39;  // above float's largest
  EXPECT_EQ(solve(s).iter, -2);
  auto tiny = conditioned(30, 10, 4);
  for (auto& x : tiny.A) x *= 1e-50;  // every entry underflows to zero in single: its LU is singular
  const auto out = solve(tiny);
  EXPECT_EQ(out.iter, -3);
  EXPECT_LT(out.ratio, 30.0);
}

TEST(MixedGesv, BadArgumentsAreNamed) {
  std::vector<double> A(4, 1.0), B(2, 1.0), X(2);
  std::vector<int> ipiv(2);
  int iter = 0;
  EXPECT_THROW(mixed_gesv(2, 1, A.data(), 1, ipiv.data(), B.data(), 2, X.data(), 2, &iter), InvalidArgument);
  EXPECT_THROW(mixed_gesv(2, 1, A.data(), 2, ipiv.data(), B.data(), 2, X.data(), 1, &iter), InvalidArgument);
  EXPECT_THROW(mixed_gesv(2, 1, A.data(), 2, ipiv.data(), B.data(), 2, X.data(), 2, nullptr), InvalidArgument);
  A[1] = std::nan("");
  EXPECT_THROW(mixed_gesv(2, 1, A.data(), 2, ipiv.data(), B.data(), 2, X.data(), 2, &iter), InvalidArgument);
}

}  // namespace
