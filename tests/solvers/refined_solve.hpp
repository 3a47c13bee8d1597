// A random system solved by a plan with refinement in working precision, checked as every hybrid
// and several-devices test wants it: no fall-back to GEPP, omega within (n + 1) u.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "matrices.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/lu.hpp"

namespace hetlu::test_support {

// `details` (when given) gets what the solve did, for the caller's own checks.
template <class T>
void expect_refined_solve(Plan plan, int n, int nrhs, SolveDetails* details = nullptr) {
  plan.refinement = Refinement::working;
  const auto A = make_matrix<T>(Kind::random, n, n, 11);
  const auto B = make_matrix<T>(Kind::random, n, nrhs, 12);
  auto LU = A;
  auto X = B;
  std::vector<int> ipiv(n);
  SolveDetails done;
  ASSERT_EQ(solvers::gesv(plan, n, nrhs, LU.data(), n, ipiv.data(), X.data(), n, InputCheck::finite, &done), 0);
  EXPECT_FALSE(done.fell_back_to_gepp) << done.note;
  EXPECT_LE(accuracy::backward_error(n, nrhs, A.data(), n, X.data(), n, B.data(), n),
            (n + 1) * accuracy::unit_roundoff<T>());
  if (details) *details = done;
}

}  // namespace hetlu::test_support
