// solve_checked's escalation: a named solver whose answer fails the componentwise check is refined
// with the factors it already has, not factored again.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "hetlu/hetlu.hpp"

namespace hetlu {
namespace {

// Diagonally dominant, with B = A (X = I): GEPP's X is right to 1e-15, but its omega (9e-11 at
// n = 800) exceeds 30 (n + 1) eps until one step of refinement.
std::vector<double> diagonally_dominant(int n) {
  std::mt19937_64 rng(1);
  std::normal_distribution<double> normal;
  std::vector<double> A(static_cast<size_t>(n) * n);
  for (auto& v : A) v = normal(rng);
  for (int i = 0; i < n; ++i) {
    double row = 1;
    for (int j = 0; j < n; ++j) row += std::abs(A[i + static_cast<size_t>(j) * n]);
    A[i + static_cast<size_t>(i) * n] += row;
  }
  return A;
}

TEST(SolveCheckedRefinement, RefinesTheFailedAnswerWithItsOwnFactors) {
  const int n = 800;
  const auto A = diagonally_dominant(n);
  Options options;
  options.db_path = "/nonexistent/none.db";
  for (Solver solver : {Solver::gepp, Solver::calu}) {
    std::vector<double> X = A;
    const SolveReport r = solve_checked(solver, n, n, A.data(), n, X.data(), n, options);
    const std::string name = to_string(solver);
    ASSERT_EQ(r.info, 0) << name;
    ASSERT_EQ(r.attempts.size(), 2u) << name << ": the first answer passed, the test tests nothing";
    EXPECT_TRUE(r.accurate) << name;
    EXPECT_LE(*r.backward_error, accuracy_tolerance<double>(n)) << name;
    EXPECT_GE(r.refinement_steps, 1) << name;
    EXPECT_EQ(r.plan.refinement, Refinement::working) << name;
    // Refinement only: no second factorization among the answer's phases.
    ASSERT_EQ(r.phase_seconds.size(), 1u) << name;
    EXPECT_EQ(r.phase_seconds[0].first, "refinement with the previous factors") << name;
    double largest_error = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        largest_error = std::max(largest_error, std::abs(X[i + static_cast<size_t>(j) * n] - (i == j ? 1.0 : 0.0)));
    EXPECT_LT(largest_error, 1e-13) << name;
  }
}

}  // namespace
}  // namespace hetlu
