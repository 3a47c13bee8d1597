// Iterative refinement in working precision: r = b - A x (summed in double), stop when the
// componentwise backward error omega <= (n + 1) eps, else x += A^-1 r with the factors at hand;
// at most max_steps. Where A and its factors live is the callers' business: they pass the
// residual and the solve.
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

// residual(const T* X, int ldx, T* R, int ldr) writes B - A X into the n x nrhs R and returns
// omega (one pass over A gives both); solve_in_place(T* R, int ldr) overwrites R with A^-1 R
// using the factors.
template <class T, class Residual, class SolveInPlace>
RefinementResult refine(int n, int nrhs, T* X, int ldx, Residual&& residual, SolveInPlace&& solve_in_place,
                        int max_steps = 5) {
  RefinementResult result;
  const double target = (n + 1) * accuracy::unit_roundoff<T>();
  const int ld = std::max(1, n);
  std::vector<T> R(static_cast<size_t>(ld) * nrhs);
  for (;;) {
    result.backward_error = residual(static_cast<const T*>(X), ldx, R.data(), ld);
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

// The residual of refine() for A in host memory.
template <class T>
auto host_residual(int n, int nrhs, const T* A, int lda, const T* B, int ldb) {
  return [=](const T* X, int ldx, T* R, int ldr) {
    return accuracy::residual_and_backward_error(n, nrhs, A, lda, X, ldx, B, ldb, R, ldr);
  };
}

}  // namespace hetlu::variants
