// Iterative refinement in working precision: r = b - A x (summed in double), stop when the
// componentwise backward error omega <= (n + 1) eps, else x += A^-1 r with the factors at hand;
// at most max_steps.
#pragma once

#include <algorithm>
#include <vector>

#include "solvers/accuracy.hpp"

namespace hetlu::variants {

struct RefinementResult {
  int steps = 0;
  double backward_error = 0;
  bool converged = false;
};

// solve_in_place(T* R, int ldr) overwrites the n x nrhs R with A^-1 R using the factors.
template <class T, class SolveInPlace>
RefinementResult refine(int n, int nrhs, const T* A, int lda, const T* B, int ldb, T* X, int ldx,
                        SolveInPlace&& solve_in_place, int max_steps = 5) {
  RefinementResult result;
  const double target = (n + 1) * accuracy::unit_roundoff<T>();
  const int ld = std::max(1, n);
  std::vector<T> R(static_cast<size_t>(ld) * nrhs);
  for (;;) {
    // One pass over A gives both omega and the residual the next step needs.
    result.backward_error = accuracy::residual_and_backward_error(n, nrhs, A, lda, X, ldx, B, ldb, R.data(), ld);
    if (result.backward_error <= target) {
      result.converged = true;
      return result;
    }
    if (result.steps == max_steps) return result;
    solve_in_place(R.data(), ld);
    for (int j = 0; j < nrhs; ++j)
      for (int i = 0; i < n; ++i) X[i + static_cast<long long>(j) * ldx] += R[i + static_cast<size_t>(j) * ld];
    ++result.steps;
  }
}

}  // namespace hetlu::variants
